/** The sync's helper threads (record checking, file writing) run below the thread that talks to the service. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileBatcher } from '../../src/publish/file-batch.js';
import { RecordChecker } from '../../src/sync/record-checker.js';
import { tempDir } from '../helpers/tmp.js';

/** A thread's nice value, from its stat line (field 19; the name before it may hold spaces). */
const niceOf = (statFile: string): number => Number(readFileSync(statFile, 'utf8').split(') ')[1]!.split(' ')[16]);
const threads = (): Map<string, number> => new Map(readdirSync('/proc/self/task').map((tid) => [tid, niceOf(`/proc/self/task/${tid}/stat`)]));

// Only Linux gives a thread a priority of its own; a test run already at the lowest priorities shows nothing.
const linux = existsSync('/proc/thread-self');
const own = linux ? niceOf('/proc/thread-self/stat') : 0;

describe('helper thread priority', () => {
  it.skipIf(!linux || own > 14)('starts the record and file threads five nice levels below the caller, which keeps its own', async () => {
    const before = threads();
    const checker = new RecordChecker(undefined);
    const files = new FileBatcher();
    try {
      const item = { id: '7', name: 'web-07', os_id: '1', ip: '10.0.0.7' };
      const checked = await checker.check({ resource: 'servers', id: '7', path: '/servers/7.json', body: Buffer.from(JSON.stringify({ server: item })), item: Buffer.from(JSON.stringify(item)) });
      await files.write(join(tempDir('im-nice-'), '7.json'), checked.bytes);
      const started = [...threads()].filter(([tid]) => !before.has(tid)).map(([, nice]) => nice);
      expect(started.filter((nice) => nice === own + 5)).toHaveLength(2);
      expect(niceOf('/proc/thread-self/stat')).toBe(own);
    } finally {
      await checker.close();
      await files.close();
    }
  });
});
