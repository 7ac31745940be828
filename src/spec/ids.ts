/**
 * The order of record ids everywhere the mirror lists them (change sets, findings, the simulated
 * service's lists): numeric ids by value, then every other id by UTF-16 code units. A total order,
 * so `9` comes before `10` and every id has one place.
 */

/** Whether an id is a canonical decimal number; a character loop, as list ordering runs this millions of times at scale. */
export function isNumericId(id: string): boolean {
  const first = id.charCodeAt(0);
  if (id.length === 0 || first < 48 || first > 57 || (first === 48 && id.length > 1)) return false;
  for (let i = 1; i < id.length; i++) {
    const code = id.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

/** Sorts ids into that order (a comparator for `Array.prototype.sort`). */
export function compareIds(a: string, b: string): number {
  const an = isNumericId(a);
  const bn = isNumericId(b);
  if (an && bn) return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  if (an !== bn) return an ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
