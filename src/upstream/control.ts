/**
 * The control endpoint: lets the user of a running `upstream` change it (mutate, faults) and
 * read what it injected, without a token but only from this machine. It lives under /_control,
 * which no API path can reach: API paths are /<resource>.json and /<resource>/<id>.json, and no
 * resource name starts with an underscore.
 */
import { z } from 'zod';
import { FAULT_KINDS, type FaultOptions } from './faults.js';
import type { InjectedReport } from './injected.js';
import type { MutationReport } from './mutate.js';
import type { PacingOptions } from './pacing.js';
import type { Traffic } from './traffic.js';
import { jsonReply, type Reply } from './reply.js';

/** What the control endpoint acts on. */
export interface ControlHooks {
  mutate(options: { seed?: number; share?: number }): MutationReport;
  injected(): InjectedReport;
  setFaults(faults: FaultOptions | undefined): void;
  setPacing(pacing: PacingOptions): void;
  setRateLimit(perSecond: number | undefined): void;
  traffic: Traffic;
}

const CONTROL_PATH = '/_control';

/** The endpoints, as `GET /_control` and `upstream --help` list them. */
export const CONTROL_ENDPOINTS = [
  { method: 'GET', path: '/_control', does: 'this list' },
  { method: 'POST', path: '/_control/mutate?share=0.01&seed=N', does: 'adds, removes and changes that share of the records (seed optional); answers the ids per resource' },
  { method: 'GET', path: '/_control/injected', does: 'the nulls, wrong types, view mismatches and dangling references the data holds, and the fields only one view carries' },
  { method: 'POST', path: '/_control/faults?rate=0.1&kinds=5xx,reset&seed=N', does: 'replaces the fault settings (kinds and seed optional); rate=0 clears them' },
  { method: 'POST', path: '/_control/pacing?latency_ms=20&workers=8', does: 'replaces the mean service time and the workers from now on (either optional: 0 ms, unlimited); a service degrading mid-run' },
  { method: 'POST', path: '/_control/limit?per_second=150', does: 'a rate limiter from now on: above that many requests within any one second, 429 with Retry-After: 1; per_second=0 turns it off' },
  { method: 'GET', path: '/_control/traffic', does: 'requests since the last reset, the most within any one second, the most held at once, those refused with 503 (queue full) and with 429 (rate limiter)' },
  { method: 'POST', path: '/_control/traffic/reset', does: 'starts those counters again' },
] as const;

/** Whether a request path is the control endpoint's. */
export function isControlPath(path: string): boolean {
  return path === CONTROL_PATH || path.startsWith(`${CONTROL_PATH}/`);
}

/** Whether a socket's remote address is this machine (IPv4 127/8, IPv6 ::1, or 127/8 mapped into IPv6). */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.toLowerCase().startsWith('::ffff:') ? address.slice(7) : address;
  return address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

const fraction = z
  .string()
  .regex(/^\d*\.?\d+$/, { error: 'expected a number from 0 to 1' })
  .transform(Number)
  .refine((n) => n <= 1, { error: 'expected a number from 0 to 1' });
const seed = z
  .string()
  .regex(/^\d{1,10}$/, { error: 'expected an integer from 0 to 4294967295' })
  .transform(Number)
  .refine((n) => n <= 2 ** 32 - 1, { error: 'expected an integer from 0 to 4294967295' });
const kinds = z
  .string()
  .transform((text) => text.split(',').map((kind) => kind.trim()))
  .pipe(z.array(z.enum(FAULT_KINDS as [string, ...string[]], { error: `expected a comma-separated list of ${FAULT_KINDS.join(', ')}` })));

const count = (min: number) =>
  z
    .string()
    .regex(/^\d{1,6}$/, { error: `expected an integer from ${min} to 999999` })
    .transform(Number)
    .refine((n) => n >= min, { error: `expected an integer from ${min} to 999999` });
const pacingQuery = z.strictObject({ latency_ms: count(0).optional(), workers: count(1).optional() });
const limitQuery = z.strictObject({ per_second: count(0) });
const mutateQuery = z.strictObject({ share: fraction.optional(), seed: seed.optional() });
const faultsQuery = z.strictObject({ rate: fraction, kinds: kinds.optional(), seed: seed.optional() });

/** The query parsed by `schema`, or the one-line reason it does not fit. */
function parseQuery<T>(schema: z.ZodType<T>, search: URLSearchParams): { ok: true; value: T } | { ok: false; error: string } {
  const result = schema.safeParse(Object.fromEntries(search));
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0]!;
  // The parameter, not the position inside it: `kinds`, not `kinds.1`.
  const where = issue.path.length > 0 ? String(issue.path[0]) : 'query';
  return { ok: false, error: `${where}: ${issue.message.replace(/^Invalid input: /, '')}` };
}

/** The answer to one control request; `method` and `url` as received. */
export function controlReply(method: string | undefined, url: string, hooks: ControlHooks): Reply {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const search = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
  const endpoint = CONTROL_ENDPOINTS.find((e) => e.path.split('?')[0] === path);
  if (!endpoint) return jsonReply(404, { error: `no control endpoint ${path}; GET ${CONTROL_PATH} lists them` });
  const allowed = endpoint.method === 'GET' ? ['GET', 'HEAD'] : [endpoint.method];
  if (!allowed.includes(method ?? '')) return jsonReply(405, { error: `${path} takes ${endpoint.method}` }, { Allow: allowed.join(', ') });

  switch (path) {
    case '/_control/mutate': {
      const query = parseQuery(mutateQuery, search);
      if (!query.ok) return jsonReply(400, { error: `mutate: ${query.error}` });
      return jsonReply(200, hooks.mutate(query.value));
    }
    case '/_control/injected':
      return jsonReply(200, hooks.injected());
    case '/_control/faults': {
      const query = parseQuery(faultsQuery, search);
      if (!query.ok) return jsonReply(400, { error: `faults: ${query.error}` });
      const faults = query.value.rate === 0 ? undefined : ({ ...query.value } as FaultOptions);
      hooks.setFaults(faults);
      return jsonReply(200, { faults: faults ?? null });
    }
    case '/_control/pacing': {
      const query = parseQuery(pacingQuery, search);
      if (!query.ok) return jsonReply(400, { error: `pacing: ${query.error}` });
      const pacing = { latencyMs: query.value.latency_ms, workers: query.value.workers };
      hooks.setPacing(pacing);
      return jsonReply(200, { latencyMs: pacing.latencyMs ?? 0, workers: pacing.workers ?? null });
    }
    case '/_control/limit': {
      const query = parseQuery(limitQuery, search);
      if (!query.ok) return jsonReply(400, { error: `limit: ${query.error}` });
      const perSecond = query.value.per_second === 0 ? undefined : query.value.per_second;
      hooks.setRateLimit(perSecond);
      return jsonReply(200, { perSecond: perSecond ?? null });
    }
    case '/_control/traffic':
      return jsonReply(200, hooks.traffic.report());
    case '/_control/traffic/reset':
      hooks.traffic.reset();
      return jsonReply(200, hooks.traffic.report());
    default:
      return jsonReply(200, { endpoints: CONTROL_ENDPOINTS });
  }
}
