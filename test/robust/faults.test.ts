/**
 * Faults of the service and the network: retried until the snapshot equals a clean one, or the
 * sync fails and the folder stays exactly as it was.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { snapshotData, treeState } from '../helpers/tree.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';

const clean = await useUpstream({ scale: 80, seed: 7 });
const faulty = await useUpstream({ scale: 80, seed: 7, faults: { rate: 0.15, slowMs: 50, retryAfterSeconds: 1, seed: 3 } });


describe('faults', () => {
  it('a sync through 15% faults of every kind equals the clean sync, file for file', async () => {
    const a = tempDir();
    const b = tempDir();
    await syncInto(clean, a);
    const result = await syncInto(faulty, b);
    expect(result.retries).toBeGreaterThan(10);
    expect(await snapshotData(b)).toEqual(await snapshotData(a));
  });

  it('a path that always fails: exit 1 naming it, the folder identical in content and mtimes', async () => {
    const out = tempDir();
    await syncInto(clean, out);
    const before = await treeState(out);
    const failing = await useUpstream({ scale: 80, seed: 7, faults: { failPaths: ['/servers/1003.json'] } });
    const dir = tempDir();
    const config = `${dir}/fast.json`;
    (await import('node:fs')).writeFileSync(config, JSON.stringify({ sync: { retries: 2, retryBaseMs: 5 } }));
    const result = await runCli(['sync', '--base-url', failing.url, '--out', out, '--config', config], { env: { INVENTORY_API_TOKEN: TOKEN } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/GET \/servers\/1003\.json failed after 3 attempts: HTTP 500/);
    expect(await treeState(out)).toEqual(before);
  });
});
