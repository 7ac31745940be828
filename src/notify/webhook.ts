/**
 * The alerting webhook: one JSON POST per event. A failure to deliver is reported to the caller
 * as a message to log, never thrown: alerting must not stop the mirror. The payload never holds
 * the API token, and messages name the webhook by its origin only: hooks (Slack's, Teams') carry
 * their secret in the path.
 */
import { Agent, request } from 'undici';

/** The webhook as messages name it: scheme, host and port, and `/…` for a path left out. */
export function webhookLabel(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname === '/' ? '/' : '/…'}`;
}

/** What the webhook receives. */
export interface WebhookPayload {
  event: 'sync.failed' | 'sync.changed';
  at: string;
  out: string;
  status: 'ok' | 'unchanged' | 'failed';
  error?: string;
  changes?: Record<string, { added: number; removed: number; changed: number }>;
  summary?: string;
}

/** POSTs `payload` as JSON; resolves to undefined when delivered (2xx), else to a one-line reason. */
export async function postWebhook(url: string, payload: WebhookPayload, timeoutMs: number): Promise<string | undefined> {
  // A private agent closed after each post, so no keep-alive socket holds the process open.
  const agent = new Agent({ connect: { timeout: timeoutMs } });
  try {
    const response = await request(url, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', 'user-agent': 'inventory-mirror' },
      body: JSON.stringify(payload),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body.dump();
    return response.statusCode >= 200 && response.statusCode < 300 ? undefined : `webhook ${webhookLabel(url)} answered HTTP ${response.statusCode}`;
  } catch (error) {
    const reason = error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.name) : String(error);
    return `webhook ${webhookLabel(url)} was not reached: ${reason}`;
  } finally {
    await agent.close().catch(() => {});
  }
}
