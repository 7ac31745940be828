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

/**
 * Sorts ids in place into compareIds order; returns them. When every id is a number of up to 15
 * digits (exact as a double), as most services' are, they are sorted as numbers in a typed array:
 * with the comparator, the quarter of a million findings of a 200 000-server snapshot took about
 * four million calls.
 */
export function sortIds(ids: string[]): string[] {
  const values = new Float64Array(ids.length);
  let sorted = true;
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    if (id.length > 15 || !isNumericId(id)) return ids.sort(compareIds);
    values[k] = Number(id);
    if (k > 0 && values[k - 1]! > values[k]!) sorted = false;
  }
  if (sorted) return ids;
  values.sort();
  for (let k = 0; k < ids.length; k++) ids[k] = String(values[k]);
  return ids;
}
