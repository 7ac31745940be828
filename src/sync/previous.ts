/**
 * What a sync knows of the snapshot it replaces: its files (from the manifest), the validators of
 * the responses behind them (from the ETag cache bound to that manifest, and only when the
 * redaction policy is the one it was published with) and its data-quality report (whose findings
 * carry over to what is kept unread).
 */
import { join } from 'node:path';
import fs from 'fs-extra';
import { readManifest } from '../snapshot/manifest-read.js';
import { QUALITY_FILE, REDACTION_FILE } from '../snapshot/paths.js';
import { checkFoldersOf } from '../snapshot/safe-folder.js';
import type { FileTable } from '../snapshot/table.js';
import { encodeRedaction, isRedacting, type RedactPolicy } from '../redact/policy.js';
import { sha256 } from '../snapshot/manifest.js';
import { readHttpCache } from '../snapshot/http-cache.js';
import { parseQuality, type Quality } from '../validate/quality.js';

interface PreviousSnapshot {
  table: FileTable;
  manifestSha256: string;
  /** Whether the table carries the validators of the responses (usable for "changed since?"). */
  cached: boolean;
  /** Its quality report, when intact: findings of what is kept unread are carried over from it. */
  quality: Quality | undefined;
}

/** A published file's bytes when they still match the manifest, else undefined. */
async function intactFile(dir: string, table: FileTable, path: string): Promise<Buffer | undefined> {
  const i = table.indexOf(path);
  if (i === undefined) return undefined;
  const bytes = await fs.readFile(join(dir, path)).catch(() => undefined);
  return bytes && bytes.length === table.fileSize(i) && sha256(bytes) === table.sha256(i) ? bytes : undefined;
}

/** Reads the snapshot published in `dir` (undefined when there is none). */
export async function readPrevious(dir: string, redact: RedactPolicy | undefined): Promise<PreviousSnapshot | undefined> {
  const manifest = await readManifest(dir);
  if (!manifest) return undefined;
  const { table } = manifest;
  // Never read a snapshot through a link out of the folder.
  await checkFoldersOf(dir, table.paths());
  // The validators stand for bodies as published under the previous redaction policy: a 304
  // under another policy would keep a file the new one must change.
  const i = table.indexOf(REDACTION_FILE);
  const policy = isRedacting(redact) ? sha256(encodeRedaction(redact)) : undefined;
  const samePolicy = (i === undefined ? undefined : table.sha256(i)) === policy;
  const cached = samePolicy && (await readHttpCache(dir, table, manifest.sha256));
  return { table, manifestSha256: manifest.sha256, cached, quality: parseQuality(await intactFile(dir, table, QUALITY_FILE)) };
}
