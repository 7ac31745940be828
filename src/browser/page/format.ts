/** How values read on the page (pure): one notation for null, labels, links, times. */

/** The one way the page writes a missing value. */
export const NULL_TEXT = 'null';

/** A value as text: lists joined, null and undefined empty. */
export function fmt(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(fmt).join(', ');
  return String(v);
}

/** A value as the page shows it: null as NULL_TEXT, booleans as yes / no. */
export function shown(v: unknown): string {
  if (v === null || v === undefined) return NULL_TEXT;
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return fmt(v);
}

/** A resource's name for people: `operating_systems` → `operating systems`. */
export const label = (r: string): string => r.replace(/_/g, ' ');

// Short headings for long field names, so the default columns fit a laptop screen.
const LABELS = new Map<string, string>([
  ['operating_system', 'OS'],
  ['processor_system_count', 'CPUs'],
  ['memory_GB', 'memory GB'],
  ['hypervisor_name', 'hypervisor'],
  ['processor_frequency_GHz', 'GHz'],
  ['location.site', 'site'],
  ['location.room', 'room'],
  ['serial_number', 'serial'],
  ['hardware.manufacturer', 'manufacturer'],
  ['hardware.model', 'model'],
  ['runtime_version', 'runtime'],
  ['appserver_version', 'appserver version'],
  ['server_name', 'server'],
  ['_changed', 'changed in the last sync'],
]);

/** A column's heading. */
export const colLabel = (c: string): string => LABELS.get(c) ?? c.replace(/_/g, ' ');

/** The hash of a record's page. */
export const href = (r: string, id: string): string => `#/${r}/${encodeURIComponent(id)}`;

/** The hash of a table view with its parameters. */
export function hashOf(r: string, params: URLSearchParams): string {
  const s = params.toString();
  return `#/${r}${s ? `?${s}` : ''}`;
}

/** A time in the reader's local form; the text as it is when it is no time. */
export function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** Whether a string is an ISO date-time, shown in local time with the ISO value on hover. */
export const isIsoTime = (v: unknown): v is string => typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/.test(v);

/**
 * The address of a record's file in the snapshot, for ids that the snapshot stores as they are;
 * null for the others, whose file names (percent-encoded, cut and hashed when long) only the sync computes.
 */
export function rawHref(r: string, id: string): string | null {
  return /^[A-Za-z0-9._~-]+$/.test(id) && id !== '.' && id !== '..' ? `${r}/${id}.json` : null;
}
