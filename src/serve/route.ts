/**
 * A request target → what answers it, from the snapshot's table alone: API paths (lists with
 * their queries, single records) first, then the exact paths of the published files. Only what
 * the manifest lists (and the manifest) can be answered, so no path reaches a file outside the
 * snapshot.
 */
import { extname } from 'node:path';
import { isSubstringFilter, normalizeListQuery, type ListQuery } from '../index/query.js';
import { filterFile, listFile, MANIFEST_FILE, recordFile } from '../snapshot/paths.js';
import { isResourceName, parseEndpoint, type ResourceName } from '../spec/resources.js';

/** What answers a request: a published file, a list query to evaluate, or an error. */
type Route =
  | { kind: 'file'; path: string }
  | { kind: 'query'; resource: ResourceName; query: ListQuery }
  | { kind: 'error'; status: number; error: string; parameter?: string };

/** Longer request targets are refused before any parsing. */
const MAX_TARGET_BYTES = 8 * 1024;

const notFound: Route = { kind: 'error', status: 404, error: 'not found' };

/** The Content-Type of a published file, by its extension: the mirror holds JSON and the offline page. */
const TYPES: Readonly<Record<string, string>> = {
  '.json': 'application/json; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};
export const JSON_TYPE = TYPES['.json']!;

export function contentType(path: string): string {
  return TYPES[extname(path)] ?? 'application/octet-stream';
}

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** Whether the snapshot can answer with the file at `path`. */
type HasFile = (path: string) => boolean;

function listRoute(has: HasFile, resource: ResourceName, queryText: string): Route {
  const query = normalizeListQuery(resource, new URLSearchParams(queryText));
  if (query.params.size === 0) return has(listFile(resource)) ? { kind: 'file', path: listFile(resource) } : notFound;
  if (query.params.size === 1) {
    // A view's file is the service's body for that one-parameter query.
    const [[param, value]] = [...query.params] as [[string, string]];
    const file = filterFile(resource, param, value);
    if (!isSubstringFilter(resource, param) && has(file)) return { kind: 'file', path: file };
  }
  return { kind: 'query', resource, query };
}

/**
 * A path that is not an API path: a published file by its exact (raw or once-decoded) path. Only
 * what the manifest lists and the manifest, so `_meta/last-sync.json` and the work folder are not
 * reachable.
 */
function fileRoute(has: HasFile, path: string): Route {
  const segments = path.slice(1).split('/');
  const decoded: string[] = [];
  for (const segment of segments) {
    const plain = decode(segment);
    if (plain === undefined) return { kind: 'error', status: 400, error: 'malformed percent-encoding in the path' };
    if (plain === '.' || plain === '..' || /[/\\\0]/.test(plain)) return { kind: 'error', status: 400, error: 'the path may not hold dot segments, encoded slashes or NUL' };
    // Dot files (.gitignore, .git, .inventory-mirror) are never served.
    if (segment === '' || plain.startsWith('.')) return notFound;
    decoded.push(plain);
  }
  for (const candidate of [segments.join('/'), decoded.join('/')]) {
    if (candidate === MANIFEST_FILE || has(candidate)) return { kind: 'file', path: candidate };
  }
  return notFound;
}

/** The offline page's entry file, which `/` answers with. */
const PAGE_FILE = 'index.html';

/** Routes a GET of `target` (path and query, as sent). */
export function route(has: HasFile, target: string): Route {
  if (Buffer.byteLength(target) > MAX_TARGET_BYTES) return { kind: 'error', status: 414, error: `the request target is longer than ${MAX_TARGET_BYTES} bytes` };
  if (!target.startsWith('/')) return { kind: 'error', status: 400, error: 'the request target must be a path' };
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  if (path.includes('\0') || /%00/i.test(path)) return { kind: 'error', status: 400, error: 'the path may not hold NUL' };

  // The root is the offline page, when the snapshot has one: what a person opening the address expects.
  if (path === '/') return has(PAGE_FILE) ? { kind: 'file', path: PAGE_FILE } : notFound;
  const endpoint = parseEndpoint(path);
  if (endpoint?.kind === 'list') {
    const { resource } = endpoint;
    return isResourceName(resource) ? listRoute(has, resource, q === -1 ? '' : target.slice(q + 1)) : notFound;
  }
  if (endpoint && isResourceName(endpoint.resource)) {
    // Single-record endpoints take no query parameters: the query is ignored.
    const id = decode(endpoint.encodedId);
    if (id === undefined) return { kind: 'error', status: 400, error: 'malformed percent-encoding in the id' };
    const file = recordFile(endpoint.resource, id);
    return has(file) ? { kind: 'file', path: file } : notFound;
  }
  return fileRoute(has, path);
}
