/**
 * The configuration file's schema: strict (an unknown key is an error naming it), with every
 * default here and nowhere else. `config/mirror.example.json` shows the same settings.
 */
import { z } from 'zod';

const values = z.array(z.string().min(1)).default([]);

export const syncSchema = z.strictObject({
  concurrency: z.int().min(1).max(256).default(16),
  strict: z.boolean().default(false),
  timeoutMs: z.int().min(100).default(30_000),
  deadlineMs: z.int().min(1_000).default(3_600_000),
  retries: z.int().min(0).max(20).default(5),
  retryBaseMs: z.int().min(1).default(250),
  retryMaxMs: z.int().min(1).default(30_000),
  maxBodyBytes: z.int().min(1_024).default(256 * 1024 * 1024),
  massRemoval: z
    .strictObject({
      maxShare: z.number().min(0).max(1).default(0.5),
      minPrevious: z.int().min(0).default(10),
    })
    .prefault({}),
});

export const filtersSchema = z.strictObject({
  servers: z
    .strictObject({
      by_location: values,
      by_maintainer: values,
      by_serial_number: values,
      by_arch: values,
      by_fullmodel: values,
    })
    .prefault({}),
});

export const configSchema = z.strictObject({
  baseUrl: z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' }).optional(),
  tokenFile: z.string().min(1).optional(),
  out: z.string().min(1).default('output'),
  sync: syncSchema.prefault({}),
  filters: filtersSchema.prefault({}),
});

export type Config = z.infer<typeof configSchema>;
export type SyncSettings = Config['sync'];
export type FilterSettings = Config['filters'];
