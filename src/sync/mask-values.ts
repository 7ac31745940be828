/**
 * Redaction by value over the whole new snapshot (config `redact.values.fields`): a value is only
 * known to be one to hide once some record has shown it in a named field, and the record or list
 * that shows it may come after one that holds it elsewhere. So it runs once everything is
 * fetched and before anything is built from the files: first every value of the named fields is
 * gathered from every list, view and record, then every file holding one is rewritten masked.
 */
import { decodeJson, encodeJson } from '../json/encode.js';
import type { NextSnapshot } from '../publish/next.js';
import type { FindingGroup } from '../validate/findings.js';
import { collectValues, maskValues, ValueSet } from '../redact/values.js';
import { META_DIR } from '../snapshot/paths.js';

/** What a pass did: the values gathered and the files rewritten, and the masking to apply to what is built from them. */
export interface ValueMaskReport {
  values: number;
  files: number;
  /** A value (a finding's, say) masked as the files were. */
  mask: (value: unknown) => unknown;
}

/** Masks the values of `fields` in every data file of `next`. */
export async function maskValuesInSnapshot(next: NextSnapshot, fields: readonly string[]): Promise<ValueMaskReport> {
  const named = new Set(fields);
  const paths = [...next.entries.paths()].filter((path) => path.endsWith('.json') && !path.startsWith(`${META_DIR}/`));
  const values = new ValueSet();
  for (const path of paths) collectValues(decodeJson(await next.read(path)), named, values);
  let files = 0;
  for (const path of paths) {
    const body = decodeJson(await next.read(path));
    const masked = maskValues(body, named, values);
    if (masked === body) continue;
    const i = next.entries.indexOf(path)!;
    await next.put(path, encodeJson(masked), { replace: true, validators: next.entries.validators(i) });
    files++;
  }
  return { values: values.size, files, mask: (value) => maskValues(value, named, values) };
}

/**
 * Findings quote values (a wrong type, a list item that differs from its record): those go into
 * the quality report, the change history, the page and the run record, so they are masked too.
 */
export function maskFindingValues(groups: FindingGroup[], mask: (value: unknown) => unknown): FindingGroup[] {
  return groups.map((group) => (group.values.size === 0 ? group : { ...group, values: new Map([...group.values].map(([id, value]) => [id, mask(value)])) }));
}
