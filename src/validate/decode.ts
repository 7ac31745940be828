/**
 * What decoding a body changed without a word: a repeated key (the last one wins), a number
 * beyond what JSON numbers carry (published as null), bytes that are not UTF-8 (published as
 * U+FFFD). Each becomes a finding, so a published value that differs from the one sent is known.
 */
import { isUtf8 } from 'node:buffer';
import { firstDuplicateKey } from '../json/duplicates.js';
import { fieldName } from '../spec/check.js';
import type { ResourceName } from '../spec/resources.js';
import type { Finding } from './findings.js';

/**
 * Counts object keys in `value` (all levels) and notes the paths of non-finite numbers. The path
 * is a stack of parts made into text only for such a number: every record passes through here.
 */
function walk(value: unknown, parts: (string | number)[], out: { keys: number; outOfRange: string[] }): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) out.outOfRange.push(fieldName(parts));
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    parts.push(0);
    for (const item of value) walk(item, parts, out);
    parts.pop();
    return;
  }
  for (const key of Object.keys(value)) {
    out.keys++;
    parts.push(key);
    walk((value as Record<string, unknown>)[key], parts, out);
    parts.pop();
  }
}

/**
 * The findings of one record's bytes as sent: `bytes` is the record (or the body holding it, with
 * `prefix` the path of the record inside it, e.g. `server`), `keys` the keys the text holds.
 */
export function decodingFindings(resource: ResourceName, id: string, bytes: Buffer, parsed: unknown, keys: number, prefix = ''): Finding[] {
  const findings: Finding[] = [];
  if (!isUtf8(bytes)) findings.push({ resource, id, field: '', code: 'invalid_utf8' });
  const seen = { keys: 0, outOfRange: [] as string[] };
  walk(parsed, [], seen);
  const strip = (path: string): string => (prefix && path.startsWith(prefix) ? path.slice(prefix.length).replace(/^\./, '') : path);
  for (const path of seen.outOfRange) findings.push({ resource, id, field: strip(path), code: 'out_of_range' });
  if (seen.keys !== keys) {
    const path = firstDuplicateKey(bytes.toString('utf8'));
    findings.push({ resource, id, field: path === undefined ? '' : strip(path), code: 'duplicate_key' });
  }
  return findings;
}
