/** `verify --dir DIR`: exit 0 when the folder matches its manifest, 1 naming what does not. */
import { resolve } from 'node:path';
import fs from 'fs-extra';
import { CONFIG_OPTION, DIR_OPTION, outputFolder, stringFlag, type Command } from '../cli/command.js';
import { loadConfig } from '../config/load.js';
import { ConfigError, UsageError, VerifyError } from '../errors.js';
import { recover } from '../publish/journal.js';
import { acquireLock } from '../publish/lock.js';
import { verifyFolder } from '../verify/verify.js';
import { freshnessProblem, parseMaxAge } from '../schedule/freshness.js';
import { verifyArchiveWithIo } from '../archive/verify-command.js';
import { folderSignatureProblem } from '../sign/folder.js';
import { loadPublicKey } from '../sign/keys.js';

const MAX_LINES = 100;

export const verifyCommand: Command = {
  name: 'verify',
  summary: 'check a published output folder against its manifest',
  options: {
    dir: DIR_OPTION,
    config: CONFIG_OPTION,
    'max-age': { type: 'string', value: 'AGE', description: 'also exit 1 when the last successful sync (_meta/last-sync.json) is older than AGE, e.g. 26h (units s, m, h, d) or missing' },
    archive: { type: 'string', value: 'FILE', description: 'check an archive made by pack instead of a folder, without unpacking it' },
    'public-key': { type: 'string', value: 'FILE', description: 'Ed25519 public key (from keygen): also require a valid _meta/manifest.sig by it' },
  },
  async run(parsed, io) {
    const keyFile = stringFlag(parsed, 'public-key');
    const publicKey = keyFile ? loadPublicKey(resolve(io.cwd, keyFile)) : undefined;
    const archive = stringFlag(parsed, 'archive');
    if (archive && stringFlag(parsed, 'dir')) throw new UsageError('verify: pass either --dir DIR or --archive FILE, not both');
    if (archive) return verifyArchiveWithIo(resolve(io.cwd, archive), publicKey, io);
    const maxAge = stringFlag(parsed, 'max-age') === undefined ? undefined : parseMaxAge(stringFlag(parsed, 'max-age')!);
    const { config } = loadConfig(stringFlag(parsed, 'config'), io.cwd);
    const dir = outputFolder(stringFlag(parsed, 'dir'), io, config);
    if (!(await fs.stat(dir).catch(() => undefined))?.isDirectory()) throw new ConfigError(`${dir} is not a folder; pass the output folder with --dir`);
    // Finish an interrupted publish first, unless a sync is running right now.
    const lock = await acquireLock(dir, 'verify').catch(() => undefined);
    if (lock) {
      try {
        const note = await recover(dir);
        if (note) io.stderr.write(`${note}\n`);
      } finally {
        await lock.release();
      }
    }
    const report = await verifyFolder(dir);
    if (report.noManifest) throw new VerifyError(`${dir} has no valid _meta/manifest.json; it is not a published snapshot (run sync into it first)`, []);
    const signature = publicKey ? await folderSignatureProblem(dir, publicKey) : undefined;
    const problems = [...report.missing.map((p) => `missing: ${p}`), ...report.altered.map((p) => `altered: ${p}`), ...report.extra.map((p) => `extra: ${p}`), ...(signature ? [`signature: ${signature}`] : [])];
    const stale = maxAge === undefined ? undefined : await freshnessProblem(dir, maxAge, Date.now());
    if (stale && problems.length === 0) throw new VerifyError(`${dir} is stale: ${stale}`, [stale]);
    if (problems.length === 0) {
      io.stdout.write(`ok: ${dir} matches its manifest (${report.files} files${publicKey ? `, signed by key ${publicKey.keyId}` : ''})\n`);
      return 0;
    }
    io.stdout.write(`${problems.slice(0, MAX_LINES).join('\n')}\n${problems.length > MAX_LINES ? `… and ${problems.length - MAX_LINES} more\n` : ''}`);
    throw new VerifyError(`${dir} does not match its manifest: ${report.missing.length} missing, ${report.altered.length} altered, ${report.extra.length} extra${signature ? ', bad signature' : ''} (first: ${problems[0]})`, problems);
  },
};
