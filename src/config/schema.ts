/**
 * The configuration file's schema: strict (an unknown key is an error naming it), with every
 * default here and nowhere else. `config/mirror.example.json` shows the same settings.
 */
import { z } from 'zod';
import { redactSchema } from '../redact/policy.js';
import { configuredFilters, isResourceName, RESOURCE_NAMES, type ConfiguredResource, type ResourceName } from '../spec/resources.js';
import { acceptPatternSchema } from '../validate/accept.js';

const values = z.array(z.string().min(1)).default([]);

export const syncSchema = z.strictObject({
  concurrency: z.int().min(1).max(256).default(16),
  adaptive: z.boolean().default(true),
  maxRequestsPerSecond: z.number().min(0).default(0),
  strict: z.boolean().default(false),
  incremental: z.boolean().default(false),
  refreshRuns: z.int().min(1).max(10_000).default(7),
  timeoutMs: z.int().min(100).default(30_000),
  requestDeadlineMs: z.int().min(1_000).default(300_000),
  deadlineMs: z.int().min(1_000).default(3_600_000),
  retries: z.int().min(0).max(20).default(5),
  retryBaseMs: z.int().min(1).default(250),
  retryMaxMs: z.int().min(1).default(30_000),
  maxBodyBytes: z.int().min(1_024).default(256 * 1024 * 1024),
  maxRecords: z.int().min(1).default(1_000_000),
  massRemoval: z
    .strictObject({
      maxShare: z.number().min(0).max(1).default(0.5),
      minPrevious: z.int().min(0).default(10),
    })
    .prefault({}),
});

/** One resource's `config` filters (spec/resources.ts names them): the values to precompute for each. */
const configuredValues = <P extends string>(filters: readonly P[]) => z.strictObject(Object.fromEntries(filters.map((param) => [param, values])) as Record<P, typeof values>);

export const filtersSchema = z.strictObject({
  servers: configuredValues(configuredFilters('servers')).prefault({}),
} satisfies Record<ConfiguredResource, unknown>);

const gitSchema = z.strictObject({
  commit: z.boolean().default(false),
  author: z.string().regex(/^[^<>\n]+ <[^<>\n]+>$/, 'expected "Name <email>"').optional(),
  messagePrefix: z.string().min(1).default('inventory:'),
});

const changesSchema = z.strictObject({
  keep: z.int().min(1).max(10_000).default(50),
});

const scheduleSchema = z.strictObject({
  cron: z.string().min(1).default('0 2 * * *'),
  timezone: z.string().min(1).optional(),
  runAtStart: z.boolean().default(false),
});

const notifySchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' }).optional(),
  onChange: z.boolean().default(false),
  timeoutMs: z.int().min(100).default(10_000),
});

const serveSchema = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.int().min(0).max(65_535).default(8080),
  caseSensitive: z.boolean().default(false),
  tokenFile: z.string().min(1).optional(),
});

/** Where `push` (and `sync`/`schedule` after each publish) copies the snapshot; credentials never here. */
const pushSchema = z.strictObject({
  to: z.string().regex(/^s3:\/\/[^/]+/, 'expected s3://BUCKET or s3://BUCKET/PREFIX').optional(),
  endpoint: z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' }).optional(),
  pathStyle: z.boolean().default(false),
  cacheControl: z.string().min(1).regex(/^[\x20-\x7e]+$/, 'expected printable ASCII, e.g. "public, max-age=300"').optional(),
  concurrency: z.int().min(1).max(256).default(16),
});

/**
 * The resources to mirror (default all five): a name the service does not have is an error listing
 * the valid ones; kept in the spec's order, without repeats, so the order given changes nothing.
 */
export const resourcesSchema = z
  .array(z.string().refine(isResourceName, { error: (issue) => `unknown resource ${JSON.stringify(issue.input)}; the resources are ${RESOURCE_NAMES.join(', ')}` }))
  .min(1, `name at least one resource: ${RESOURCE_NAMES.join(', ')}`)
  .default([...RESOURCE_NAMES])
  .transform((names): ResourceName[] => RESOURCE_NAMES.filter((r) => names.includes(r)));

export const configSchema = z.strictObject({
  baseUrl: z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' }).optional(),
  tokenFile: z.string().min(1).optional(),
  out: z.string().min(1).default('output'),
  /** Mirror only these resources (see resourcesSchema). */
  resources: resourcesSchema,
  sync: syncSchema.prefault({}),
  filters: filtersSchema.prefault({}),
  serve: serveSchema.prefault({}),
  git: gitSchema.prefault({}),
  changes: changesSchema.prefault({}),
  schedule: scheduleSchema.prefault({}),
  notify: notifySchema.prefault({}),
  /** Fields removed or masked before anything is written (see src/redact/policy.ts). */
  redact: redactSchema.prefault({}),
  /** Accepted deviations: findings counted and published but never warned about (see src/validate/accept.ts). */
  quality: z.strictObject({ accept: z.array(acceptPatternSchema).default([]) }).prefault({}),
  /** The offline browser page (index.html + _browser/) written into the snapshot. */
  browser: z.strictObject({ enabled: z.boolean().default(false) }).prefault({}),
  push: pushSchema.prefault({}),
});

export type Config = z.infer<typeof configSchema>;
export type SyncSettings = Config['sync'];
export type FilterSettings = Config['filters'];
export type NotifySettings = Config['notify'];
export type PushSettings = Config['push'];
