/** `verify --dir DIR`: exit 0 when the folder matches its manifest, 1 naming what does not. */
import { resolve } from 'node:path';
import fs from 'fs-extra';
import { stringFlag, type Command } from '../cli/command.js';
import { loadConfig } from '../config/load.js';
import { ConfigError, VerifyError } from '../errors.js';
import { recover } from '../publish/journal.js';
import { acquireLock } from '../publish/lock.js';
import { verifyFolder } from '../verify/verify.js';

const MAX_LINES = 100;

export const verifyCommand: Command = {
  name: 'verify',
  summary: 'check a published output folder against its manifest',
  options: {
    dir: { type: 'string', value: 'DIR', description: 'the output folder (default: "out" of the config, else ./output)' },
    config: { type: 'string', value: 'FILE', description: 'config file (default config/mirror.json when present)' },
  },
  async run(parsed, io) {
    const { config } = loadConfig(stringFlag(parsed, 'config'), io.cwd);
    const dir = resolve(io.cwd, stringFlag(parsed, 'dir') ?? io.env.INVENTORY_MIRROR_OUT ?? config.out);
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
    const problems = [...report.missing.map((p) => `missing: ${p}`), ...report.altered.map((p) => `altered: ${p}`), ...report.extra.map((p) => `extra: ${p}`)];
    if (problems.length === 0) {
      io.stdout.write(`ok: ${dir} matches its manifest (${report.files} files)\n`);
      return 0;
    }
    io.stdout.write(`${problems.slice(0, MAX_LINES).join('\n')}\n${problems.length > MAX_LINES ? `… and ${problems.length - MAX_LINES} more\n` : ''}`);
    throw new VerifyError(`${dir} does not match its manifest: ${report.missing.length} missing, ${report.altered.length} altered, ${report.extra.length} extra (first: ${problems[0]})`, problems);
  },
};
