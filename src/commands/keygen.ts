/** `keygen --out PREFIX`: a new Ed25519 key pair for signing snapshots. */
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pathFlag, type CommandDefinition } from '../cli/command.js';
import { describeFsError, KeyExistsError, OutputError, UsageError } from '../errors.js';
import { generateKeyPair } from '../sign/keys.js';

export const keygenCommand: CommandDefinition = {
  options: {
    out: { type: 'string', value: 'PREFIX', description: 'writes PREFIX.key (mode 0600) and PREFIX.pub, making PREFIX\'s folder (mode 0700) when absent; refuses to overwrite either' },
  },
  async run(parsed, io) {
    const base = pathFlag(parsed, 'out', io);
    if (!base) throw new UsageError('--out PREFIX is required, e.g. --out keys/mirror (writes keys/mirror.key and keys/mirror.pub)');
    const pair = generateKeyPair();
    try {
      await mkdir(dirname(base), { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new OutputError(`cannot make the folder for ${base}.key: ${describeFsError(error) ?? String(error)}`, { cause: error });
    }
    const write = async (path: string, text: string, mode: number): Promise<void> => {
      try {
        await writeFile(path, text, { flag: 'wx', mode });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new KeyExistsError(`${path} already exists; keygen never overwrites a key (choose another --out, or delete it first)`);
        throw new OutputError(`cannot write the key: ${describeFsError(error) ?? String(error)}`, { cause: error });
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
