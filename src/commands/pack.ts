/** `pack --dir DIR --out FILE.tar.gz [--sign-key FILE]`: one deterministic archive of a snapshot. */
import { resolve } from 'node:path';
import { CONFIG_OPTION, DIR_OPTION, outputFolder, stringFlag, type CommandDefinition } from '../cli/command.js';
import { loadConfig } from '../config/load.js';
import { UsageError } from '../errors.js';
import { packSnapshot } from '../archive/pack.js';
import { requireFolder } from '../publish/output.js';
import { loadPrivateKey } from '../sign/keys.js';

export const packCommand: CommandDefinition = {
  options: {
    dir: DIR_OPTION,
    out: { type: 'string', value: 'FILE', description: 'the archive to write, e.g. snapshot.tar.gz (replaced atomically)' },
    'sign-key': { type: 'string', value: 'FILE', description: 'Ed25519 private key (from keygen): signs the manifest into the archive\'s _meta/manifest.sig' },
    config: CONFIG_OPTION,
  },
  async run(parsed, io) {
    const out = stringFlag(parsed, 'out');
    if (!out) throw new UsageError('pack: --out FILE is required, e.g. --out snapshot.tar.gz');
    const { config } = loadConfig(stringFlag(parsed, 'config'), io.cwd);
    const dir = outputFolder(stringFlag(parsed, 'dir'), io, config);
    await requireFolder(dir);
    const keyFile = stringFlag(parsed, 'sign-key');
    const signKey = keyFile ? loadPrivateKey(resolve(io.cwd, keyFile), '--sign-key') : undefined;
    const result = await packSnapshot({ dir, out: resolve(io.cwd, out), signKey, log: (line) => io.stderr.write(`${line}\n`) });
    io.stdout.write(`packed ${result.files} files of ${dir} into ${resolve(io.cwd, out)} (${result.bytes} bytes${result.signed ? ', signed' : ''})\n`);
    return 0;
  },
};
