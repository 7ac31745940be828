/**
 * Keeps a folder's `_meta/manifest.sig` in step with its manifest after a publish. The file is
 * rewritten (temp file, then rename) only when its bytes change, so an unchanged re-sync writes
 * nothing; a signature left from an earlier manifest is removed rather than left lying.
 */
import { join } from 'node:path';
import fs from 'fs-extra';
import { OutputError } from '../errors.js';
import { MANIFEST_FILE, SIGNATURE_FILE } from '../publish/paths.js';
import type { LoadedKey } from './keys.js';
import { signatureProblem, signManifest, signsManifest } from './signature.js';

/** Reads a folder's manifest and signature bytes (either may be absent). */
export async function readSigned(dir: string): Promise<{ manifest: Buffer | undefined; signature: Buffer | undefined }> {
  const [manifest, signature] = await Promise.all([fs.readFile(join(dir, MANIFEST_FILE)).catch(() => undefined), fs.readFile(join(dir, SIGNATURE_FILE)).catch(() => undefined)]);
  return { manifest, signature };
}

/**
 * Signs the folder's current manifest with `key`, or without a key drops a signature that no
 * longer matches it. Returns a note for the log when it removed one.
 */
export async function updateSignature(dir: string, key: LoadedKey | undefined): Promise<string | undefined> {
  const { manifest, signature } = await readSigned(dir);
  const path = join(dir, SIGNATURE_FILE);
  if (!manifest) throw new OutputError('E_NO_MANIFEST', `${join(dir, MANIFEST_FILE)} is missing; cannot sign the snapshot`);
  if (!key) {
    if (!signature || signsManifest(signature, manifest)) return undefined;
    await fs.rm(path, { force: true });
    return `warning: removed ${SIGNATURE_FILE}: it signed an earlier manifest (pass --sign-key to sign this one)`;
  }
  const bytes = signManifest(manifest, key);
  if (signature?.equals(bytes)) return undefined;
  await fs.writeFile(`${path}.tmp`, bytes);
  await fs.rename(`${path}.tmp`, path);
  return undefined;
}

/** Checks a folder's signature with a public key: undefined when it holds, else the problem. */
export async function folderSignatureProblem(dir: string, publicKey: LoadedKey): Promise<string | undefined> {
  const { manifest, signature } = await readSigned(dir);
  if (!manifest) return `${MANIFEST_FILE} is missing`;
  return signatureProblem(manifest, signature, publicKey);
}
