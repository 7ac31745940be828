/**
 * The pipeline end to end: the real CLI against the real simulated service.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listPath, RESOURCE_NAMES, singlePath } from '../../src/spec/resources.js';
import { isOutsideSnapshot, WORK_DIR } from '../../src/snapshot/paths.js';
import { listFiles, verifyFolder } from '../../src/verify/verify.js';
import { holdOutput } from '../../src/publish/output.js';
import { runCli } from '../helpers/cli.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { treeState } from '../helpers/tree.js';
import { TOKEN, upstreamGet, useUpstream } from '../helpers/upstream.js';

const upstream = await useUpstream({ scale: 60, extraFields: true });
const env = { INVENTORY_API_TOKEN: TOKEN };

function readJson(dir: string, path: string): unknown {
  return JSON.parse(readFileSync(join(dir, path), 'utf8'));
}

describe('sync', () => {
  it('mirrors every list and single record exactly as the service sends them, extra fields included', async () => {
    const out = tempDir();
    const result = await runCli(['sync', '--base-url', upstream.url, '--out', out], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/published: .* servers +60 records/s);
    for (const resource of RESOURCE_NAMES) {
      const list = await upstreamGet(upstream, listPath(resource));
      expect(readJson(out, `${resource}.json`)).toEqual(list.body);
      const records = (list.body as Record<string, { id: string }[]>)[resource]!;
      expect(records.length).toBeGreaterThan(0);
      for (const { id } of records) {
        const single = await upstreamGet(upstream, singlePath(resource, id));
        expect(readJson(out, `${resource}/${id}.json`)).toEqual(single.body);
      }
    }
    const server = readJson(out, 'servers.json') as { servers: Record<string, unknown>[] };
    const fieldsNotInSpec = Object.keys(server.servers[0]!).filter((k) => !['id', 'name', 'hypervisor_name', 'memory_GB', 'processor_system_count', 'processor_reference', 'processor_frequency_GHz', 'extended_attributes'].includes(k));
    expect(fieldsNotInSpec.length).toBeGreaterThan(0);
    const sent = (await upstreamGet(upstream, '/servers.json')).body as { servers: object[] };
    expect(Object.keys(server.servers[0]!)).toEqual(Object.keys(sent.servers[0]!));
  });

  it('writes two-space JSON with a final newline and a manifest of every file', async () => {
    const out = tempDir();
    expect((await runCli(['sync', '--base-url', upstream.url, '--out', out, '--quiet'], { env })).code).toBe(0);
    const text = readFileSync(join(out, 'servers.json'), 'utf8');
    expect(text).toMatch(/^\{\n {2}"servers": \[\n {4}\{\n/);
    expect(text.endsWith('}\n')).toBe(true);
    const manifest = readJson(out, '_meta/manifest.json') as { files: Record<string, { size: number }> };
    const files = (await listFiles(out)).filter((p) => !isOutsideSnapshot(p));
    expect(Object.keys(manifest.files).sort()).toEqual(files.sort());
    expect(Object.keys(manifest.files)).toContain('servers/_filter/by_virtual/1.json');
  });

  it('rewrites nothing on a second sync of an unchanged service; verify passes, then fails after one byte changes', async () => {
    const out = tempDir();
    await runCli(['sync', '--base-url', upstream.url, '--out', out, '--quiet'], { env });
    const before = await treeState(out);
    const second = await runCli(['sync', '--base-url', upstream.url, '--out', out], { env });
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^unchanged: /);
    expect(second.stdout).toMatch(/files 0 written, 0 removed/);
    const after = await treeState(out);
    // Run metadata: the second also stamps the folders it found as the first left them (see stamps.ts).
    for (const meta of ['_meta/last-sync.json', '_meta/http-cache.json']) {
      before.delete(meta);
      after.delete(meta);
    }
    expect(after).toEqual(before);

    expect((await runCli(['verify', '--dir', out])).code).toBe(0);
    const file = join(out, 'servers', `${(readJson(out, 'servers.json') as { servers: { id: string }[] }).servers[3]!.id}.json`);
    const bytes = readFileSync(file);
    bytes[10] = bytes[10]! ^ 1;
    (await import('node:fs')).writeFileSync(file, bytes);
    const verify = await runCli(['verify', '--dir', out]);
    expect(verify.code).toBe(1);
    expect(verify.stdout).toContain(`altered: servers/`);
  });

  it('writes a manifest that lists the same files in another form (compact, escaped, out of order) back in its own form', async () => {
    const out = tempDir();
    await syncInto(upstream, out);
    const file = join(out, '_meta/manifest.json');
    const cacheFile = join(out, '_meta/http-cache.json');
    const own = readFileSync(file, 'utf8');
    const manifest = JSON.parse(own) as { files: Record<string, unknown> };
    const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
    const { writeFileSync } = await import('node:fs');
    // The same entries in the same order: the run metadata bound to the new form stays usable, so the
    // next sync keeps every file and only the manifest's form differs.
    for (const form of [JSON.stringify(manifest), own.replace('"servers.json"', '"\\u0073ervers.json"')]) {
      writeFileSync(file, form);
      writeFileSync(cacheFile, readFileSync(cacheFile, 'utf8').replace(`"manifest":"${sha(own)}"`, `"manifest":"${sha(form)}"`));
      expect((await runCli(['verify', '--dir', out])).code).toBe(0);
      const result = await syncInto(upstream, out);
      expect([result.files.written, result.notModified]).toEqual([0, result.requests]);
      expect(readFileSync(file, 'utf8')).toBe(own);
    }
    writeFileSync(file, `${JSON.stringify({ ...manifest, files: Object.fromEntries(Object.entries(manifest.files).reverse()) }, null, 2)}\n`);
    expect((await syncInto(upstream, out)).files.written).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(own);
  });

  it('fetches every filtered view the contract lists and indexes them in _meta/filters.json', async () => {
    const out = tempDir();
    await runCli(['sync', '--base-url', upstream.url, '--out', out, '--quiet'], { env });
    const index = readJson(out, '_meta/filters.json') as { filters: { resource: string; param: string; value: string; file: string; path: string }[] };
    const oses = (readJson(out, 'operating_systems.json') as { operating_systems: { id: string }[] }).operating_systems;
    const types = new Set((readJson(out, 'databases.json') as { databases: { type: string }[] }).databases.map((d) => d.type));
    const keys = index.filters.map((f) => `${f.resource}?${f.param}=${f.value}`);
    for (const os of oses) expect(keys).toContain(`servers?by_system=${os.id}`);
    for (const type of types) expect(keys).toContain(`databases?by_type=${type}`);
    expect(keys).toEqual(expect.arrayContaining(['servers?by_virtual=0', 'servers?by_virtual=1', 'databases?include=servers']));
    for (const view of index.filters) expect(readJson(out, view.file)).toEqual((await upstreamGet(upstream, view.path)).body);
  });
});

describe('the project output folder', () => {
  it('holding only its .gitkeep placeholder, syncs and then verifies, placeholder kept', async () => {
    const out = tempDir();
    (await import('node:fs')).writeFileSync(join(out, '.gitkeep'), '');
    expect((await runCli(['sync', '--base-url', upstream.url, '--out', out, '--quiet'], { env })).code).toBe(0);
    const verify = await runCli(['verify', '--dir', out]);
    expect(verify.stdout).toMatch(/^ok: /);
    expect(verify.code).toBe(0);
    expect(readFileSync(join(out, '.gitkeep'), 'utf8')).toBe('');
  });
});

describe('sync with config', () => {
  it('fetches the configured values of filters that cannot be discovered', async () => {
    const out = tempDir();
    const dir = tempDir();
    const config = join(dir, 'mirror.json');
    (await import('node:fs')).writeFileSync(config, JSON.stringify({ filters: { servers: { by_arch: ['x86_64'], by_location: ['site:1'] } } }));
    const result = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--config', config, '--quiet'], { env });
    expect(result.code).toBe(0);
    expect(readJson(out, 'servers/_filter/by_arch/x86_64.json')).toEqual((await upstreamGet(upstream, '/servers.json?by_arch=x86_64')).body);
    expect(readJson(out, 'servers/_filter/by_location/site%3A1.json')).toEqual((await upstreamGet(upstream, '/servers.json?by_location=site%3A1')).body);
  });

  it('rejects an unknown key or a wrong type in the config file with exit 2 naming the key', async () => {
    const dir = tempDir();
    const config = join(dir, 'mirror.json');
    const fs = await import('node:fs');
    fs.writeFileSync(config, JSON.stringify({ sync: { concurency: 4 } }));
    let result = await runCli(['sync', '--base-url', upstream.url, '--out', join(dir, 'out'), '--config', config], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown key sync\.concurency/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    fs.writeFileSync(config, JSON.stringify({ sync: { concurrency: 'many' } }));
    result = await runCli(['sync', '--base-url', upstream.url, '--out', join(dir, 'out'), '--config', config], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/sync\.concurrency: expected (int|number)/);
    expect(fs.existsSync(join(dir, 'out'))).toBe(false);
  });
});

describe('after publishing', () => {
  it('leaves the folder locked for the caller (the git commit), and a failing step after it leaves the published snapshot in place', async () => {
    const upstream = await useUpstream({ scale: 10 });
    const out = join(tempDir(), 'new-folder');
    const held = await holdOutput(out, 'sync');
    const result = await syncInto(upstream, out, { held });
    expect(result.status).toBe('published');
    expect(existsSync(join(out, WORK_DIR, 'lock'))).toBe(true);
    // The step after publishing (a git commit, say) failed: the caller lets go, keeping the snapshot.
    await held.release(true);
    expect(existsSync(join(out, WORK_DIR, 'lock'))).toBe(false);
    expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });
  });
});
