/**
 * Applies a redaction policy to records and bodies: pure, copy-on-write (the input is never
 * changed), key order kept, and idempotent, so bodies published by an earlier run with the same
 * policy come out byte-identical.
 */
import { EMBEDDED, RESOURCES, type ResourceName } from '../spec/resources.js';
import { isPlainObject } from '../util/json-value.js';
import { hasRules, type RedactPolicy, type ResourcePolicy } from './policy.js';

/** What a masked value becomes. */
export const MASK = '[redacted]';

type Op = 'drop' | 'mask' | 'maskUrlCredentials';

interface Segment {
  key: string;
  /** `[]`: the value is an array and the rest of the path applies to each element. */
  each: boolean;
}

function parsePath(path: string): Segment[] {
  return path.split('.').map((part) => (part.endsWith('[]') ? { key: part.slice(0, -2), each: true } : { key: part, each: false }));
}


const CREDENTIAL_PARAMS = 'user|username|userid|uid|password|passwd|pass|pwd|secret|token';

/**
 * Masks the credentials in a connection URL: `scheme://user:pass@host`, `scheme:user/pass@host`
 * (Oracle thin style) and `user=`/`password=` style parameters after `?`, `&` or `;`.
 */
export function maskUrlCredentials(url: string): string {
  return url
    .replace(/^([A-Za-z][A-Za-z0-9+.-]*(?::[A-Za-z][A-Za-z0-9+.-]*)*:\/\/)[^/?#@]+@/, `$1${MASK}@`)
    .replace(/^([A-Za-z][A-Za-z0-9+.-]*(?::[A-Za-z][A-Za-z0-9+.-]*)*:)(?!\/\/)[^:/@]+\/[^@]*@/, `$1${MASK}@`)
    .replace(new RegExp(`([?&;])(${CREDENTIAL_PARAMS})=[^&;#]*`, 'gi'), `$1$2=${MASK}`);
}

function transform(value: unknown, op: Exclude<Op, 'drop'>): unknown {
  if (op === 'mask') return value === null || value === undefined ? value : MASK;
  return typeof value === 'string' ? maskUrlCredentials(value) : value;
}

function apply(value: unknown, segments: Segment[], op: Op): unknown {
  if (!isPlainObject(value)) return value;
  const [head, ...rest] = segments;
  if (!head || !Object.hasOwn(value, head.key)) return value;
  const out = { ...value };
  if (head.each) {
    const items = out[head.key];
    if (!Array.isArray(items)) return value;
    out[head.key] = items.map((item) => apply(item, rest, op));
  } else if (rest.length > 0) {
    out[head.key] = apply(out[head.key], rest, op);
  } else if (op === 'drop') {
    delete out[head.key];
  } else {
    out[head.key] = transform(out[head.key], op);
  }
  return out;
}

/**
 * One record with the resource's rules applied, and the rules of every resource whose records it
 * embeds (a database's `servers`) applied to those: a policy holds wherever its records appear.
 */
export function redactRecord(resource: ResourceName, record: unknown, policy: RedactPolicy | undefined): unknown {
  if (!policy) return record;
  let out = record;
  const rules = policy[resource];
  if (hasRules(rules)) for (const op of ['drop', 'mask', 'maskUrlCredentials'] as const) for (const path of rules[op]) out = apply(out, parsePath(path), op);
  for (const inner of EMBEDDED[resource] ?? []) {
    if (hasRules(policy[inner.resource])) out = within(out, parsePath(inner.path), (embedded) => redactRecord(inner.resource, embedded, policy));
  }
  return out;
}

/** Applies `change` to the values at `segments` (copy-on-write), stepping into arrays where a segment says `[]`. */
function within(value: unknown, segments: Segment[], change: (inner: unknown) => unknown): unknown {
  if (!isPlainObject(value)) return value;
  const [head, ...rest] = segments;
  if (!head || !Object.hasOwn(value, head.key)) return value;
  const inner = value[head.key];
  const next = (item: unknown): unknown => (rest.length ? within(item, rest, change) : change(item));
  if (head.each) return Array.isArray(inner) ? { ...value, [head.key]: inner.map(next) } : value;
  return { ...value, [head.key]: next(inner) };
}

/** The values a field path names in `value` (several where a segment says `[]`). */
export function valuesAt(value: unknown, path: string): unknown[] {
  let found: unknown[] = [value];
  for (const segment of parsePath(path)) {
    found = found.flatMap((v) => (isPlainObject(v) && Object.hasOwn(v, segment.key) ? [v[segment.key]] : []));
    if (segment.each) found = found.flatMap((v) => (Array.isArray(v) ? v : []));
  }
  return found;
}

/** Whether any rule applies to this resource's records, its own or an embedded resource's. */
export function redacts(resource: ResourceName, policy: RedactPolicy | undefined): boolean {
  return policy !== undefined && (hasRules(policy[resource]) || (EMBEDDED[resource] ?? []).some((inner) => hasRules(policy[inner.resource])));
}

/**
 * A list or single body (the service's envelope) with every record redacted; other keys of the
 * envelope are kept as they are.
 */
export function redactBody(resource: ResourceName, body: unknown, policy: RedactPolicy | undefined): unknown {
  if (!redacts(resource, policy) || !isPlainObject(body)) return body;
  const out = { ...body };
  if (Array.isArray(out[resource])) out[resource] = (out[resource] as unknown[]).map((r) => redactRecord(resource, r, policy));
  const singular = RESOURCES[resource].singular;
  if (isPlainObject(out[singular])) out[singular] = redactRecord(resource, out[singular], policy);
  return out;
}

const bare = (path: string): string[] => path.replace(/\[\d*\]/g, '').split('.').filter(Boolean);

function covers(rules: ResourcePolicy, field: string): boolean {
  const target = bare(field);
  if (target.length === 0) return false;
  return [...rules.drop, ...rules.mask, ...rules.maskUrlCredentials].some((path) => {
    const p = bare(path);
    const n = Math.min(p.length, target.length);
    return p.slice(0, n).join('.') === target.slice(0, n).join('.');
  });
}

/** Whether a field path (as findings name it, `instances[].version`) is covered by the resource's rules. */
export function isRedacted(resource: ResourceName, field: string, policy: RedactPolicy | undefined): boolean {
  const rules = policy?.[resource];
  return hasRules(rules) && covers(rules, field);
}
