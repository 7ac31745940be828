/**
 * File names of the published tree, as the contract fixes them: an id or filter value appears as
 * it is when made only of `A-Z a-z 0-9 . _ ~ -` and not `.` or `..`, else percent-encoded. The
 * encoding is injective, so no id can reach outside the folder or onto another record's file.
 */
import { createHash } from 'node:crypto';
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';

const SAFE = /^[A-Za-z0-9._~-]+$/;
/** Most file systems cap a name at 255 bytes; keep room for `.json` and temporary suffixes. */
const MAX_NAME_BYTES = 200;

/** Percent-encodes what `encodeURIComponent` leaves but the contract does not: `! ' ( ) *`. */
function percentEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The file-name form of an id or filter value. Over-long names keep a readable prefix and end in
 * `~` and a sha256 of the whole value, so they stay unique and within the file system's limit.
 */
export function encodeSegment(value: string): string {
  let name: string;
  if (value === '.' || value === '..') name = value.replaceAll('.', '%2E');
  else if (SAFE.test(value)) name = value;
  else name = percentEncode(value);
  if (Buffer.byteLength(name) <= MAX_NAME_BYTES) return name;
  const hash = createHash('sha256').update(value).digest('hex').slice(0, 32);
  const prefix = name.slice(0, MAX_NAME_BYTES - 33).replace(/%[0-9A-F]?$/, '');
  return `${prefix}~${hash}`;
}

/** The id or value a file name stands for; undefined for a shortened long name (read the file). */
export function decodeSegment(name: string): string | undefined {
  if (HASHED.test(name)) return undefined;
  try {
    return decodeURIComponent(name);
  } catch {
    return undefined;
  }
}

const HASHED = /~[0-9a-f]{32}$/;

/** Bytes a path's segment may hold as they are (`A-Z a-z 0-9 . _ ~ -`); anything else only as a `%XX` escape. */
const SAFE_CODES = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~-') SAFE_CODES[c.charCodeAt(0)] = 1;
const isUpperHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46);
const SLASH = 0x2f;
const DOT = 0x2e;
const PERCENT = 0x25;

/**
 * Whether `path` has the form of a file of a published snapshot: `/`-separated segments made only
 * of `A-Z a-z 0-9 . _ ~ -` and `%XX` escapes, none `.` or `..`, none longer than 255 bytes. Every
 * name the snapshot makes has it; a path read from disk (a manifest, a `_meta` file, a journal)
 * without it is damage or an attack: it is never joined to a folder nor written into a
 * configuration. One pass over the characters: a manifest of 360 000 paths is checked on every run.
 */
export function isSnapshotPath(path: string): boolean {
  const n = path.length;
  if (n === 0 || n > 4096) return false;
  let start = 0;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? path.charCodeAt(i) : SLASH;
    if (c === SLASH) {
      const length = i - start;
      if (length === 0 || length > 255) return false;
      if (path.charCodeAt(start) === DOT && (length === 1 || (length === 2 && path.charCodeAt(start + 1) === DOT))) return false;
      start = i + 1;
    } else if (c === PERCENT) {
      if (!isUpperHex(path.charCodeAt(i + 1)) || !isUpperHex(path.charCodeAt(i + 2))) return false;
      i += 2;
    } else if (c >= 128 || !SAFE_CODES[c]) return false;
  }
  return true;
}


/** The resource of a single-record file (`servers/12.json`), else undefined (parseRecordFile without the name, for counting). */
export function recordResource(path: string): ResourceName | undefined {
  return recordResourceIn(path, 0, path.length);
}

/** recordResource of `text.slice(start, end)`, without making that string. */
export function recordResourceIn(text: string, start: number, end: number): ResourceName | undefined {
  // `<resource>/<name>.json`, one slash, a name of one character at least; by hand rather than a
  // regex: counting the records of a 360 000-file manifest calls it for every path. A search for
  // a slash may run past `end` into the next path of a joined chunk, but stops at its first slash.
  const slash = text.indexOf('/', start);
  if (slash <= start || end - slash < 7) return undefined;
  const second = text.indexOf('/', slash + 1);
  if ((second !== -1 && second < end) || !text.startsWith('.json', end - 5)) return undefined;
  for (const resource of RESOURCE_NAMES) if (resource.length === slash - start && text.startsWith(resource, start)) return resource;
  return undefined;
}

/** The resource and file name of a single-record file (`servers/12.json`), else undefined. */
export function parseRecordFile(path: string): { resource: ResourceName; name: string } | undefined {
  const resource = recordResource(path);
  return resource && { resource, name: path.slice(resource.length + 1, -5) };
}

/** The folder, inside a resource's, of its filtered lists (`servers/_filter/by_arch/x86_64.json`). */
export const FILTER_DIR = '_filter';

export const listFile = (resource: ResourceName): string => `${resource}.json`;
/** A record's file from its name (an id already in file-name form, or an nginx variable). */
export const namedRecordFile = (resource: string, name: string): string => `${resource}/${name}.json`;
/** A filtered list's file from its parameter and value already in file-name form (or nginx variables). */
export const namedFilterFile = (resource: string, param: string, value: string): string => `${resource}/${FILTER_DIR}/${param}/${value}.json`;
export const recordFile = (resource: ResourceName, id: string): string => namedRecordFile(resource, encodeSegment(id));
export const filterFile = (resource: ResourceName, param: string, value: string): string =>
  namedFilterFile(resource, encodeSegment(param), encodeSegment(value));

export const META_DIR = '_meta';
export const MANIFEST_FILE = `${META_DIR}/manifest.json`;
export const FILTER_INDEX_FILE = `${META_DIR}/filters.json`;
export const LAST_SYNC_FILE = `${META_DIR}/last-sync.json`;
/** The last change sets, for readers of a static copy without git; part of the snapshot. */
export const CHANGES_FILE = `${META_DIR}/changes.json`;
/** The Ed25519 signature of the manifest's bytes; outside the manifest, like the manifest itself. */
export const SIGNATURE_FILE = `${META_DIR}/manifest.sig`;
/** ETags and Last-Modified of the responses behind the snapshot: a cache, outside the manifest. */
export const HTTP_CACHE_FILE = `${META_DIR}/http-cache.json`;
/** The redaction policy the snapshot was made with (only when there is one); part of the snapshot. */
export const REDACTION_FILE = `${META_DIR}/redaction.json`;
/** The inventory's data quality (see validate/quality.ts); part of the snapshot. */
export const QUALITY_FILE = `${META_DIR}/quality.json`;
export const GITIGNORE_FILE = '.gitignore';
export const GITATTRIBUTES_FILE = '.gitattributes';
/** Lock, journal and staged files live here, inside the folder so renames stay on one file system. */
export const WORK_DIR = '.inventory-mirror';

/**
 * Files of the folder that are not part of the snapshot: `verify` and the manifest skip them.
 * Besides our own, a `.git/` (the folder may be a repository) and a `.gitkeep` (the placeholder
 * that keeps an empty output folder in a repository, as this project's own `output/` has).
 */
export function isOutsideSnapshot(relPath: string): boolean {
  return (
    relPath === MANIFEST_FILE ||
    relPath === LAST_SYNC_FILE ||
    relPath === HTTP_CACHE_FILE ||
    relPath === SIGNATURE_FILE ||
    relPath === '.gitkeep' ||
    relPath.startsWith(`${WORK_DIR}/`) ||
    relPath.startsWith('.git/')
  );
}
