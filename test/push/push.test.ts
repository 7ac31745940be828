/**
 * `push` against a real S3-compatible server (s3rver on 127.0.0.1 behind a recording proxy): the
 * bucket holds exactly the snapshot after first, no-change, changed, interrupted and failing
 * pushes, and every request comes in the order that keeps readers from a half-done state.
 */
import { createHash } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { PENDING_FILE } from '../../src/push/plan.js';
import { readManifest } from '../../src/snapshot/manifest-read.js';
import { MANIFEST_FILE, parseRecordFile, SIGNATURE_FILE } from '../../src/snapshot/paths.js';
import { generateKeyPair, loadPrivateKey } from '../../src/sign/keys.js';
import { runCli, startCli } from '../helpers/cli.js';
import { BUCKET, withS3, type LoggedRequest, type TestS3 } from '../helpers/s3.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';

const PREFIX = 'inv/';
const TO = `s3://${BUCKET}/inv`;

/** A fresh snapshot of a fresh simulated service (which the test may then change). */
async function snapshot(): Promise<{ dir: string; upstream: Awaited<ReturnType<typeof useUpstream>> }> {
  const upstream = await useUpstream();
  const dir = tempDir();
  await syncInto(upstream, dir);
  return { dir, upstream };
}

/** What the bucket must hold for `dir`: every file of its manifest (dotfiles left out) and the manifest. */
async function expected(dir: string): Promise<Map<string, Buffer>> {
  const manifest = (await readManifest(dir))!;
  const out = new Map<string, Buffer>();
  for (const path of manifest.table.paths()) if (path.includes('/') || !path.startsWith('.')) out.set(path, readFileSync(join(dir, path)));
  out.set(MANIFEST_FILE, readFileSync(join(dir, MANIFEST_FILE)));
  return out;
}

function push(s3: TestS3, dir: string, args: string[] = [], env: Record<string, string> = {}) {
  return runCli(['push', '--dir', dir, '--to', TO, '--endpoint', s3.endpoint, '--path-style', ...args], { env: s3.env(env) });
}

function verifyBucket(s3: TestS3) {
  return runCli(['verify', '--dir', TO, '--endpoint', s3.endpoint, '--path-style'], { env: s3.env() });
}

/** The requests the store saw since the log was last cleared, as `METHOD key`, in a stable order. */
function requestsOf(s3: TestS3): string[] {
  return s3.log
    .filter((e) => e.at === 'start')
    .map((e) => `${e.method} ${e.key}${/list-type=2/.test(e.query) ? ' (listing)' : ''}`)
    .sort();
}

type Kind = 'record' | 'view' | 'manifest' | 'pending' | 'delete';

/** What a logged request writes or deletes under the prefix, if anything. */
function kindOf(entry: LoggedRequest): Kind | undefined {
  if (entry.method === 'POST' && /(^|&)delete(=|&|$)/.test(entry.query)) return 'delete';
  if (entry.method !== 'PUT' && entry.method !== 'POST') return undefined;
  const path = entry.key.slice(PREFIX.length);
  if (path === MANIFEST_FILE) return 'manifest';
  if (path === PENDING_FILE) return 'pending';
  return parseRecordFile(path) ? 'record' : 'view';
}

/**
 * Checks the phases: the marker, then records, views, the manifest and deletions, each starting
 * only when every write of the earlier phases has finished. Returns the writes per kind.
 */
function checkOrder(log: readonly LoggedRequest[]): Record<Kind, number> {
  const counts: Record<Kind, number> = { pending: 0, record: 0, view: 0, manifest: 0, delete: 0 };
  const rank: Record<Kind, number> = { pending: 0, record: 1, view: 2, manifest: 3, delete: 4 };
  const inFlight: Record<Kind, number> = { pending: 0, record: 0, view: 0, manifest: 0, delete: 0 };
  let phase = 0;
  for (const entry of log) {
    const kind = kindOf(entry);
    if (!kind) continue;
    if (entry.at === 'end') {
      inFlight[kind]--;
      continue;
    }
    counts[kind]++;
    expect(rank[kind], `${entry.key} (${kind}) after a later phase began`).toBeGreaterThanOrEqual(phase);
    for (const other of Object.keys(rank) as Kind[]) {
      if (rank[other] < rank[kind]) expect(inFlight[other], `${entry.key} (${kind}) started while a ${other} write was in flight`).toBe(0);
    }
    phase = rank[kind];
    inFlight[kind]++;
  }
  return counts;
}

