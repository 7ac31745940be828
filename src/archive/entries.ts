/**
 * What may be in an archive of a snapshot, and how an entry is written: pure functions. Only
 * regular files (and folders, which are skipped) with relative, `/`-separated paths that stay
 * inside the folder; never links, devices, fifos, work files or run metadata.
 */
import { Header, Pax } from 'tar';
import { isOutsideSnapshot, MANIFEST_FILE, SIGNATURE_FILE } from '../snapshot/paths.js';

/** Every entry carries this mtime (and uid/gid 0, mode 0644), so packing twice gives the same bytes. */
const ENTRY_MTIME = new Date(0);
const BLOCK = 512;

/** The tar header block(s) of a regular file entry: a PAX header first when the path needs one. */
export function entryHeader(path: string, size: number): Buffer {
  const fields = { path, mode: 0o644, uid: 0, gid: 0, size, mtime: ENTRY_MTIME, type: 'File' as const, uname: '', gname: '' };
  const block = Buffer.alloc(BLOCK);
  const needPax = new Header(fields).encode(block);
  if (!needPax) return block;
  return Buffer.concat([new Pax({ path, mtime: ENTRY_MTIME }).encode(), block]);
}

/** Zero bytes that pad an entry's data to a whole block. */
export function entryPadding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

/** The end-of-archive marker: two zero blocks. */
export const ARCHIVE_END = Buffer.alloc(2 * BLOCK);

/** The order of entries: manifest, signature, then every file by path, so readers meet the manifest first. */
export function entryOrder(paths: Iterable<string>): string[] {
  const rest = [...paths].filter((p) => p !== MANIFEST_FILE && p !== SIGNATURE_FILE).sort();
  return [MANIFEST_FILE, ...[...paths].filter((p) => p === SIGNATURE_FILE), ...rest];
}

const ACCEPTED_TYPES = new Set(['File', 'OldFile', 'Directory']);

/**
 * Why an archive entry must be refused, or undefined when it is acceptable. `path` is the
 * entry's path as stored (after any PAX header).
 */
export function entryProblem(type: string, path: string): string | undefined {
  const shown = JSON.stringify(path);
  if (!ACCEPTED_TYPES.has(type)) return `entry ${shown} is a ${type} entry; an archive of a snapshot holds only regular files`;
  const rel = type === 'Directory' ? path.replace(/\/$/, '') : path;
  if (rel === '') return `an entry has an empty path`;
  if (rel.startsWith('/') || /^[A-Za-z]:/.test(rel)) return `entry ${shown} has an absolute path; it would land outside the folder`;
  if (rel.includes('\\') || rel.includes('\0')) return `entry ${shown} has a backslash or NUL in its path`;
  const segments = rel.split('/');
  if (segments.includes('..')) return `entry ${shown} climbs out with ".."; it would land outside the folder`;
  if (segments.some((s) => s === '' || s === '.')) return `entry ${shown} has an empty or "." path segment`;
  if (type !== 'Directory' && rel !== MANIFEST_FILE && rel !== SIGNATURE_FILE && isOutsideSnapshot(rel)) return `entry ${shown} is a work file or run metadata, never part of a snapshot archive`;
  if (type === 'Directory' && (rel === '.inventory-mirror' || rel === '.git' || isOutsideSnapshot(`${rel}/`))) return `entry ${shown} is a work folder, never part of a snapshot archive`;
  return undefined;
}

/**
 * Why the file entry `path` cannot sit beside the file entries already read: one path would have
 * to be a file and a folder (`servers` and `servers/x.json`). `files` holds the file entries read
 * so far; `folders` maps each folder they need to the first entry that needs it, and gains
 * `path`'s folders when it fits. Undefined when it fits.
 */
export function placementProblem(path: string, files: { has(path: string): boolean }, folders: Map<string, string>): string | undefined {
  const clash = (file: string, inside: string): string => `entries ${JSON.stringify(file)} and ${JSON.stringify(inside)} cannot both be in it: ${JSON.stringify(file)} would be a file and a folder`;
  const inside = folders.get(path);
  if (inside !== undefined) return clash(path, inside);
  const parents: string[] = [];
  for (let at = path.indexOf('/'); at >= 0; at = path.indexOf('/', at + 1)) parents.push(path.slice(0, at));
  const file = parents.find((parent) => files.has(parent));
  if (file !== undefined) return clash(file, path);
  for (const parent of parents) if (!folders.has(parent)) folders.set(parent, path);
  return undefined;
}
