/**
 * The order of record ids everywhere the mirror lists them (change sets, findings, the simulated
 * service's lists): numeric ids by value, then every other id by UTF-16 code units. A total order,
 * so `9` comes before `10` and every id has one place.
 */

const NUMERIC_ID = /^(0|[1-9]\d*)$/;

export function compareIds(a: string, b: string): number {
  const an = NUMERIC_ID.test(a);
  const bn = NUMERIC_ID.test(b);
  if (an && bn) return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  if (an !== bn) return an ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
