/** The one JSON encoding of every published file: two-space indent, UTF-8, final newline. */
export function encodeJson(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8');
}
