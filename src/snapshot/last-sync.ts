/**
 * `_meta/last-sync.json`: what the last successful sync did and when, for people and monitoring
 * (`verify --max-age`, the metrics file), and the boot it ran in, so the next sync knows whether
 * power loss could have hit the folder since (see boot.ts). Run metadata: outside the manifest,
 * git-ignored, published with the manifest. Bounded whatever the record count: findings appear
 * aggregated, with a few examples each.
 */
import { join } from 'node:path';
import fs from 'fs-extra';
import { decodeJson, encodeJson } from '../json/encode.js';
import { LAST_SYNC_FILE } from './paths.js';
import { safeUrl, scrubValue } from '../util/secrets.js';

/** The base URL as it is recorded: safe to show, without a trailing slash. */
export function displayUrl(baseUrl: string): string {
  return safeUrl(baseUrl).replace(/\/$/, '');
}

/** The file's bytes for a finished sync's record (any JSON object; secrets scrubbed). */
export function encodeLastSync(record: Record<string, unknown>): Buffer {
  return encodeJson(scrubValue(record));
}

/** The last successful sync's record, or undefined. */
export async function readLastSync(out: string): Promise<Record<string, unknown> | undefined> {
  const value = decodeJson(await fs.readFile(join(out, LAST_SYNC_FILE)).catch(() => undefined));
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** Whether the last successful sync of `out` ran in the boot `bootId`. */
export async function syncedInBoot(out: string, bootId: string | undefined): Promise<boolean> {
  return bootId !== undefined && (await readLastSync(out))?.bootId === bootId;
}
