/** The one JSON encoding of every published file: two-space indent, UTF-8, final newline. */
export function encodeJson(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8');
}

/** Parses a published file's bytes; undefined when absent or not JSON. */
export function decodeJson(bytes: Buffer | undefined): unknown {
  if (!bytes) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Parses bytes as JSON checked by `schema`; undefined when they are not JSON or do not match. */
export function decodeJsonAs<T>(bytes: Buffer, schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } }): T | undefined {
  const value = decodeJson(bytes);
  if (value === undefined) return undefined;
  const result = schema.safeParse(value);
  return result.success ? result.data : undefined;
}
