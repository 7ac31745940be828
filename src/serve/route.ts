/**
 * A request target → the answer from one snapshot, without touching the disk: API paths (lists
 * with their queries, single records) first, then the exact paths of the published files. Only
 * what the manifest lists can be answered, so no path can reach a file outside the snapshot.
 */
import { evaluateListQuery, isSubstringFilter, normalizeListQuery } from '../index/query.js';
import { encodeJson } from '../json/encode.js';
import { filterFile, listFile, recordFile } from '../publish/paths.js';
import { isResourceName, type ResourceName } from '../spec/resources.js';
import type { Entry, Snapshot } from './snapshot.js';

/** An answer: a body to send, or an error status with its JSON body. */
export type Answer = { status: 200; entry: Entry } | { status: number; error: string; parameter?: string };

/** Longer request targets are refused before any parsing. */
export const MAX_TARGET_BYTES = 8 * 1024;

const LIST_PATH = /^\/([a-z_]+)\.json$/;
// An encoded id holds no raw '/', so '/servers/a%2Fb.json' is id "a/b".
const SINGLE_PATH = /^\/([a-z_]+)\/([^/]+)\.json$/;

const notFound: Answer = { status: 404, error: 'not found' };

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

function listAnswer(snapshot: Snapshot, resource: ResourceName, queryText: string, caseSensitive: boolean): Answer {
  const query = normalizeListQuery(resource, new URLSearchParams(queryText));
  const whole = (file: string): Answer | undefined => {
    const entry = snapshot.files.get(file);
    return entry ? { status: 200, entry } : undefined;
  };
  if (query.params.size === 0) return whole(listFile(resource)) ?? notFound;
  if (query.params.size === 1) {
    // A view's file is the service's body for that one-parameter query.
    const [[param, value]] = [...query.params] as [[string, string]];
    const file = isSubstringFilter(resource, param) ? undefined : whole(filterFile(resource, param, value));
    if (file) return file;
  }
  const result = evaluateListQuery(resource, query, snapshot, { caseSensitive });
  if (!result.ok) return { status: 400, error: result.message, parameter: result.param };
  const records = result.records;
  return { status: 200, entry: snapshot.cached(`${resource}?${query.key}`, () => encodeJson({ [resource]: records })) };
}

/**
 * A path that is not an API path: a published file by its exact (raw or once-decoded) path. The
 * snapshot holds only what the manifest lists and the manifest, so `_meta/last-sync.json` and the
 * work folder are not reachable.
 */
function fileAnswer(snapshot: Snapshot, path: string): Answer {
  const segments = path.slice(1).split('/');
  const decoded: string[] = [];
  for (const segment of segments) {
    const plain = decode(segment);
    if (plain === undefined) return { status: 400, error: 'malformed percent-encoding in the path' };
    if (plain === '.' || plain === '..' || /[/\\\0]/.test(plain)) return { status: 400, error: 'the path may not hold dot segments, encoded slashes or NUL' };
    // Dot files (.gitignore, .git, .inventory-mirror) are never served.
    if (segment === '' || plain.startsWith('.')) return notFound;
    decoded.push(plain);
  }
  for (const candidate of [segments.join('/'), decoded.join('/')]) {
    const entry = snapshot.files.get(candidate);
    if (entry) return { status: 200, entry };
  }
  return notFound;
}

/** Answers a GET of `target` (path and query, as sent) from `snapshot`. */
export function route(snapshot: Snapshot, target: string, caseSensitive: boolean): Answer {
  if (Buffer.byteLength(target) > MAX_TARGET_BYTES) return { status: 414, error: `the request target is longer than ${MAX_TARGET_BYTES} bytes` };
  if (!target.startsWith('/')) return { status: 400, error: 'the request target must be a path' };
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  if (path.includes('\0') || /%00/i.test(path)) return { status: 400, error: 'the path may not hold NUL' };

  const list = LIST_PATH.exec(path);
  if (list) {
    const resource = list[1]!;
    return isResourceName(resource) ? listAnswer(snapshot, resource, q === -1 ? '' : target.slice(q + 1), caseSensitive) : notFound;
  }
  const single = SINGLE_PATH.exec(path);
  const resource = single?.[1];
  if (single && resource !== undefined && isResourceName(resource)) {
    // Single-record endpoints take no query parameters: the query is ignored.
    const id = decode(single[2]!);
    if (id === undefined) return { status: 400, error: 'malformed percent-encoding in the id' };
    const entry = snapshot.files.get(recordFile(resource, id));
    return entry ? { status: 200, entry } : notFound;
  }
  return fileAnswer(snapshot, path);
}
