/**
 * The secrets this process holds (the API token, a serve token), so every message it produces can
 * be scrubbed of them whatever their source: a service or proxy may echo the token into a JSON key
 * or an error page, and that text then reaches retry lines, errors and webhooks.
 */

const secrets = new Set<string>();

/** Environment variables that hold a secret or name a file holding one: never passed to children. */
export const SECRET_ENV = ['INVENTORY_API_TOKEN', 'INVENTORY_API_TOKEN_FILE', 'MIRROR_API_TOKEN', 'MIRROR_API_TOKEN_FILE', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'] as const;

/** The AWS variables whose values are secrets (push reads them through the SDK's credential chain). */
export const AWS_SECRET_ENV = ['AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'] as const;

/** Remembers a secret; values too short to be one (under 4 characters) are ignored. */
export function registerSecret(value: string | undefined): void {
  if (value !== undefined && value.length >= 4) secrets.add(value);
  forms = undefined;
}

const HTML: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The forms a secret takes when a service or proxy echoes it: raw, URL-encoded, JSON-escaped, HTML-escaped. */
function formsOf(secret: string): Set<string> {
  const html = secret.replace(/[&<>"']/g, (c) => HTML[c]!);
  return new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1), html, html.replaceAll('&#39;', '&#x27;'), JSON.stringify(html).slice(1, -1)]);
}

/** `text` with every registered secret (raw, URL-encoded, JSON- or HTML-escaped) replaced by `[secret]`. */
export function scrub(text: string): string {
  let out = text;
  for (const secret of secrets) {
    for (const form of formsOf(secret)) {
      if (out.includes(form)) out = out.split(form).join('[secret]');
    }
  }
  return out;
}

/**
 * `text` scrubbed, then cut to `max` characters with an ellipsis: cut first, a secret straddling
 * the cut would survive in part and no longer match.
 */
export function shorten(text: string, max: number): string {
  const clean = scrub(text);
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/**
 * The forms the registered secrets take inside JSON text (raw, and JSON-escaped), made once. Only
 * secrets of MIN_DATA_SECRET characters or more: a short one may occur in honest data by chance,
 * and finding it there refuses a whole snapshot.
 */
let forms: Buffer[] | undefined;
const MIN_DATA_SECRET = 12;
function jsonForms(): Buffer[] {
  forms ??= [...secrets].filter((secret) => secret.length >= MIN_DATA_SECRET).flatMap((secret) => [...new Set([secret, JSON.stringify(secret).slice(1, -1)])].map((form) => Buffer.from(form)));
  return forms;
}

/** The longest form a registered secret takes inside JSON text, in bytes (0 when none is registered). */
export function longestSecret(): number {
  return Math.max(0, ...jsonForms().map((form) => form.length));
}

/** Whether `bytes` (JSON text) hold a registered secret. */
export function holdsSecret(bytes: Buffer): boolean {
  return jsonForms().some((form) => bytes.includes(form));
}

/** A URL as it may appear in messages and files: without credentials, query or fragment, where secrets travel. */
export function safeUrl(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  parsed.search = '';
  parsed.hash = '';
  return parsed.toString();
}

/** A copy of `value` (plain JSON data) with every string scrubbed. */
export function scrubValue<T>(value: T): T {
  if (secrets.size === 0) return value;
  return JSON.parse(scrub(JSON.stringify(value))) as T;
}

/**
 * The environment of a child process (git and its hooks, nginx): `env` (default ours) without the
 * secrets, plus `extra`. A child runs code we do not control, and what it gets it may log or send.
 */
export function childEnv(extra: Record<string, string> = {}, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out = { ...env, ...extra };
  for (const name of SECRET_ENV) delete out[name];
  return out;
}
