/**
 * The settings as the library's users see them: plain types, written out so that the package's
 * declarations carry no schema library's types and say what each setting is. test/library/api.test.ts
 * holds each of them equal to what the schemas (schema.ts, the one source of defaults and checks)
 * accept and produce, so the two cannot drift.
 */

/** The `sync` section as given: every setting optional, defaults in schema.ts. */
export interface SyncSettingsInput {
  /** Requests in flight at most (default 16). */
  concurrency?: number;
  /** Adapt to the service's latency and overload answers (default true); false keeps `concurrency` in flight. */
  adaptive?: boolean;
  /** Requests started per second at most; 0: no cap (default). */
  maxRequestsPerSecond?: number;
  /** Findings not accepted by `accept` fail the sync (default false). */
  strict?: boolean;
  /** Fetch a single record only when it is new, its list item changed, a record it embeds changed, or it is due in the rolling refresh (default false). */
  incremental?: boolean;
  /** With `incremental`: every record is fetched again at least once every this many runs, about 1/N of them per run (default 7). */
  refreshRuns?: number;
  /** Per request, for headers and for a stalled body (default 30 000). */
  timeoutMs?: number;
  /** A whole request, body included (default 300 000). */
  requestDeadlineMs?: number;
  /** The whole sync (default 3 600 000). */
  deadlineMs?: number;
  /** Retries per request after the first attempt (default 5). */
  retries?: number;
  /** Exponential backoff with full jitter, from this (default 250)… */
  retryBaseMs?: number;
  /** …to this at most; Retry-After is honoured up to it (default 30 000). */
  retryMaxMs?: number;
  /** A larger response fails the sync (default 256 MiB). */
  maxBodyBytes?: number;
  /** A list with more records fails the sync before any record is fetched (default 1 000 000). */
  maxRecords?: number;
  /** The guard against publishing a catastrophe: refuse when a resource of at least `minPrevious` records (default 10) loses more than `maxShare` of them (default 0.5). */
  massRemoval?: { maxShare?: number; minPrevious?: number };
}

/** The `sync` section with every default applied. */
export type SyncSettings = Required<Omit<SyncSettingsInput, 'massRemoval'>> & { massRemoval: Required<NonNullable<SyncSettingsInput['massRemoval']>> };

/** Values to precompute for the filters whose values the data cannot reveal (config `filters`). */
export interface FilterValuesInput {
  servers?: { by_location?: string[]; by_maintainer?: string[]; by_serial_number?: string[]; by_arch?: string[]; by_fullmodel?: string[] };
}

/** What to remove or mask in one resource's records before anything is written: field paths such as `dbconn_user`, `extended_attributes.owner_team`, `instances[].config.password`. */
export interface ResourceRedactionInput {
  drop?: string[];
  mask?: string[];
  /** URL fields whose user and password are masked. */
  maskUrlCredentials?: string[];
}

/** The redaction policy (config `redact`), per resource. */
export interface RedactionInput {
  applications?: ResourceRedactionInput;
  databases?: ResourceRedactionInput;
  operating_systems?: ResourceRedactionInput;
  servers?: ResourceRedactionInput;
  appservers?: ResourceRedactionInput;
  /** Field names whose values are masked wherever they appear, in any string of any record (`{ fields: ["ipaddress", "ip"] }`). */
  values?: { fields?: string[] };
}

type Resolved<T> = { [K in keyof T]-?: Required<NonNullable<T[K]>> };

/** A config file's settings with every default applied, as loadConfig returns them. */
export interface MirrorConfig {
  baseUrl?: string | undefined;
  tokenFile?: string | undefined;
  out: string;
  /** The resources mirrored, in the service's order (default all five). */
  resources: ('applications' | 'databases' | 'operating_systems' | 'servers' | 'appservers')[];
  sync: SyncSettings;
  filters: Resolved<FilterValuesInput>;
  serve: { host: string; port: number; caseSensitive: boolean; tokenFile?: string | undefined };
  git: { commit: boolean; author?: string | undefined; messagePrefix: string };
  changes: { keep: number };
  schedule: { cron: string; timezone?: string | undefined; runAtStart: boolean };
  notify: { url?: string | undefined; onChange: boolean; timeoutMs: number };
  redact: { [R in Exclude<keyof RedactionInput, 'values'>]?: Required<ResourceRedactionInput> } & { values?: { fields: string[] } };
  quality: { accept: string[] };
  browser: { enabled: boolean };
  /** Object storage for `push` and `sync`/`schedule` after each publish (docs/object-storage.md). */
  push: { to?: string | undefined; endpoint?: string | undefined; pathStyle: boolean; cacheControl?: string | undefined; concurrency: number };
}
