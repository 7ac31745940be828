/** The batching file writer: every file written whole, failures reported per file as fs errors, the process left free to exit. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeFsError } from '../../src/errors.js';
import { FileBatcher } from '../../src/publish/file-batch.js';
import { tempDir } from '../helpers/tmp.js';

describe('FileBatcher', () => {
  it('writes many files handed over at once, each with its own bytes', async () => {
    const dir = tempDir('im-batch-');
    const files = new FileBatcher();
    const names = Array.from({ length: 500 }, (_, i) => `${i}.json`);
    await Promise.all(names.map((name, i) => files.write(join(dir, name), Buffer.from(`{"id": "${i}"}\n`.repeat(1 + (i % 7))))));
    await files.close();
    for (const [i, name] of names.entries()) expect(readFileSync(join(dir, name), 'utf8')).toBe(`{"id": "${i}"}\n`.repeat(1 + (i % 7)));
  });

  it('fails only the file that cannot be written, with the error fs gives', async () => {
    const dir = tempDir('im-batch-');
    const files = new FileBatcher();
    const missing = join(dir, 'no-such-folder', 'a.json');
    const results = await Promise.allSettled([files.write(join(dir, 'ok.json'), Buffer.from('1')), files.write(missing, Buffer.from('2'))]);
    await files.close();
    expect(results[0].status).toBe('fulfilled');
    expect(results[1].status).toBe('rejected');
    const error = (results[1] as PromiseRejectedResult).reason as NodeJS.ErrnoException;
    expect(error).toMatchObject({ code: 'ENOENT', syscall: 'open', path: missing });
    expect(describeFsError(error)).toContain(missing);
    expect(readFileSync(join(dir, 'ok.json'), 'utf8')).toBe('1');
  });
});
