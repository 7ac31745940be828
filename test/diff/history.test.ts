import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHANGES_FILE, LAST_SYNC_FILE } from '../../src/snapshot/paths.js';
import { sync as runSync } from '../../src/sync/index.js';

import { verifyFolder } from '../../src/verify/verify.js';
import { tempDir } from '../helpers/tmp.js';
import type { MutationReport } from '../../src/upstream/index.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';


const upstream = await useUpstream({ scale: 50, seed: 5 });

describe('_meta/changes.json', () => {
  it('keeps the last change sets, bounded by keep, and is not rewritten by an unchanged re-sync', async () => {
    const out = join(tempDir(), 'out');
    const sync = () => runSync({ baseUrl: upstream.url, token: TOKEN, out, changesKeep: 2 });
    const read = () => JSON.parse(readFileSync(join(out, CHANGES_FILE), 'utf8')) as { changes: Record<string, unknown>[] };

    const first = await sync();
    expect(first.initial).toBe(true);
    expect(read().changes).toEqual([{ at: expect.any(String), initial: true, records: first.records }]);

    const counts = (m: MutationReport) => ({ added: m.added.servers.length, removed: m.removed.servers.length, changed: m.changed.servers.length });
    const earlier = upstream.mutate({ seed: 1, share: 0.04 });
    await sync();
    expect((await sync()).status).toBe('unchanged');
    const mutation = upstream.mutate({ seed: 2, share: 0.04 });
    const latest = await sync();
    expect(latest.changes.servers.changed).toEqual(mutation.changed.servers);
    const history = read().changes;
    expect(history).toHaveLength(2);
    expect(history[0]).toMatchObject({ counts: { servers: counts(mutation) } });
    expect((history[0] as { resources: { servers: { added: string[] } } }).resources.servers.added).toEqual(mutation.added.servers);
    expect(history[1]).toMatchObject({ counts: { servers: counts(earlier) } });

    const mtime = statSync(join(out, CHANGES_FILE)).mtimeMs;
    const bytes = readFileSync(join(out, CHANGES_FILE));
    await new Promise((r) => setTimeout(r, 20));
    const again = await sync();
    expect(again.status).toBe('unchanged');
    expect(statSync(join(out, CHANGES_FILE)).mtimeMs).toBe(mtime);
    expect(readFileSync(join(out, CHANGES_FILE))).toEqual(bytes);
    expect(JSON.parse(readFileSync(join(out, LAST_SYNC_FILE), 'utf8')).changes.servers).toEqual({ added: 0, removed: 0, changed: 0 });

    const report = await verifyFolder(out);
    expect([report.missing, report.altered, report.extra]).toEqual([[], [], []]);
  });
});