/**
 * Sets a reader on the proxy: when the first list or view is about to be written, it looks for
 * every record of `want` in the bucket; `missing` names those it did not find with their bytes.
 */
function readerAtFirstView(s3: TestS3, want: Map<string, Buffer>): { checked: boolean; missing: string[] } {
  const state = { checked: false, missing: [] as string[] };
  s3.onRequest = async (entry) => {
    if (state.checked || kindOf(entry) !== 'view' || entry.at !== 'start') return;
    state.checked = true;
    const there = await s3.objects(PREFIX);
    for (const [path, bytes] of want) if (parseRecordFile(path) && !there.get(path)?.equals(bytes)) state.missing.push(path);
  };
  return state;
}

describe('push', () => {
  it('first push: exactly the snapshot, records before lists before the manifest, with type, cache control and sha256 metadata', { timeout: 120_000 }, async () => {
    const { dir } = await snapshot();
    const s3 = await withS3();
    const want = await expected(dir);
    const reader = readerAtFirstView(s3, want);
    const config = join(tempDir(), 'mirror.json');
    writeFileSync(config, JSON.stringify({ push: { cacheControl: 'public, max-age=300' } }));

    const result = await push(s3, dir, ['--config', config]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^push: s3://${BUCKET}/inv/ uploaded ${want.size} files .*deleted 0, 0 unchanged`));
    expect(reader).toEqual({ checked: true, missing: [] });

    const there = await s3.objects(PREFIX);
    expect([...there.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [path, bytes] of want) expect(there.get(path)!.equals(bytes), path).toBe(true);
    const counts = checkOrder(s3.log);
    expect(counts.manifest).toBe(1);
    expect(counts.record + counts.view + counts.manifest).toBe(want.size);

    const head = await s3.head(`${PREFIX}servers.json`);
    expect(head.contentType).toBe('application/json; charset=utf-8');
    expect(head.cacheControl).toBe('public, max-age=300');
    const manifest = (await readManifest(dir))!.table;
    expect(head.metadata.sha256).toBe(manifest.sha256(manifest.indexOf('servers.json')!));

    expect(await verifyBucket(s3)).toMatchObject({ code: 0, stdout: `ok: s3://${BUCKET}/inv/ matches its manifest (${want.size - 1} files)\n` });
  });

  it('no-change push: writes and deletes nothing, in 2 requests and no listing', { timeout: 120_000 }, async () => {
    const { dir } = await snapshot();
    const s3 = await withS3();
    expect((await push(s3, dir)).code).toBe(0);
    s3.log.length = 0;

    const again = await push(s3, dir);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/uploaded 0 files .*deleted 0, .* 2 requests \(0 of them listing\)\n$/);
    expect(requestsOf(s3)).toEqual([`HEAD ${PREFIX}${MANIFEST_FILE}`, `HEAD ${PREFIX}${PENDING_FILE}`]);
  });

  it('a bucket pushed by an earlier version (no signature metadata on its manifest): one push lists and uploads the manifest again, the next is 2 requests', { timeout: 120_000 }, async () => {
    const { dir } = await snapshot();
    const s3 = await withS3();
    expect((await push(s3, dir)).code).toBe(0);
    const manifest = readFileSync(join(dir, MANIFEST_FILE));
    const sha = createHash('sha256').update(manifest).digest('hex');
    await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}${MANIFEST_FILE}`, Body: manifest, Metadata: { sha256: sha } }));

    const upgrade = await push(s3, dir);
    expect(upgrade.code).toBe(0);
    expect(upgrade.stdout).toMatch(/uploaded 1 files .*deleted 0, .*[1-9]\d* of them listing/);
    expect((await s3.head(`${PREFIX}${MANIFEST_FILE}`)).metadata).toEqual({ sha256: sha, signature: 'none' });
    expect((await push(s3, dir)).stdout).toMatch(/uploaded 0 files .* 2 requests \(0 of them listing\)/);
  });

  it('a store that refuses a HEAD of a missing key (S3 without s3:ListBucket): the push lists instead, and changes nothing', { timeout: 120_000 }, async () => {
    const { dir } = await snapshot();
    const s3 = await withS3();
    expect((await push(s3, dir)).code).toBe(0);
    s3.onRequest = (entry) => (entry.method === 'HEAD' && entry.key === `${PREFIX}${PENDING_FILE}` ? { status: 403, code: 'AccessDenied' } : undefined);
    s3.log.length = 0;
    const result = await push(s3, dir);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/uploaded 0 files .*deleted 0, .*[1-9]\d* of them listing/);
    expect(s3.log.filter((e) => e.at === 'start' && kindOf(e) !== undefined)).toEqual([]);
  });

  it('changed push: uploads what changed, deletes what is gone only after the new manifest, keeps foreign files under _meta/', { timeout: 120_000 }, async () => {
    const { dir, upstream } = await snapshot();
    const s3 = await withS3();
    expect((await push(s3, dir)).code).toBe(0);
    const before = await expected(dir);
    await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}stray.json`, Body: '{}\n' }));
    await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}_meta/notes.txt`, Body: 'kept\n' }));

    const report = upstream.mutate({ seed: 4, share: 0.1 });
    expect(report.removed.servers.length).toBeGreaterThan(0);
    await syncInto(upstream, dir);
    const want = await expected(dir);
    const changed = [...want].filter(([path, bytes]) => !before.get(path)?.equals(bytes)).length;
    const gone = [...before.keys()].filter((path) => !want.has(path));
    expect(gone.length).toBeGreaterThan(0);
    s3.log.length = 0;
    const reader = readerAtFirstView(s3, want);

    const result = await push(s3, dir);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`uploaded ${changed} files`);
    expect(result.stdout).toContain(`deleted ${gone.length + 1},`);
    expect(reader).toEqual({ checked: true, missing: [] });
    const counts = checkOrder(s3.log);
    // The changed files, and the marker that tells a later push what this one was changing.
    expect(counts.record + counts.view + counts.manifest).toBe(changed);
    expect(counts.pending).toBe(1);
    expect(counts.delete).toBe(1);

    const there = await s3.objects(PREFIX);
    expect([...there.keys()].sort()).toEqual([...want.keys(), '_meta/notes.txt'].sort());
    for (const [path, bytes] of want) expect(there.get(path)!.equals(bytes), path).toBe(true);
    expect((await verifyBucket(s3)).code).toBe(0);
  });

  it('interrupted push (killed mid-way): the bucket keeps the old manifest, and the next push converges', { timeout: 120_000 }, async () => {
    const { dir, upstream } = await snapshot();
    const s3 = await withS3();
    expect((await push(s3, dir)).code).toBe(0);
    const oldManifest = readFileSync(join(dir, MANIFEST_FILE));
    upstream.mutate({ seed: 7, share: 0.1 });
    await syncInto(upstream, dir);
    const want = await expected(dir);

    const child = startCli(['push', '--dir', dir, '--to', TO, '--endpoint', s3.endpoint, '--path-style', '--concurrency', '1'], { env: s3.env() });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let records = 0;
    s3.onRequest = (entry, request) => {
      if (kindOf(entry) !== 'record' || entry.at !== 'start' || ++records < 3) return;
      child.kill('SIGKILL');
      request.socket.destroy();
    };
    expect(await exited).toBe(null);
    s3.onRequest = undefined;
    const half = await s3.objects(PREFIX);
    expect(half.get(MANIFEST_FILE)!.equals(oldManifest)).toBe(true);
    expect(half.has(PENDING_FILE)).toBe(true);

    const result = await push(s3, dir);
    expect(result.code).toBe(0);
    const there = await s3.objects(PREFIX);
    expect([...there.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [path, bytes] of want) expect(there.get(path)!.equals(bytes), path).toBe(true);
    expect((await verifyBucket(s3)).code).toBe(0);
  });

  it('interrupted first push: the marker goes up before any record, and the next push converges; then a no-change push trusts the bucket', { timeout: 120_000 }, async () => {
    const { dir } = await snapshot();
    const s3 = await withS3();
    const want = await expected(dir);
    const child = startCli(['push', '--dir', dir, '--to', TO, '--endpoint', s3.endpoint, '--path-style', '--concurrency', '1'], { env: s3.env() });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let records = 0;
    s3.onRequest = (entry, request) => {
      if (kindOf(entry) !== 'record' || entry.at !== 'start' || ++records < 3) return;
      child.kill('SIGKILL');
      request.socket.destroy();
    };
    expect(await exited).toBe(null);
    s3.onRequest = undefined;
    const half = await s3.objects(PREFIX);
    expect(half.has(MANIFEST_FILE)).toBe(false);
    expect(JSON.parse(half.get(PENDING_FILE)!.toString())).toEqual({ format: 1, all: true });

    const result = await push(s3, dir);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/[1-9]\d* of them listing/);
    const there = await s3.objects(PREFIX);
    expect([...there.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [path, bytes] of want) expect(there.get(path)!.equals(bytes), path).toBe(true);
    s3.log.length = 0;
    expect((await push(s3, dir)).stdout).toMatch(/uploaded 0 files .* 2 requests \(0 of them listing\)/);
  });

  it('interrupted deletion phase: the bucket has the new manifest and the marker, and the next push (nothing changed locally) lists and deletes the rest', { timeout: 120_000 }, async () => {
    const { dir } = await snapshot();
    const s3 = await withS3();
    // Left under the prefix by an earlier mirror: the first push deletes them, last.
    for (const key of ['old/1.json', 'old/2.json']) await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}${key}`, Body: '{}\n' }));
    const want = await expected(dir);
    const child = startCli(['push', '--dir', dir, '--to', TO, '--endpoint', s3.endpoint, '--path-style'], { env: s3.env() });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    s3.onRequest = (entry, request) => {
      if (kindOf(entry) !== 'delete' || entry.at !== 'start') return;
      child.kill('SIGKILL');
      request.socket.destroy();
    };
    expect(await exited).toBe(null);
    s3.onRequest = undefined;
    const half = await s3.objects(PREFIX);
    expect(half.get(MANIFEST_FILE)!.equals(want.get(MANIFEST_FILE)!)).toBe(true);
    expect(half.has('old/1.json')).toBe(true);
    expect(half.has(PENDING_FILE)).toBe(true);

    const result = await push(s3, dir);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/uploaded 0 files .*deleted 2, .*[1-9]\d* of them listing/);
    const there = await s3.objects(PREFIX);
    expect([...there.keys()].sort()).toEqual([...want.keys()].sort());
    expect((await verifyBucket(s3)).code).toBe(0);
  });

  it('objects others change under the prefix: a no-change push does not look (2 requests), verify names them, push --full puts the snapshot back', { timeout: 120_000 }, async () => {
    const { dir } = await snapshot();
    const s3 = await withS3();
    expect((await push(s3, dir)).code).toBe(0);
    const want = await expected(dir);
    const [record, other] = [...want.keys()].filter((path) => parseRecordFile(path));
    await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}stray.json`, Body: '{}\n' }));
    await s3.client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}${record}` }));
    // Same size, other bytes, written by another tool (no recorded sha256).
    const forged = Buffer.from(want.get(other!)!.toString('latin1').replace(/[0-9]/, (d) => String((Number(d) + 1) % 10)), 'latin1');
    await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}${other}`, Body: forged }));

    s3.log.length = 0;
    const trusting = await push(s3, dir);
    expect(trusting.code).toBe(0);
    expect(trusting.stdout).toMatch(/uploaded 0 files .*deleted 0, .* 2 requests \(0 of them listing\)/);
    const checked = await verifyBucket(s3);
    expect(checked.code).toBe(1);
    expect(checked.stdout).toBe(`missing: ${record}\naltered: ${other}\nextra: stray.json\n`);
    expect(checked.stderr).toContain(`run inventory-mirror push --full --to ${TO} to put the snapshot back`);

    const full = await push(s3, dir, ['--full']);
    expect(full.code).toBe(0);
    expect(full.stdout).toMatch(/uploaded 2 files .*deleted 1, /);
    const there = await s3.objects(PREFIX);
    expect([...there.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [path, bytes] of want) expect(there.get(path)!.equals(bytes), path).toBe(true);
    expect((await verifyBucket(s3)).code).toBe(0);
  });

  it('failing pushes: one line naming the bucket, the key and the store\'s code, exit 1, no secret shown, the old manifest kept', { timeout: 120_000 }, async () => {
    const { dir, upstream } = await snapshot();
    const s3 = await withS3();
    const secret = 'wrong-secret-7c1e9b5d3a';
    const wrongKey = await push(s3, dir, [], { AWS_ACCESS_KEY_ID: 'UNKNOWNKEY', AWS_SECRET_ACCESS_KEY: secret });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/^inventory-mirror push: cannot list s3:\/\/mirror\/inv\/: InvalidAccessKeyId \(HTTP 403\); [^\n]*AWS_ACCESS_KEY_ID[^\n]*\n$/);
    expect(`${wrongKey.stdout}${wrongKey.stderr}`).not.toContain(secret);

    const noBucket = await runCli(['push', '--dir', dir, '--to', 's3://no-such-bucket/inv', '--endpoint', s3.endpoint, '--path-style'], { env: s3.env() });
    expect(noBucket.code).toBe(1);
    expect(noBucket.stderr).toMatch(/^inventory-mirror push: cannot list s3:\/\/no-such-bucket\/inv\/: NoSuchBucket \(HTTP 404\); create the bucket[^\n]*\n$/);

    expect((await push(s3, dir)).code).toBe(0);
    const oldManifest = readFileSync(join(dir, MANIFEST_FILE));
    upstream.mutate({ seed: 9, share: 0.1 });
    await syncInto(upstream, dir);
    let refused: string | undefined;
    s3.onRequest = (entry) => {
      if (refused || kindOf(entry) !== 'record' || entry.at !== 'start') return;
      refused = entry.key;
      return { status: 403, code: 'AccessDenied' };
    };
    const denied = await push(s3, dir, ['--concurrency', '1']);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toBe(`inventory-mirror push: cannot write s3://mirror/${refused}: AccessDenied (HTTP 403); the credentials may not do this: grant the permissions in docs/object-storage.md\n`);
    s3.onRequest = undefined;
    expect((await s3.objects(PREFIX)).get(MANIFEST_FILE)!.equals(oldManifest)).toBe(true);
    expect((await push(s3, dir)).code).toBe(0);
    expect((await verifyBucket(s3)).code).toBe(0);
  });

  it('a signed snapshot: the signature goes up right after the manifest, and verify --public-key checks it in the bucket', { timeout: 120_000 }, async () => {
    const upstream = await useUpstream();
    const keys = join(tempDir(), 'mirror');
    const pair = generateKeyPair();
    writeFileSync(`${keys}.key`, pair.privatePem, { mode: 0o600 });
    writeFileSync(`${keys}.pub`, pair.publicPem);
    const dir = tempDir();
    await syncInto(upstream, dir, { signingKey: loadPrivateKey(`${keys}.key`) });
    const s3 = await withS3();
    expect((await push(s3, dir)).code).toBe(0);
    const writes = s3.log.filter((e) => e.at === 'start' && e.method === 'PUT').map((e) => e.key.slice(PREFIX.length));
    expect(writes.slice(-2)).toEqual([MANIFEST_FILE, SIGNATURE_FILE]);
    // The manifest records its signature's sha256: one HEAD tells both are current.
    expect((await s3.head(`${PREFIX}${MANIFEST_FILE}`)).metadata.signature).toBe(createHash('sha256').update(readFileSync(join(dir, SIGNATURE_FILE))).digest('hex'));
    expect((await push(s3, dir)).stdout).toMatch(/uploaded 0 files .* 2 requests \(0 of them listing\)/);
    const signed = await runCli(['verify', '--dir', TO, '--endpoint', s3.endpoint, '--path-style', '--public-key', `${keys}.pub`], { env: s3.env() });
    expect(signed).toMatchObject({ code: 0, stdout: expect.stringContaining(`signed by key ${pair.keyId}`) });

    await s3.client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}${SIGNATURE_FILE}` }));
    const unsigned = await runCli(['verify', '--dir', TO, '--endpoint', s3.endpoint, '--path-style', '--public-key', `${keys}.pub`], { env: s3.env() });
    expect(unsigned.code).toBe(1);
    expect(unsigned.stdout).toContain(`signature: ${SIGNATURE_FILE} is missing`);
  });

  it('verify --dir s3://... names a missing, an altered (same size, other bytes) and an extra object', { timeout: 120_000 }, async () => {
    const { dir } = await snapshot();
    const s3 = await withS3();
    expect((await push(s3, dir)).code).toBe(0);
    const want = await expected(dir);
    const [record, other] = [...want.keys()].filter((path) => parseRecordFile(path));
    const original = want.get(record!)!;
    // Same size, other bytes, and no recorded sha256: verify must read it to find out.
    const forged = Buffer.from(original.toString('latin1').replace(/[0-9]/, (d) => String((Number(d) + 1) % 10)), 'latin1');
    await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}${record}`, Body: forged }));
    await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}stray.json`, Body: '{}\n' }));
    await s3.client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}${other}` }));

    const result = await verifyBucket(s3);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(`missing: ${other}\naltered: ${record}\nextra: stray.json\n`);
    expect(result.stderr).toContain('1 missing, 1 altered, 1 extra');
  });

  it('paths: a bucket manifest naming paths outside the snapshot is not followed; a local one is refused', { timeout: 120_000 }, async () => {
    const { dir } = await snapshot();
    const s3 = await withS3();
    const hostile = readFileSync(join(dir, MANIFEST_FILE), 'utf8').replace('"files": {', '"files": {\n    "../../outside.json": {\n      "sha256": "' + '0'.repeat(64) + '",\n      "size": 3\n    },');
    await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}${MANIFEST_FILE}`, Body: hostile }));
    expect((await push(s3, dir)).code).toBe(0);
    expect((await verifyBucket(s3)).code).toBe(0);

    const damaged = tempDir();
    cpSync(dir, damaged, { recursive: true });
    writeFileSync(join(damaged, MANIFEST_FILE), hostile);
    const refused = await push(s3, damaged);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/manifest\.json: "\.\.\/\.\.\/outside\.json" is not a path of a snapshot/);
  });
});

describe('sync --push', () => {
  it('pushes after publishing; a failed push exits 3 and keeps the local snapshot', { timeout: 120_000 }, async () => {
    const upstream = await useUpstream();
    const s3 = await withS3();
    const dir = tempDir();
    const config = join(tempDir(), 'mirror.json');
    writeFileSync(config, JSON.stringify({ push: { endpoint: s3.endpoint, pathStyle: true } }));
    const args = ['sync', '--base-url', upstream.url, '--out', dir, '--config', config, '--push', TO, '--quiet'];

    const ok = await runCli(args, { env: s3.env({ INVENTORY_API_TOKEN: TOKEN }) });
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    const want = await expected(dir);
    const there = await s3.objects(PREFIX);
    expect([...there.keys()].sort()).toEqual([...want.keys()].sort());

    upstream.mutate({ seed: 3, share: 0.1 });
    const failed = await runCli(args, { env: s3.env({ INVENTORY_API_TOKEN: TOKEN, AWS_ACCESS_KEY_ID: 'UNKNOWNKEY' }) });
    expect(failed.code).toBe(3);
    expect(failed.stderr).toMatch(new RegExp(`^inventory-mirror sync: ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is published, but the push to s3://mirror/inv/ failed: cannot list s3://mirror/inv/: InvalidAccessKeyId`));
    expect(failed.stderr.trim().split('\n')).toHaveLength(1);
    expect((await runCli(['verify', '--dir', dir])).code).toBe(0);
    expect(readFileSync(join(dir, MANIFEST_FILE)).equals(want.get(MANIFEST_FILE)!)).toBe(false);
  });
});

describe('schedule --push', () => {
  it('pushes after each run it publishes', { timeout: 120_000 }, async () => {
    const upstream = await useUpstream();
    const s3 = await withS3();
    const dir = tempDir();
    const config = join(tempDir(), 'mirror.json');
    writeFileSync(config, JSON.stringify({ push: { to: TO, endpoint: s3.endpoint, pathStyle: true } }));
    // A cron far away: only the run at start happens.
    const child = startCli(['schedule', '--cron', '0 0 1 1 *', '--run-at-start', '--base-url', upstream.url, '--out', dir, '--config', config], { env: s3.env({ INVENTORY_API_TOKEN: TOKEN }) });
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 90_000;
      while (!stdout.includes('\n') && child.exitCode === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(JSON.parse(stdout.split('\n')[0]!)).toMatchObject({ event: 'run', status: 'ok' });
      const there = await s3.objects(PREFIX);
      const want = await expected(dir);
      expect([...there.keys()].sort()).toEqual([...want.keys()].sort());
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
