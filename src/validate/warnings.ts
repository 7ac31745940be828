/** A field-level deviation from the spec: counted and reported, fatal only with `--strict`. */
export interface Warning {
  resource: string;
  id: string;
  field: string;
  message: string;
}

/** One line per warning: `servers/12 memory_GB: expected number, received string`. */
export function formatWarning(warning: Warning): string {
  return `${warning.resource}/${warning.id}${warning.field ? ` ${warning.field}` : ''}: ${warning.message}`;
}

/** Shortens a value for a message, so one huge field cannot flood a log line. */
export function preview(value: unknown, max = 60): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Array.isArray(value) ? '[…]' : typeof value === 'object' ? '{…}' : String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
