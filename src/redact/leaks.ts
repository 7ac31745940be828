/**
 * The check that a field rule did not leave its value behind: a server's IP masked in `ip` may
 * still sit in `ipaddress`, a URL or a note of the same record. Pure per record; the counts are
 * kept per resource and rule, and said once per run.
 */
import type { ResourceName } from '../spec/resources.js';
import { isPlainObject } from '../util/json-value.js';
import { hasRules, valueFields, type RedactPolicy } from './policy.js';
import { valuesAt } from './redact.js';
import { MIN_VALUE_LENGTH, ValueSet } from './values.js';

function strings(value: unknown, into: string[]): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, into);
  else if (isPlainObject(value)) for (const inner of Object.values(value)) strings(inner, into);
  return into;
}

/**
 * The `drop` and `mask` paths of the resource's rules whose value in `record` (as the service sent
 * it) still appears in a string of `redacted` (as it is published). Values shorter than
 * MIN_VALUE_LENGTH are not looked for: they occur in honest data by chance.
 */
export function leakedPaths(resource: ResourceName, record: unknown, redacted: unknown, policy: RedactPolicy | undefined): string[] {
  const rules = policy?.[resource];
  if (!hasRules(rules)) return [];
  let kept: string[] | undefined;
  const leaked: string[] = [];
  for (const path of [...rules.drop, ...rules.mask]) {
    // Masked wherever it appears anyway, once everything is fetched (values.ts).
    if (valueFields(policy).includes(path.split(/[.[\]]+/).filter(Boolean).pop()!)) continue;
    const values = new ValueSet();
    for (const value of valuesAt(record, path)) if (typeof value === 'string' && value.length >= MIN_VALUE_LENGTH) values.add(value);
    if (values.size === 0) continue;
    kept ??= strings(redacted, []);
    if (kept.some((text) => values.mask(text) !== text)) leaked.push(path);
  }
  return leaked;
}

/** Records whose redacted value still appears elsewhere in them, per resource and rule path. */
export class RedactionLeaks {
  readonly #ids = new Map<string, { resource: ResourceName; path: string; ids: Set<string> }>();

  add(resource: ResourceName, paths: readonly string[], id: string): void {
    for (const path of paths) {
      const key = `${resource}\u0000${path}`;
      let entry = this.#ids.get(key);
      if (!entry) this.#ids.set(key, (entry = { resource, path, ids: new Set() }));
      entry.ids.add(id);
    }
  }

  /** One line per resource and rule path that left its value behind. */
  warnings(policy: RedactPolicy | undefined): string[] {
    return [...this.#ids.values()].map(({ resource, path, ids }) => {
      const op = policy?.[resource]?.drop.includes(path) ? 'drop' : 'mask';
      const n = ids.size;
      return `redact.${resource}.${op} "${path}": its value still appears in another field of ${n} ${resource} record${n === 1 ? '' : 's'}; name that field too, or add "${path.split(/[.[\]]+/).filter(Boolean).pop()}" to redact.values.fields to mask the value wherever it appears`;
    });
  }
}
