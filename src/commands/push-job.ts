/**
 * A push as `push`, `sync --push` and `schedule` describe it: the config's `push` section with the
 * flags laid over it, turned once into a typed job; and its run, which loads the object-storage
 * client only when a push happens (a sync without one never loads the AWS SDK).
 */
import type { Output } from '../cli/output.js';
import type { PushSettings } from '../config/schema.js';
import { UsageError } from '../errors.js';
import { parseLocation, type Location } from '../push/location.js';
import type { PushResult } from '../push/run.js';

export interface PushJob {
  location: Location;
  endpoint: string | undefined;
  pathStyle: boolean;
  cacheControl: string | undefined;
  concurrency: number;
}

/** The flags that override the config's `push` section (each optional). */
export interface PushFlags {
  to?: string | undefined;
  endpoint?: string | undefined;
  pathStyle?: boolean | undefined;
  concurrency?: number | undefined;
}

/** The job, or undefined when no destination is set; `toFlag` names the flag for messages. */
export function pushJob(settings: PushSettings, flags: PushFlags, toFlag: string): PushJob | undefined {
  const to = flags.to ?? settings.to;
  if (to === undefined) return undefined;
  const endpoint = flags.endpoint ?? settings.endpoint;
  if (endpoint !== undefined && !/^https?:\/\/[^/]/.test(endpoint)) throw new UsageError(`--endpoint: expected an http:// or https:// URL, got ${JSON.stringify(endpoint)}`);
  return {
    location: parseLocation(to, flags.to === undefined ? 'push.to' : toFlag),
    endpoint,
    pathStyle: flags.pathStyle === true || settings.pathStyle,
    cacheControl: settings.cacheControl,
    concurrency: flags.concurrency ?? settings.concurrency,
  };
}

/** Pushes `dir` (whose lock the caller holds) as the job says; `full`: compare by listing whatever the bucket's manifest says. */
export async function runPush(job: PushJob, dir: string, output: Output, dryRun = false, full = false): Promise<PushResult> {
  const { pushSnapshot } = await import('../push/run.js');
  return pushSnapshot({
    dir,
    location: job.location,
    store: { endpoint: job.endpoint, pathStyle: job.pathStyle, concurrency: job.concurrency },
    cacheControl: job.cacheControl,
    dryRun,
    full,
    log: output,
  });
}

/** The one line a push reports. */
export function describePush(result: PushResult): string {
  const mib = (result.uploadedBytes / (1024 * 1024)).toFixed(1);
  const verb = result.dryRun ? 'would upload' : 'uploaded';
  return `push: ${result.target} ${verb} ${result.uploaded} files (${mib} MiB), ${result.dryRun ? 'would delete' : 'deleted'} ${result.deleted}, ${result.unchanged} unchanged, ${result.requests} requests (${result.listings} of them listing)`;
}
