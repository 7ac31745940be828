/** The commit message of a snapshot: counts in the subject, one line per record and per finding change in the body. Pure. */
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
  const body: string[] = [];
  for (const r of RESOURCE_NAMES) {
    const c = changes[r];
    for (const id of c.added) body.push(`+ ${r} ${named(c, id)}`);
    for (const id of c.removed) body.push(`- ${r} ${named(c, id)}`);
    for (const id of c.changed) {
      const paths = [...new Set((c.fields[id] ?? []).map((f) => f.path))];
      const shown = paths.slice(0, MAX_FIELDS_SHOWN).join(', ') + (paths.length > MAX_FIELDS_SHOWN ? `, … ${paths.length - MAX_FIELDS_SHOWN} more` : '');
      body.push(`~ ${r} ${named(c, id)}${shown ? `: ${shown}` : ''}`);
    }
  }
  const kept = body.length > max ? [...body.slice(0, max), `… and ${body.length - max} more`] : body;
  // Findings are few lines (one per field and code), so they are shown whole after the records.
  const findings = findingLines(changes);
  const sections = [kept, findings.length ? ['data-quality findings:', ...findings] : []].filter((s) => s.length).map((s) => s.join('\n'));
  return sections.length ? `${subject}\n\n${sections.join('\n\n')}\n` : `${subject}\n`;
}
