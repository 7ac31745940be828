/** Runs the real sync in-process with test-friendly settings. */
import { parseConfig } from '../../src/config/load.js';
import { runSync, type SyncOptions, type SyncResult } from '../../src/sync/run.js';
import type { Upstream } from '../../src/upstream/index.js';
import { TOKEN } from './upstream.js';

/** Settings with fast retries, so fault tests do not wait on real backoff. */
export const FAST = parseConfig({ sync: { retries: 10, retryBaseMs: 2, retryMaxMs: 40, timeoutMs: 5_000 } }, 'test');

export function syncInto(upstream: Upstream, out: string, extra: Partial<SyncOptions> = {}): Promise<SyncResult> {
  return runSync({ baseUrl: upstream.url, token: TOKEN, out, settings: FAST.sync, filters: FAST.filters, ...extra });
}
