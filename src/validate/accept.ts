/**
 * Accepted deviations (`quality.accept` in the config): findings a team knows about and lives
 * with. They are still counted and published, never printed as warnings, and `--strict` does not
 * fail on them. A pattern is `resource.field:code`, or `resource:code` for every field; `*`
 * matches anything within a part (`appservers.dbconn_*:null`).
 */
import { z } from 'zod';
import { RESOURCE_NAMES, isResourceName, type ResourceName } from '../spec/resources.js';
import { SCHEMAS } from '../spec/schemas.js';
import { FINDING_CODES, type FindingGroup } from './findings.js';

const PATTERN = /^([a-z_*]+)(?:\.([^:\s]+))?:([a-z_*]+)$/;

function glob(part: string): RegExp {
  return new RegExp(`^${part.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

/** The top-level fields the API document gives a resource, in either view. */
function documentedFields(resource: ResourceName): string[] {
  const { list, single } = SCHEMAS[resource] as unknown as { list: z.ZodObject; single: z.ZodObject };
  return [...new Set([...Object.keys(list.shape), ...Object.keys(single.shape)])];
}

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/**
 * A field the resource does not document but one it does is a typo away from: the pattern would
 * accept nothing, silently. (A field far from every documented one may be one the service adds.)
 */
function misspelledField(resource: string, field: string): string | undefined {
  if (!isResourceName(resource) || field.includes('*')) return undefined;
  const top = /^[^.[]+/.exec(field)?.[0] ?? field;
  const fields = documentedFields(resource);
  if (fields.includes(top)) return undefined;
  const near = fields.map((name) => ({ name, d: distance(top, name) })).filter(({ d }) => d <= 2).sort((a, b) => a.d - b.d)[0];
  return near && `${near.name}${field.slice(top.length)}`;
}

/** One `quality.accept` entry, checked: the resource and code must exist (or be `*` patterns). */
export const acceptPatternSchema = z.string().superRefine((text, ctx) => {
  const match = PATTERN.exec(text);
  if (!match) return void ctx.addIssue({ code: 'custom', message: `${JSON.stringify(text)} is not a pattern like "applications.description:null" or "servers:view_mismatch"` });
  const [, resource, field, code] = match;
  if (!RESOURCE_NAMES.some((r) => glob(resource!).test(r))) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(text)}: no resource matches "${resource}" (resources: ${RESOURCE_NAMES.join(', ')})` });
  const suggestion = field === undefined ? undefined : misspelledField(resource!, field);
  if (suggestion) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(text)}: ${resource} has no field "${field}"; did you mean "${resource}.${suggestion}:${code}"? (fields: ${documentedFields(resource as ResourceName).join(', ')})` });
  if (!FINDING_CODES.some((c) => glob(code!).test(c))) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(text)}: no finding code matches "${code}" (codes: ${FINDING_CODES.join(', ')})` });
});

/** Whether a group of findings is accepted by one of the patterns. */
export function acceptor(patterns: readonly string[]): (group: Pick<FindingGroup, 'resource' | 'field' | 'code'>) => boolean {
  const rules = patterns.map((text) => {
    const [, resource, field, code] = PATTERN.exec(text)!;
    return { resource: glob(resource!), field: field === undefined ? undefined : glob(field), code: glob(code!) };
  });
  return (group) => rules.some((rule) => rule.resource.test(group.resource) && rule.code.test(group.code) && (rule.field === undefined || rule.field.test(group.field)));
}

/** The pattern that accepts exactly this group. */
export function patternFor(group: Pick<FindingGroup, 'resource' | 'field' | 'code'>): string {
  return group.field ? `${group.resource}.${group.field}:${group.code}` : `${group.resource}:${group.code}`;
}
