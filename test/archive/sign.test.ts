/**
 * Ed25519 signing through the built CLI: keygen, sync --sign-key (byte-stable re-sync),
 * verify --public-key on folders and archives, and a missing, wrong or tampered signature.
 */
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MANIFEST_FILE, SIGNATURE_FILE } from '../../src/snapshot/paths.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { treeState } from '../helpers/tree.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';

const upstream = await useUpstream({ scale: 30 });
const env = { INVENTORY_API_TOKEN: TOKEN };
// The keys serve the whole file: a folder asked for at the top level stays until its tests end.
const keys = join(tempDir('im-keys-'), 'mirror');

beforeAll(async () => {
  const made = await runCli(['keygen', '--out', keys]);
  expect(made.code).toBe(0);
});

async function signedSync(): Promise<string> {
  const out = join(tempDir(), 'out');
  const result = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--sign-key', `${keys}.key`, '--quiet'], { env });
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return out;
}

describe('keygen', { timeout: 30_000 }, () => {
  it('writes PREFIX.key (0600, PKCS8) and PREFIX.pub (SPKI), and never overwrites', async () => {
    expect(statSync(`${keys}.key`).mode & 0o777).toBe(0o600);
    expect(readFileSync(`${keys}.key`, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(readFileSync(`${keys}.pub`, 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    const before = readFileSync(`${keys}.key`);
    const again = await runCli(['keygen', '--out', keys]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^inventory-mirror keygen: .*mirror\.key already exists; keygen never overwrites a key/);
    expect(readFileSync(`${keys}.key`).equals(before)).toBe(true);
  });
});

describe('signed snapshots', { timeout: 30_000 }, () => {
  it('sync --sign-key writes the signature; an unchanged re-sync changes no byte and no mtime; verify --public-key passes', async () => {
    const out = await signedSync();
    const sig = JSON.parse(readFileSync(join(out, SIGNATURE_FILE), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(sig)).toEqual(['format', 'algorithm', 'keyId', 'manifestSha256', 'signature']);
    // Run metadata (last-sync, caches) changes every run by design; the snapshot and its signature must not.
    const snapshotState = async (): Promise<[string, unknown][]> => {
      const listed = new Set([...Object.keys((JSON.parse(readFileSync(join(out, MANIFEST_FILE), 'utf8')) as { files: object }).files), MANIFEST_FILE, SIGNATURE_FILE]);
      return [...(await treeState(out))].filter(([path]) => listed.has(path));
    };
    const before = await snapshotState();
    expect(before.map(([p]) => p)).toContain(SIGNATURE_FILE);
    const again = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--sign-key', `${keys}.key`, '--quiet'], { env });
    expect(again.code).toBe(0);
    expect(await snapshotState()).toEqual(before);
    const verified = await runCli(['verify', '--dir', out, '--public-key', `${keys}.pub`]);
    expect(verified).toMatchObject({ code: 0, stderr: '' });
    expect(verified.stdout).toMatch(/^ok: .* matches its manifest \(\d+ files, signed by key [0-9a-f]{16}\)\n$/);
  });

  it('fails on a wrong key, a tampered signature, a tampered manifest and a missing signature, naming the file', async () => {
    const out = await signedSync();
    const other = join(tempDir('im-keys-'), 'other');
    expect((await runCli(['keygen', '--out', other])).code).toBe(0);
    const wrong = await runCli(['verify', '--dir', out, '--public-key', `${other}.pub`]);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toMatch(/^signature: _meta\/manifest\.sig was made with key [0-9a-f]{16}, not with the public key given/);

    const sigPath = join(out, SIGNATURE_FILE);
    const sig = JSON.parse(readFileSync(sigPath, 'utf8')) as { signature: string };
    const flipped = Buffer.from(sig.signature, 'base64');
    flipped[0]! ^= 1;
    writeFileSync(sigPath, `${JSON.stringify({ ...sig, signature: flipped.toString('base64') }, null, 2)}\n`);
    const tampered = await runCli(['verify', '--dir', out, '--public-key', `${keys}.pub`]);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toContain('signature: _meta/manifest.sig does not verify: the signature was altered');

    rmSync(sigPath);
    const missing = await runCli(['verify', '--dir', out, '--public-key', `${keys}.pub`]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('signature: _meta/manifest.sig is missing');
    // Without a key, verify does not look at signatures at all.
    expect((await runCli(['verify', '--dir', out])).code).toBe(0);

    const resigned = await signedSync();
    const manifest = readFileSync(join(resigned, MANIFEST_FILE), 'utf8');
    writeFileSync(join(resigned, MANIFEST_FILE), manifest.replace('"format": 1', '"format": 1 '));
    const edited = await runCli(['verify', '--dir', resigned, '--public-key', `${keys}.pub`]);
    expect(edited.code).toBe(1);
    expect(edited.stdout).toContain('signature: _meta/manifest.json does not match its signature _meta/manifest.sig');
  });

  it('a sync without the key drops a signature of an earlier manifest, with a warning', async () => {
    const out = await signedSync();
    upstream.mutate({ seed: 3, share: 0.1 });
    const result = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--quiet'], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/warning: removed _meta\/manifest\.sig: it signed an earlier manifest/);
  });

  it('pack --sign-key signs the archive; verify --archive and unpack --public-key check it', async () => {
    const out = join(tempDir(), 'plain');
    expect((await runCli(['sync', '--base-url', upstream.url, '--out', out, '--quiet'], { env })).code).toBe(0);
    const archive = join(tempDir(), 'snap.tar.gz');
    const packed = await runCli(['pack', '--dir', out, '--out', archive, '--sign-key', `${keys}.key`]);
    expect(packed).toMatchObject({ code: 0, stderr: '' });
    expect(packed.stdout).toMatch(/^packed \d+ files of .* \(\d+ bytes, signed\)\n$/);
    const ok = await runCli(['verify', '--archive', archive, '--public-key', `${keys}.pub`]);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    const target = join(tempDir(), 'restored');
    const unpacked = await runCli(['unpack', archive, '--dir', target, '--public-key', `${keys}.pub`]);
    expect(unpacked).toMatchObject({ code: 0, stderr: '' });
    expect((await runCli(['verify', '--dir', target, '--public-key', `${keys}.pub`])).code).toBe(0);

    const unsigned = join(tempDir(), 'unsigned.tar.gz');
    expect((await runCli(['pack', '--dir', out, '--out', unsigned])).code).toBe(0);
    const refused = await runCli(['unpack', unsigned, '--dir', join(tempDir(), 'x'), '--public-key', `${keys}.pub`]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^inventory-mirror unpack: .*unsigned\.tar\.gz: _meta\/manifest\.sig is missing.*nothing was unpacked\n$/);
    const noSig = await runCli(['verify', '--archive', unsigned, '--public-key', `${keys}.pub`]);
    expect(noSig.code).toBe(1);
    expect(noSig.stdout).toContain('signature: _meta/manifest.sig is missing');
    // Over the unsigned snapshot it came from, the signature lands with the manifest it signs.
    expect(await runCli(['unpack', archive, '--dir', out, '--public-key', `${keys}.pub`])).toMatchObject({ code: 0, stderr: '' });
    expect((await runCli(['verify', '--dir', out, '--public-key', `${keys}.pub`])).code).toBe(0);
  });

  it('bad key files and flags are one-line usage/config errors (exit 2)', async () => {
    const out = join(tempDir(), 'o');
    const pubAsPrivate = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--sign-key', `${keys}.pub`], { env });
    expect(pubAsPrivate.code).toBe(2);
    expect(pubAsPrivate.stderr).toMatch(/^inventory-mirror sync: --sign-key .*mirror\.pub: not a private key in PEM form/);
    const privAsPublic = await runCli(['verify', '--dir', out, '--public-key', `${keys}.key`]);
    expect(privAsPublic.code).toBe(2);
    expect(privAsPublic.stderr).toMatch(/holds a private key; pass the public one/);
    const both = await runCli(['verify', '--dir', out, '--archive', 'x.tar.gz']);
    expect(both.code).toBe(2);
    expect((await runCli(['pack', '--dir', out])).stderr).toMatch(/--out FILE is required/);
  });
});
