/** `keygen --out PREFIX`: a new Ed25519 key pair for signing snapshots. */
import { chmod, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { stringFlag, type Command } from '../cli/command.js';
import { OutputError, UsageError } from '../errors.js';
import { generateKeyPair } from '../sign/keys.js';

export const keygenCommand: Command = {
  name: 'keygen',
  summary: 'make an Ed25519 key pair: PREFIX.key (private, for sync/pack --sign-key) and PREFIX.pub (for verify --public-key)',
  options: {
    out: { type: 'string', value: 'PREFIX', description: 'writes PREFIX.key (mode 0600) and PREFIX.pub; refuses to overwrite either' },
  },
  async run(parsed, io) {
    const prefix = stringFlag(parsed, 'out');
    if (!prefix) throw new UsageError('keygen: --out PREFIX is required, e.g. --out keys/mirror (writes keys/mirror.key and keys/mirror.pub)');
    const base = resolve(io.cwd, prefix);
    const pair = generateKeyPair();
    const write = async (path: string, text: string, mode: number): Promise<void> => {
      try {
        await writeFile(path, text, { flag: 'wx', mode });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') throw new OutputError('E_KEY_EXISTS', `${path} already exists; keygen never overwrites a key (choose another --out, or delete it first)`);
        throw new OutputError('E_KEY_WRITE', `cannot write ${path} (${code ?? String(error)})`);
      }
      // The process umask may only take bits away; set the mode exactly anyway.
      await chmod(path, mode);
    };
    await write(`${base}.key`, pair.privatePem, 0o600);
    try {
      await write(`${base}.pub`, pair.publicPem, 0o644);
    } catch (error) {
      await rm(`${base}.key`, { force: true });
      throw error;
    }
    io.stdout.write(`wrote ${base}.key (private, keep it secret) and ${base}.pub (key id ${pair.keyId})\n`);
    return 0;
  },
};
