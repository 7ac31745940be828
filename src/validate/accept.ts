/**
 * Accepted deviations (`quality.accept` in the config): findings a team knows about and lives
 * with. They are still counted and published, never printed as warnings, and `--strict` does not
 * fail on them. A pattern is `resource.field:code`, or `resource:code` for every field; `*`
 * matches anything within a part (`appservers.dbconn_*:null`).
 */
import { z } from 'zod';
import { RESOURCE_NAMES } from '../spec/resources.js';
import { FINDING_CODES, type FindingGroup } from './findings.js';

const PATTERN = /^([a-z_*]+)(?:\.([^:\s]+))?:([a-z_*]+)$/;

function glob(part: string): RegExp {
  return new RegExp(`^${part.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

/** One `quality.accept` entry, checked: the resource and code must exist (or be `*` patterns). */
export const acceptPatternSchema = z.string().superRefine((text, ctx) => {
  const match = PATTERN.exec(text);
  if (!match) return void ctx.addIssue({ code: 'custom', message: `${JSON.stringify(text)} is not a pattern like "applications.description:null" or "servers:view_mismatch"` });
  const [, resource, , code] = match;
  if (!RESOURCE_NAMES.some((r) => glob(resource!).test(r))) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(text)}: no resource matches "${resource}" (resources: ${RESOURCE_NAMES.join(', ')})` });
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
