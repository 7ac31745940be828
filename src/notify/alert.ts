/**
 * Which finished runs call the webhook, and with what: a failed run always (when a URL is set),
 * a run that changed the snapshot when `notify.onChange` asks. Shared by `sync` (run from cron or
 * systemd) and `schedule`. The payload is scrubbed of secrets: an error message may quote what a
 * service or proxy echoed.
 */
import type { NotifySettings } from '../config/schema.js';
import { formatChangeLine } from '../diff/format.js';
import type { RunRecord, SyncResult } from '../sync/result.js';
import { scrubValue } from '../util/secrets.js';
import { postWebhook, type WebhookPayload } from './webhook.js';

/** Posts the webhook `record` calls for, if any; resolves to a problem to log, never throws. */
export async function alertRun(notify: NotifySettings, out: string, record: RunRecord, result: SyncResult | undefined): Promise<string | undefined> {
  const changed = record.status === 'ok' && result !== undefined && formatChangeLine(result.changes) !== 'none';
  if (!notify.url || !(record.status === 'failed' || (notify.onChange && changed))) return undefined;
  const payload: WebhookPayload = {
    event: record.status === 'failed' ? 'sync.failed' : 'sync.changed',
    at: record.end,
    out,
    status: record.status,
    ...(record.error ? { error: record.error } : {}),
    ...(record.changes ? { changes: record.changes } : {}),
    ...(result ? { summary: formatChangeLine(result.changes) } : {}),
  };
  return postWebhook(notify.url, scrubValue(payload), notify.timeoutMs);
}
