/** `verify --dir DIR` (or `--archive FILE`): exit 0 when it matches its manifest, 1 naming what does not. */
import { CONFIG_OPTION, DIR_OPTION, outputFolder, pathFlag, stringFlag, type CommandDefinition } from '../cli/command.js';
import { verifyArchive } from '../archive/verify.js';
import { loadConfig } from '../config/load.js';
import { UsageError, VerifyError } from '../errors.js';
import { requireFolder } from '../publish/output.js';
import { recoverBeforeReading } from '../publish/read-recover.js';
import { folderSignatureProblem } from '../sign/folder.js';
import { loadPublicKey } from '../sign/keys.js';
import { freshnessProblem, parseMaxAge } from '../state/freshness.js';
import { mismatchMessage, problemLines } from '../verify/report.js';
import { printable } from '../util/printable.js';
import { verifyFolder } from '../verify/verify.js';
import { describeKey } from '../push/location.js';
import { pushJob } from './push-job.js';

const MAX_LINES = 100;

export const verifyCommand: CommandDefinition = {
  options: {
    dir: DIR_OPTION,
    config: CONFIG_OPTION,
    'max-age': { type: 'string', value: 'AGE', description: 'also exit 1 when the last successful sync (_meta/last-sync.json) is older than AGE, e.g. 26h (units s, m, h, d) or missing' },
    archive: { type: 'string', value: 'FILE', description: 'check an archive made by pack instead of a folder, without unpacking it' },
    'public-key': { type: 'string', value: 'FILE', description: 'Ed25519 public key (from keygen): also require a valid _meta/manifest.sig by it' },
    endpoint: { type: 'string', value: 'URL', description: 'with --dir s3://BUCKET[/PREFIX]: an S3-compatible store (config push.endpoint; default AWS)' },
    'path-style': { type: 'boolean', description: 'with --dir s3://...: the bucket in the URL path, as MinIO needs (config push.pathStyle)' },
  },
  notes: [
    'With --dir s3://BUCKET[/PREFIX]: checks a copy made by push, by its listing and the sha256 push records in each object\'s metadata.',
    'Exit status: 0 it matches; 1 something is missing, altered, extra, badly signed or stale; 2 not a snapshot, or a usage error.',
  ],
  async run(parsed, io) {
    const keyFile = pathFlag(parsed, 'public-key', io);
    const publicKey = keyFile ? loadPublicKey(keyFile, '--public-key') : undefined;
    const archive = pathFlag(parsed, 'archive', io);
    if (archive && stringFlag(parsed, 'dir')) throw new UsageError('pass either --dir DIR or --archive FILE, not both');
    const maxAge = stringFlag(parsed, 'max-age') === undefined ? undefined : parseMaxAge(stringFlag(parsed, 'max-age')!);
    if (archive && maxAge !== undefined) throw new UsageError('--max-age is about a folder\'s last sync; an archive has none');
    let target: string;
    let report;
    const dirFlag = stringFlag(parsed, 'dir');
    if (archive) {
      target = archive;
      report = await verifyArchive(archive, publicKey);
    } else if (dirFlag?.startsWith('s3://')) {
      if (maxAge !== undefined) throw new UsageError('--max-age reads _meta/last-sync.json, which push does not copy; check the folder the bucket is pushed from');
      const { config } = loadConfig(stringFlag(parsed, 'config'), io.cwd);
      const job = pushJob(config.push, { to: dirFlag, endpoint: stringFlag(parsed, 'endpoint'), pathStyle: Boolean(parsed.values['path-style']) }, '--dir')!;
      target = describeKey(job.location);
      const { verifyBucket } = await import('../push/verify-bucket.js');
      report = await verifyBucket(job.location, { endpoint: job.endpoint, pathStyle: job.pathStyle, concurrency: job.concurrency }, publicKey);
    } else {
      const { config } = loadConfig(stringFlag(parsed, 'config'), io.cwd);
      target = outputFolder(stringFlag(parsed, 'dir'), io, config);
      await requireFolder(target);
      // Finish an interrupted publish first, unless a sync is running right now.
      const note = await recoverBeforeReading(target, 'verify');
      if (note) io.stderr.write(`${printable(note)}\n`);
      report = { ...(await verifyFolder(target)), signature: publicKey ? await folderSignatureProblem(target, publicKey) : undefined };
    }
    const problems = problemLines(report);
    if (problems.length > 0) {
      io.stdout.write(`${problems.slice(0, MAX_LINES).map(printable).join('\n')}\n${problems.length > MAX_LINES ? `… and ${problems.length - MAX_LINES} more\n` : ''}`);
      // A bucket is put back by a push that checks everything (a plain push trusts an unchanged bucket).
      const fix = dirFlag?.startsWith('s3://') ? `; run inventory-mirror push --full --to ${dirFlag} to put the snapshot back` : '';
      throw new VerifyError(`${mismatchMessage(target, report, problems)}${fix}`, problems);
    }
    const stale = maxAge === undefined ? undefined : await freshnessProblem(target, maxAge, Date.now());
    if (stale) throw new VerifyError(`${target} is stale: ${stale}`, [stale]);
    io.stdout.write(`ok: ${target} matches its manifest (${report.files} files${publicKey ? `, signed by key ${publicKey.keyId}` : ''})\n`);
    return 0;
  },
};
