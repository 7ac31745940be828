/**
 * Text from the service or from disk (ids, field names, file names) may hold control characters:
 * a newline forges a `warning:` line, an ESC sequence sets a terminal's title or hides text, a
 * bidi override reorders what is read. Every human-readable line escapes them, JSON-style.
 */

/** C0 and C1 controls, DEL, the line and paragraph separators, and the bidi embeddings, overrides and isolates. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` as one line a terminal shows as it is: every control character written as an escape. */
export function printable(text: string): string {
  return text.replace(UNSAFE, (c) => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `text` of several lines, each made printable: its own line breaks are kept, nothing else. */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}
