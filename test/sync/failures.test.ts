/**
 * Every failure gives one clear line, the contract's exit status, and leaves the output folder
 * exactly as it was: content and mtimes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/free-port.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { allBytes, treeState } from '../helpers/tree.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';

const upstream = await useUpstream({ scale: 40 });
const env = { INVENTORY_API_TOKEN: TOKEN };
const fastConfig = join(tempDir('im-cfg-'), 'fast.json');
writeFileSync(fastConfig, JSON.stringify({ sync: { retries: 1, retryBaseMs: 5, retryMaxMs: 20 } }));

/** A synced folder and its state, for "nothing changed" checks. */
async function syncedFolder(): Promise<{ out: string; before: Awaited<ReturnType<typeof treeState>> }> {
  const out = tempDir();
  const first = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--quiet'], { env });
  expect(first.code).toBe(0);
  return { out, before: await treeState(out) };
}

describe('sync failures', () => {
  it('no token: exit 2, one line saying how to give one, folder untouched', async () => {
    const { out, before } = await syncedFolder();
    const result = await runCli(['sync', '--base-url', upstream.url, '--out', out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^inventory-mirror sync: no API token: set INVENTORY_API_TOKEN.*\n$/);
    expect(await treeState(out)).toEqual(before);
  });

  it('token rejected: exit 1, "the service rejected the token", never the token itself', async () => {
    const { out, before } = await syncedFolder();
    const secret = 'wrong-token-that-must-not-leak-93c1';
    const result = await runCli(['sync', '--base-url', upstream.url, '--out', out], { env: { INVENTORY_API_TOKEN: secret } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/the service rejected the token/);
    expect(result.stderr + result.stdout).not.toContain(secret);
    expect(await treeState(out)).toEqual(before);
    expect(await allBytes(out)).not.toContain(secret);
  });

  it('service unreachable: exit 1 naming the URL; a new folder is not even created', async () => {
    const port = await freePort();
    const parent = tempDir();
    const out = join(parent, 'mirror');
    const result = await runCli(['sync', '--base-url', `http://127.0.0.1:${port}`, '--out', out, '--config', fastConfig], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`http://127.0.0.1:${port}`);
    expect(result.stderr).toMatch(/unreachable/);
    expect(await treeState(parent)).toEqual(new Map());
  });

  it('a body that is not JSON: exit 1 naming the path and the content type', async () => {
    const { out, before } = await syncedFolder();
    upstream.override('/servers.json', { status: 200, body: '<html><body>Please log in</body></html>', contentType: 'text/html; charset=utf-8' });
    try {
      const result = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--config', fastConfig, '--quiet'], { env });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/GET \/servers\.json .*not JSON \(content type text\/html; charset=utf-8\)/);
      expect(await treeState(out)).toEqual(before);
    } finally {
      upstream.override('/servers.json', undefined);
    }
  });

  it('a structural fault (duplicate ids) fails the sync and publishes nothing', async () => {
    const { out, before } = await syncedFolder();
    upstream.override('/applications.json', { status: 200, body: JSON.stringify({ applications: [{ id: '1', name: 'a', description: '' }, { id: '1', name: 'b', description: '' }] }) });
    try {
      const result = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--quiet'], { env });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/duplicate id "1" at applications\[0\] and applications\[1\]/);
      expect(await treeState(out)).toEqual(before);
    } finally {
      upstream.override('/applications.json', undefined);
    }
  });

  it('--strict turns findings into a failure naming the largest; without it they are warned about, aggregated, with how to accept them', async () => {
    const { out, before } = await syncedFolder();
    const body = JSON.stringify({ applications: [{ id: '1', name: null, description: 'x' }] });
    upstream.override('/applications.json', { status: 200, body });
    upstream.override('/applications/1.json', { status: 200, body: JSON.stringify({ application: { id: '1', name: null, description: 'x' } }) });
    try {
      const strict = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--strict', '--allow-mass-removal'], { env });
      expect(strict.code).toBe(1);
      expect(strict.stderr).toMatch(/strict: 1 finding not accepted by quality\.accept.*nothing was published\. The largest: applications name null: 1 record \(100\.0%\), e\.g\. 1/);
      expect(strict.stderr).toMatch(/"applications\.name:null"/);
      expect(await treeState(out)).toEqual(before);
      const lenient = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--allow-mass-removal'], { env });
      expect(lenient.code).toBe(0);
      // The summary lists them and tells how to accept them; the warning points there in one line.
      expect(lenient.stderr).toMatch(/^warning: 1 data-quality finding not accepted, in 1 group: the summary lists the largest/m);
      expect(lenient.stdout).toMatch(/findings: 1 in 1 group; the largest:\n    applications name null: 1 record \(100\.0%\), e\.g\. 1\n/);
      expect(lenient.stdout).toMatch(/to accept them: add "applications\.name:null"/);
      // Quiet (cron mail): no summary, so the warnings name the groups and how to accept them.
      const quiet = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--allow-mass-removal', '-q'], { env });
      expect(quiet.code).toBe(0);
      expect(quiet.stdout).toBe('');
      expect(quiet.stderr).toMatch(/^warning: finding: applications name null: 1 record \(100\.0%\), e\.g\. 1$/m);
      expect(quiet.stderr).toMatch(/^warning: to accept findings .*"applications\.name:null"/m);
    } finally {
      upstream.override('/applications.json', undefined);
      upstream.override('/applications/1.json', undefined);
    }
  });

  it('bad flags and settings are usage errors (exit 2) naming the flag', async () => {
    expect((await runCli(['sync', '--bogus'])).stderr).toMatch(/Unknown option '--bogus'/);
    expect((await runCli(['sync', '--bogus'])).code).toBe(2);
    const concurrency = await runCli(['sync', '--concurrency', 'lots', '--base-url', upstream.url], { env });
    expect(concurrency.code).toBe(2);
    expect(concurrency.stderr).toMatch(/--concurrency: expected an integer from 1 to 256, got "lots"/);
    const url = await runCli(['sync', '--base-url', 'ftp://x'], { env });
    expect(url.code).toBe(2);
    expect(url.stderr).toMatch(/not an http:\/\/ or https:\/\/ URL/);
    expect((await runCli(['sync'], { env })).stderr).toMatch(/no service URL: pass --base-url/);
  });
});
