/** `unpack FILE --dir DIR [--public-key FILE]`: restores an archive made by `pack`, checked before it is placed. */
import { resolve } from 'node:path';
import { stringFlag, type CommandDefinition } from '../cli/command.js';
import { UsageError } from '../errors.js';
import { unpackArchive } from '../archive/unpack.js';
import { loadPublicKey } from '../sign/keys.js';

export const unpackCommand: CommandDefinition = {
  positionals: 'FILE',
  options: {
    dir: { type: 'string', value: 'DIR', description: 'the folder to restore into: absent, empty, or a published snapshot (replaced whole)' },
    'public-key': { type: 'string', value: 'FILE', description: 'Ed25519 public key (from keygen): the archive must carry a valid signature by it' },
  },
  async run(parsed, io) {
    const dirFlag = stringFlag(parsed, 'dir');
    if (!dirFlag) throw new UsageError('unpack: --dir DIR is required (the folder to restore into)');
    const keyFile = stringFlag(parsed, 'public-key');
    const publicKey = keyFile ? loadPublicKey(resolve(io.cwd, keyFile), '--public-key') : undefined;
    const file = resolve(io.cwd, parsed.positionals[0]!);
    const dir = resolve(io.cwd, dirFlag);
    const result = await unpackArchive({ file, dir, publicKey });
    io.stdout.write(`unpacked ${result.files} files from ${file} into ${dir}${result.replaced ? ' (replaced the previous snapshot)' : ''}${publicKey ? ', signature checked' : ''}\n`);
    return 0;
  },
};
