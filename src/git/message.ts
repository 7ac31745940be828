/**
 * The commit message of a snapshot: counts in the subject; in the body, one line per resource
 * that changed, then one line per record (each resource gets its share of the lines, so a cascade
 * in one never hides another) and per finding change. Pure.
 */
import { findingLines, formatChangeLine, named } from '../diff/format.js';
import { hasChanges, type ChangeSet } from '../diff/engine.js';
import { RESOURCE_NAMES } from '../spec/resources.js';

/** Body lines before the rest is summed up as "… and N more". */
const MAX_BODY_LINES = 200;
const MAX_FIELDS_SHOWN = 8;

/** `inventory: servers +2 -1 ~5` and a bounded body of `+ servers 17` / `~ servers 5: memory_GB` lines. */
export function commitMessage(changes: ChangeSet, options: { prefix: string; initial: boolean; maxLines?: number }): string {
  const max = options.maxLines ?? MAX_BODY_LINES;
  const line = formatChangeLine(changes);
  const subject = options.initial ? `${options.prefix} first snapshot (${line})` : hasChanges(changes) ? `${options.prefix} ${line}` : `${options.prefix} snapshot files updated, no record changed`;
  // The first snapshot lists every record; its subject already says how many there are.
  if (options.initial) return `${subject}\n`;
  const details = RESOURCE_NAMES.map((r) => {
    const c = changes[r];
    const lines: string[] = [];
    for (const id of c.added) lines.push(`+ ${r} ${named(c, id)}`);
    for (const id of c.removed) lines.push(`- ${r} ${named(c, id)}`);
    for (const id of c.changed) {
      const paths = [...new Set((c.fields[id] ?? []).map((f) => f.path))];
      const shown = paths.slice(0, MAX_FIELDS_SHOWN).join(', ') + (paths.length > MAX_FIELDS_SHOWN ? `, … ${paths.length - MAX_FIELDS_SHOWN} more` : '');
      lines.push(`~ ${r} ${named(c, id)}${shown ? `: ${shown}` : ''}`);
    }
    return { resource: r, lines };
  }).filter((d) => d.lines.length > 0);
  const overview = details.length > 1 ? formatChangeLine(changes).split(', ') : [];
  const quotas = shareLines(details.map((d) => d.lines.length), max);
  const kept = details.flatMap((d, i) => (d.lines.length > quotas[i]! ? [...d.lines.slice(0, quotas[i]), `… and ${d.lines.length - quotas[i]!} more ${d.resource}`] : d.lines));
  // Findings are few lines (one per field and code), so they are shown whole after the records.
  const findings = findingLines(changes);
  const sections = [overview, kept, findings.length ? ['data-quality findings:', ...findings] : []].filter((s) => s.length).map((s) => s.join('\n'));
  return sections.length ? `${subject}\n\n${sections.join('\n\n')}\n` : `${subject}\n`;
}

/** Splits `max` lines among groups wanting `wanted` lines each: the small ones whole, the rest shared evenly. Pure. */
export function shareLines(wanted: readonly number[], max: number): number[] {
  const quotas = wanted.map(() => 0);
  let left = max;
  let open = wanted.map((_, i) => i);
  // Each round gives every group still wanting an even share of what is left; groups that need less take only that.
  while (open.length > 0 && left > 0) {
    const share = Math.max(1, Math.floor(left / open.length));
    const next: number[] = [];
    for (const i of open) {
      const give = Math.min(share, wanted[i]! - quotas[i]!, left);
      quotas[i]! += give;
      left -= give;
      if (quotas[i]! < wanted[i]!) next.push(i);
    }
    open = next;
  }
  return quotas;
}
