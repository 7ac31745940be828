/** Hand-made archives for hostile-input tests: any entry type, any path, written with tar's Header. */
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { Header } from 'tar';

export interface CraftedEntry {
  path: string;
  type?: 'File' | 'Directory' | 'SymbolicLink' | 'Link' | 'FIFO' | 'CharacterDevice';
  body?: string | Buffer;
  linkpath?: string;
}

export interface CraftOptions {
  /** Bytes added to the tar stream after its end marker, inside the gzip stream. */
  trailer?: Buffer;
  /** Bytes added to the file after the gzip stream (garbage, a second gzip member, zeros). */
  after?: Buffer;
}

/** Writes a .tar.gz holding exactly these entries, in this order. */
export function craftArchive(file: string, entries: CraftedEntry[], options: CraftOptions = {}): void {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.body ?? '');
    const header = Buffer.alloc(512);
    new Header({ path: entry.path, type: entry.type ?? 'File', mode: 0o644, size: entry.type && entry.type !== 'File' ? 0 : body.length, mtime: new Date(0), linkpath: entry.linkpath ?? '', uid: 0, gid: 0 }).encode(header);
    blocks.push(header);
    if (!entry.type || entry.type === 'File') blocks.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  if (options.trailer) blocks.push(options.trailer);
  writeFileSync(file, Buffer.concat([gzipSync(Buffer.concat(blocks)), options.after ?? Buffer.alloc(0)]));
}
