/**
 * A folder's `_meta/manifest.sig` next to its manifest. Sync publishes the signature in the same
 * journal as the manifest (src/publish/apply.ts), so a crash cannot leave them apart.
 */
import { join } from 'node:path';
import fs from 'fs-extra';
import { MANIFEST_FILE, SIGNATURE_FILE } from '../snapshot/paths.js';
import type { LoadedKey } from './keys.js';
import { signatureProblem } from './signature.js';

/** Reads a folder's manifest and signature bytes (either may be absent). */
export async function readSigned(dir: string): Promise<{ manifest: Buffer | undefined; signature: Buffer | undefined }> {
  const [manifest, signature] = await Promise.all([fs.readFile(join(dir, MANIFEST_FILE)).catch(() => undefined), fs.readFile(join(dir, SIGNATURE_FILE)).catch(() => undefined)]);
  return { manifest, signature };
}

/** Checks a folder's signature with a public key: undefined when it holds, else the problem. */
export async function folderSignatureProblem(dir: string, publicKey: LoadedKey): Promise<string | undefined> {
  const { manifest, signature } = await readSigned(dir);
  if (!manifest) return `${MANIFEST_FILE} is missing`;
  return signatureProblem(manifest, signature, publicKey);
}
