/**
 * `_meta/last-sync.json`: what the last successful sync did and when, for people and monitoring
 * (`verify --max-age`), and the boot it ran in, so the next sync knows whether power loss could
 * have hit the folder since (see publish/boot.ts). Run metadata: outside the manifest, git-ignored.
 */
import { join } from 'node:path';
import fs from 'fs-extra';
import { countChanges } from '../diff/engine.js';
import { decodeJson, encodeJson } from '../publish/json.js';
import { LAST_SYNC_FILE } from '../publish/paths.js';
import type { SyncResult } from './run.js';

/** Records a finished sync of `baseUrl` (its credentials and query left out) into `out`. */
export async function writeLastSync(out: string, baseUrl: string, result: SyncResult, started: number, bootId: string | undefined): Promise<void> {
  const url = new URL(baseUrl);
  url.username = '';
  url.password = '';
  url.search = '';
  const body = {
    status: result.status,
    startedAt: new Date(started).toISOString(),
    finishedAt: new Date().toISOString(),
    durationMs: result.durationMs,
    baseUrl: url.toString(),
    records: result.records,
    views: result.views,
    requests: result.requests,
    retries: result.retries,
    notModified: result.notModified,
    bytesReceived: result.bytesReceived,
    files: { written: result.written.length, removed: result.removed.length, unchanged: result.unchanged },
    changes: countChanges(result.changes),
    warnings: result.warnings,
    ...(bootId ? { bootId } : {}),
  };
  const path = join(out, LAST_SYNC_FILE);
  await fs.mkdir(join(out, '_meta'), { recursive: true });
  await fs.writeFile(`${path}.tmp`, encodeJson(body));
  await fs.rename(`${path}.tmp`, path);
}

/** Whether the last successful sync of `out` ran in the boot `bootId`. */
export async function syncedInBoot(out: string, bootId: string | undefined): Promise<boolean> {
  if (!bootId) return false;
  const last = decodeJson(await fs.readFile(join(out, LAST_SYNC_FILE)).catch(() => undefined));
  return typeof last === 'object' && last !== null && (last as { bootId?: unknown }).bootId === bootId;
}
