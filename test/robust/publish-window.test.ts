/**
 * A kill at every step of a publish, then a service that goes back to what it was before (a
 * rollback after a bad import): recovery rolls the folder forward to the new snapshot, and the run
 * metadata bound to it (the ETag cache, last-sync.json) must describe that snapshot, not the old
 * one, or the next sync keeps the new bodies labelled with the old ETags for good.
 */
import { execFile } from 'node:child_process';
import { cpSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { verifyFolder } from '../../src/verify/verify.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { snapshotData } from '../helpers/tree.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';

const CHILD = fileURLToPath(new URL('./crash-child.mjs', import.meta.url));
// Service A, and service B: the same data after a change. "Going back" is syncing from A again.
const before = await useUpstream({ scale: 10, seed: 21 });
const after = await useUpstream({ scale: 10, seed: 21 });
after.mutate({ seed: 3, share: 0.2 });

/** Runs a sync of B into `out` killed after `renames` renames of its publish; whether the kill happened. */
function killedSync(out: string, renames: number): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CHILD, 'sync', '--base-url', after.url, '--out', out, '--quiet'], { env: { PATH: process.env.PATH ?? '', INVENTORY_API_TOKEN: TOKEN, CRASH_AFTER_RENAMES: String(renames) }, timeout: 60_000 }, (error) =>
      resolve((error as { signal?: string } | null)?.signal === 'SIGKILL'),
    );
  });
}

describe('a kill in the publish window, then a service rollback', () => {
  it('leaves run metadata that never describes another snapshot: after recovery and a sync of the old data, the folder equals a fresh sync of it', async () => {
    const base = tempDir();
    await syncInto(before, base);
    const reference = tempDir();
    await syncInto(before, reference);
    const expected = await snapshotData(reference);

    let steps = 0;
    for (let renames = 0; renames < 200; renames++) {
      const out = tempDir();
      cpSync(base, out, { recursive: true });
      const killed = await killedSync(out, renames);
      if (!killed) break;
      steps++;
      // The service went back to A: the next sync finishes the interrupted publish (the folder is
      // B, whole), then must bring the folder to A exactly, 304s or not.
      const back = await syncInto(before, out);
      expect(back.status).not.toBe('dry-run');
      expect(await snapshotData(out), `killed after ${renames} renames, then synced from the rolled-back service`).toEqual(expected);
      expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });
      // And a second sync of A changes nothing.
      expect((await syncInto(before, out)).status).toBe('unchanged');
    }
    // Every step of a real publish was hit (lists, views, records, metadata, manifest).
    expect(steps).toBeGreaterThan(5);
  }, 300_000);
});
