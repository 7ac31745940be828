/**
 * The redaction policy of the config (`redact`): per resource, field paths to drop, to mask, or
 * whose URL credentials to mask. A path is dot-separated from a field of the resource; `[]`
 * after a segment steps into every element of an array (`instances[].config.password`).
 */
import { z } from 'zod';
import { RESOURCE_NAMES, RESOURCES, type ResourceName } from '../spec/resources.js';
import { SCHEMAS } from '../spec/schemas.js';
import { encodeJson } from '../json/encode.js';

const REFERENCE_FIELDS: Partial<Record<ResourceName, string[]>> = { appservers: ['server_id', 'server_name'], databases: ['server_names'] };

const PATH = /^[A-Za-z_][A-Za-z0-9_]*(\[\])?(\.[^.[\]\s]+(\[\])?)*$/;

/** The fields the spec lists for a resource (list items and single view together). */
function specFields(resource: ResourceName): string[] {
  const shape = (schema: z.ZodType): string[] => Object.keys((schema as unknown as z.ZodObject).shape ?? {});
  return [...new Set([...shape(SCHEMAS[resource].list), ...shape(SCHEMAS[resource].single)])];
}

/** Fields the mirror itself relies on (ids for file names, filter fields for `serve`): never redacted. */
function protectedFields(resource: ResourceName): Map<string, string> {
  const reasons = new Map([['id', 'it names the record\'s file']]);
  for (const filter of RESOURCES[resource].filters) {
    if (filter.values.kind === 'substring' || filter.values.kind === 'field') reasons.set(filter.values.field, `serve answers the filter ${filter.param} from it`);
  }
  // References tie records together: the cross-checks and the offline page follow them.
  for (const field of REFERENCE_FIELDS[resource] ?? []) reasons.set(field, 'it refers to another record (the cross-checks and the offline page follow it)');
  return reasons;
}

const pathList = z.array(z.string().regex(PATH, 'expected a field path like "dbconn_user", "extended_attributes.owner_team" or "instances[].config.password"').refine((p) => !p.endsWith('[]'), 'a path names a field, it cannot end in "[]"')).default([]);

const resourcePolicy = z.strictObject({ drop: pathList, mask: pathList, maskUrlCredentials: pathList });

export type ResourcePolicy = z.infer<typeof resourcePolicy>;

/**
 * `values.fields`: field names (at any depth of any resource's records) whose values are masked
 * wherever they appear, in any string of any record, list or view (see value-mask.ts).
 */
const valuesPolicy = z.strictObject({
  fields: z
    .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a field name like "ipaddress"').refine((f) => f !== 'id', '"id" cannot be redacted: it names the record\'s file'))
    .default([]),
});

export type ValuesPolicy = z.infer<typeof valuesPolicy>;
export type RedactPolicy = Partial<Record<ResourceName, ResourcePolicy>> & { values?: ValuesPolicy };

/**
 * The config section: strict; a path may name any field, the spec's or one only the data carries
 * (the real service's list items hold the IP as `ipaddress`), but not one the mirror relies on.
 */
export const redactSchema = z
  .strictObject({ ...(Object.fromEntries(RESOURCE_NAMES.map((r) => [r, resourcePolicy.optional()])) as Record<ResourceName, z.ZodOptional<typeof resourcePolicy>>), values: valuesPolicy.optional() })
  .superRefine((policy, ctx) => {
    for (const resource of RESOURCE_NAMES) {
      const rules = policy[resource];
      if (!rules) continue;
      const guarded = protectedFields(resource);
      const seen = new Map<string, string>();
      for (const op of ['drop', 'mask', 'maskUrlCredentials'] as const) {
        rules[op].forEach((path, i) => {
          const first = path.split(/[.[]/)[0]!;
          const at = [resource, op, i];
          if (guarded.has(first) && op !== 'maskUrlCredentials') ctx.addIssue({ code: 'custom', path: at, message: `"${first}" cannot be redacted: ${guarded.get(first)}` });
          const other = seen.get(path);
          if (other) ctx.addIssue({ code: 'custom', path: at, message: `"${path}" is already in ${resource}.${other}; name each path once` });
          seen.set(path, op);
        });
      }
    }
  });

/**
 * A warning for each path whose field the spec does not list: it is redacted wherever the service
 * sends it, and a misspelt one redacts nothing, so the run says so.
 */
export function undocumentedFields(policy: RedactPolicy | undefined): string[] {
  const warnings: string[] = [];
  for (const resource of RESOURCE_NAMES) {
    const rules = policy?.[resource];
    if (!rules) continue;
    const fields = specFields(resource);
    for (const op of ['drop', 'mask', 'maskUrlCredentials'] as const) {
      rules[op].forEach((path, i) => {
        const first = path.split(/[.[]/)[0]!;
        if (!fields.includes(first)) warnings.push(`redact.${resource}.${op}[${i}]: "${first}" is not a field the spec lists for ${resource} (${fields.join(', ')}); it is redacted wherever the service sends it: check its spelling if nothing is redacted`);
      });
    }
  }
  return warnings;
}

/** Whether the policy changes anything at all. */
export function isRedacting(policy: RedactPolicy | undefined): policy is RedactPolicy {
  return policy !== undefined && (RESOURCE_NAMES.some((r) => hasRules(policy[r])) || valueFields(policy).length > 0);
}

/** The field names whose values are masked wherever they appear (`values.fields`); none when the policy has no such rule. */
export function valueFields(policy: RedactPolicy | undefined): string[] {
  return policy?.values?.fields ?? [];
}

/** Whether a resource's rules change anything. */
export function hasRules(rules: ResourcePolicy | undefined): rules is ResourcePolicy {
  return rules !== undefined && rules.drop.length + rules.mask.length + rules.maskUrlCredentials.length > 0;
}

/** The policy as recorded in the snapshot: resources in spec order, paths sorted, empty lists left out. */
function describePolicy(policy: RedactPolicy): Record<string, Partial<ResourcePolicy> | ValuesPolicy> {
  const out: Record<string, Partial<ResourcePolicy> | ValuesPolicy> = {};
  for (const resource of RESOURCE_NAMES) {
    const rules = policy[resource];
    if (!hasRules(rules)) continue;
    const entry: Partial<ResourcePolicy> = {};
    for (const op of ['drop', 'mask', 'maskUrlCredentials'] as const) if (rules[op].length) entry[op] = [...rules[op]].sort();
    out[resource] = entry;
  }
  if (valueFields(policy).length) out.values = { fields: [...valueFields(policy)].sort() };
  return out;
}

/** `_meta/redaction.json`: what was removed or masked (never the values), so a reader knows the copy is redacted. */
export function encodeRedaction(policy: RedactPolicy): Buffer {
  return encodeJson({ format: 1, redacted: describePolicy(policy) });
}
