/** Renderings of a change set: the one-line summary, the readable report, the JSON object. Pure. */
import { RESOURCE_NAMES } from '../spec/resources.js';
import { printable } from '../util/printable.js';
import { shorten } from '../util/secrets.js';
import { countChanges, type ChangeSet, type FieldChange, type ResourceChanges } from './engine.js';

const MAX_VALUE_CHARS = 80;

/** `servers +2 -1 ~5, appservers ~1`, or `none`. */
export function formatChangeLine(changes: ChangeSet): string {
  const counts = countChanges(changes);
  const parts = RESOURCE_NAMES.flatMap((r) => {
    const c = counts[r];
    const bits = [c.added ? `+${c.added}` : '', c.removed ? `-${c.removed}` : '', c.changed ? `~${c.changed}` : ''].filter(Boolean);
    return bits.length ? [`${r} ${bits.join(' ')}`] : [];
  });
  return parts.length ? parts.join(', ') : 'none';
}

/** A JSON value on one line, cut to a readable length. */
function shortValue(value: unknown, max = MAX_VALUE_CHARS): string {
  if (value === undefined) return '(absent)';
  const text = JSON.stringify(value) ?? String(value);
  return shorten(text, max);
}

/** `path: old → new`, values shortened. */
function formatFieldChange(change: FieldChange): string {
  return `${change.path}: ${shortValue(change.old)} → ${shortValue(change.new)}`;
}

/** Findings that appeared (`+`) or were fixed (`-`), one line per resource, field and code, a few ids each. */
export function findingLines(changes: ChangeSet): string[] {
  const lines: string[] = [];
  for (const r of RESOURCE_NAMES) {
    for (const [sign, deltas] of [['+', changes[r].findings.appeared], ['-', changes[r].findings.fixed]] as const) {
      for (const d of deltas) lines.push(`${sign} ${r}${d.field ? ` ${d.field}` : ''} ${d.code}: ${d.ids.length} record${d.ids.length === 1 ? '' : 's'} (${d.ids.slice(0, 5).join(', ')}${d.ids.length > 5 ? ', …' : ''})`);
    }
  }
  return lines;
}

/** A record as people read it in a change set: `17 (par-web-17)`, or the id alone when it has no name. */
export function named(changes: ResourceChanges, id: string): string {
  const name = Object.hasOwn(changes.names, id) ? changes.names[id] : undefined;
  return name === undefined || name === id ? id : `${id} (${shortValue(name, 60).replace(/^"|"$/g, '')})`;
}

/** The readable report of `diff`: counts first, then records, then their fields. */
export function formatReport(changes: ChangeSet, oldDir: string, newDir: string): string {
  const counts = countChanges(changes);
  const lines = [`changes from ${oldDir} to ${newDir}: ${formatChangeLine(changes)}`];
  const width = Math.max(...RESOURCE_NAMES.map((r) => r.length));
  for (const r of RESOURCE_NAMES) {
    const c = counts[r];
    lines.push(`  ${r.padEnd(width)}  ${String(c.added).padStart(6)} added ${String(c.removed).padStart(6)} removed ${String(c.changed).padStart(6)} changed`);
  }
  for (const r of RESOURCE_NAMES) {
    const c = changes[r];
    if (c.added.length + c.removed.length + c.changed.length === 0) continue;
    lines.push('', `${r}:`);
    for (const id of c.added) lines.push(`  + ${named(c, id)}`);
    for (const id of c.removed) lines.push(`  - ${named(c, id)}`);
    for (const id of c.changed) {
      lines.push(`  ~ ${named(c, id)}`);
      for (const field of c.fields[id] ?? []) lines.push(`      ${formatFieldChange(field)}`);
    }
  }
  const findings = findingLines(changes);
  if (findings.length) lines.push('', 'data-quality findings:', ...findings.map((line) => `  ${line}`));
  // Ids, names and values come from the service: each line stays one line.
  return `${lines.map(printable).join('\n')}\n`;
}

/** The contract's JSON object: per resource `added`, `removed`, `changed`, plus `fields` details. */
export function changeSetJson(changes: ChangeSet): Record<string, unknown> {
  return Object.fromEntries(RESOURCE_NAMES.map((r) => [r, { added: changes[r].added, removed: changes[r].removed, changed: changes[r].changed, fields: changes[r].fields, names: changes[r].names, findings: changes[r].findings }]));
}

/** The `changes:` line a sync prints about the snapshot it replaced. */
export function formatSyncChanges(changes: ChangeSet, initial: boolean): string {
  return initial ? `changes: first snapshot of this folder (${formatChangeLine(changes)})` : `changes: ${formatChangeLine(changes)}`;
}
