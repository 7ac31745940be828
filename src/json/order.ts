/**
 * The order in which JSON.parse (and so encodeJson) holds an object's keys: keys that are array
 * indexes first, ascending, then the others as sent. A body streamed member by member is written
 * in this order, so it comes out as the whole body parsed and encoded would.
 */

const INDEX = /^(?:0|[1-9]\d{0,9})$/;

/** Whether JavaScript treats `key` as an array index (and so orders it first). */
function isIndexKey(key: string): boolean {
  return INDEX.test(key) && Number(key) < 2 ** 32 - 1;
}

/** `keys` in JavaScript's own-property order. */
function jsKeyOrder(keys: readonly string[]): string[] {
  const indexes = keys.filter(isIndexKey).sort((a, b) => Number(a) - Number(b));
  return [...indexes, ...keys.filter((key) => !isIndexKey(key))];
}

/** Members of an envelope (key and JSON bytes) parsed, in the order a whole parse would hold them. */
export function parsedInOrder(members: readonly { key: string; bytes: Buffer }[]): [string, unknown][] {
  const values = new Map(members.map((m) => [m.key, JSON.parse(m.bytes.toString('utf8')) as unknown]));
  return jsKeyOrder([...values.keys()]).map((key) => [key, values.get(key)]);
}
