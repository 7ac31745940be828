/** `push --dir DIR --to s3://BUCKET[/PREFIX]`: copy the published snapshot into object storage. */
import { CONFIG_OPTION, DIR_OPTION, intFlag, OUTPUT_OPTIONS, outputFolder, outputOf, stringFlag, type CommandDefinition } from '../cli/command.js';
import { loadConfig } from '../config/load.js';
import { UsageError } from '../errors.js';
import { recover } from '../publish/journal.js';
import { acquireLock } from '../publish/lock.js';
import { requireFolder } from '../publish/output.js';
import { describePush, pushJob, runPush } from './push-job.js';

const MAX_LINES = 100;

/** A dry run's plan, a line per key (the first hundred of each kind). */
function plannedLines(planned: { upload: string[]; delete: string[] }): string {
  const lines = (verb: string, keys: string[]): string[] => [...keys.slice(0, MAX_LINES).map((key) => `${verb} ${key}`), ...(keys.length > MAX_LINES ? [`… and ${keys.length - MAX_LINES} more to ${verb}`] : [])];
  return [...lines('upload', planned.upload), ...lines('delete', planned.delete)].map((line) => `${line}\n`).join('');
}

export const pushCommand: CommandDefinition = {
  options: {
    dir: DIR_OPTION,
    to: { type: 'string', value: 's3://BUCKET[/PREFIX]', description: 'the bucket and key prefix to copy the snapshot to (config push.to)' },
    endpoint: { type: 'string', value: 'URL', description: 'an S3-compatible store, e.g. http://127.0.0.1:9000 for MinIO (config push.endpoint; default AWS)' },
    'path-style': { type: 'boolean', description: 'put the bucket in the URL path, as MinIO, Ceph and Garage need (config push.pathStyle)' },
    concurrency: { type: 'string', value: 'N', description: 'uploads in flight at most (config push.concurrency, default 16)' },
    'dry-run': { type: 'boolean', description: 'read the bucket and say what would be uploaded and deleted; change nothing' },
    full: { type: 'boolean', description: 'list the prefix and check each object\'s recorded sha256 whatever the bucket\'s manifest says (repairs what others changed there)' },
    config: CONFIG_OPTION,
    ...OUTPUT_OPTIONS,
  },
  notes: [
    'Credentials and region come from the standard AWS chain only: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,',
    'AWS_SESSION_TOKEN, AWS_PROFILE, AWS_REGION, ~/.aws/config and credentials, web identity, instance roles.',
    'Order: records, then lists and filtered views, then _meta/manifest.json and its signature, then deletions.',
    'A bucket whose manifest is the snapshot\'s, with no unfinished push, costs two HEAD requests and no listing;',
    'what others changed under the prefix is then not looked for: verify --dir s3://... names it, push --full repairs it.',
    'Exit status: 0 pushed (or nothing to push); 1 failed, naming the bucket, key and the store\'s error code; 2 usage or configuration error.',
  ],
  async run(parsed, io) {
    const output = outputOf(parsed, io, 'push');
    const { config } = loadConfig(stringFlag(parsed, 'config'), io.cwd);
    const job = pushJob(config.push, { to: stringFlag(parsed, 'to'), endpoint: stringFlag(parsed, 'endpoint'), pathStyle: Boolean(parsed.values['path-style']), concurrency: intFlag(parsed, 'concurrency', 1, 256) }, '--to');
    if (!job) throw new UsageError('no destination: pass --to s3://BUCKET[/PREFIX] or set push.to in the config');
    const dir = outputFolder(stringFlag(parsed, 'dir'), io, config);
    await requireFolder(dir);
    // Held for the whole push, so a sync cannot publish a new snapshot under it half-way.
    const lock = await acquireLock(dir, 'push');
    try {
      if (lock.warning) output.warn(lock.warning);
      const note = await recover(dir);
      if (note) output.warn(note);
      const result = await runPush(job, dir, output, Boolean(parsed.values['dry-run']), Boolean(parsed.values.full));
      if (result.planned) io.stdout.write(plannedLines(result.planned));
      if (!parsed.values.quiet) io.stdout.write(`${describePush(result)}\n`);
      return 0;
    } finally {
      await lock.release();
    }
  },
};
