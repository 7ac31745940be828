/** Runs the real sync in-process with test-friendly settings. */
import { runSync, type SyncRun, type SyncResult } from '../../src/sync/index.js';
import type { Upstream } from '../../src/upstream/index.js';
import { TOKEN } from './upstream.js';

/** Settings with fast retries, so fault tests do not wait on real backoff. */
export const FAST = { retries: 10, retryBaseMs: 2, retryMaxMs: 40, timeoutMs: 5_000 };

export function syncInto(upstream: Upstream, out: string, extra: Partial<SyncRun> = {}): Promise<SyncResult> {
  return runSync({ baseUrl: upstream.url, token: TOKEN, out, ...extra, settings: { ...FAST, ...extra.settings } });
}
