/**
 * `_meta/manifest.sig`: an Ed25519 signature of the exact bytes of `_meta/manifest.json`, as a
 * small JSON file that also names the key and the manifest's sha256. Ed25519 is deterministic,
 * so the same manifest and key give the same file, and an unchanged re-sync stays byte-identical.
 */
import { sign, verify } from 'node:crypto';
import { z } from 'zod';
import { decodeJsonAs, encodeJson } from '../json/encode.js';
import { sha256 } from '../snapshot/manifest.js';
import { MANIFEST_FILE, SIGNATURE_FILE } from '../snapshot/paths.js';
import type { LoadedKey } from './keys.js';

const signatureSchema = z.strictObject({
  format: z.literal(1),
  algorithm: z.literal('ed25519'),
  keyId: z.string().regex(/^[0-9a-f]{16}$/),
  manifestSha256: z.string().regex(/^[0-9a-f]{64}$/),
  signature: z.string().regex(/^[A-Za-z0-9+/]+={0,2}$/),
});

type Signature = z.infer<typeof signatureSchema>;

/** The signature file's bytes for these manifest bytes. */
export function signManifest(manifestBytes: Buffer, privateKey: LoadedKey): Buffer {
  const body: Signature = {
    format: 1,
    algorithm: 'ed25519',
    keyId: privateKey.keyId,
    manifestSha256: sha256(manifestBytes),
    signature: sign(null, manifestBytes, privateKey.key).toString('base64'),
  };
  return encodeJson(body);
}

/** Parses signature file bytes; undefined when they are not a signature of ours. */
function parseSignature(bytes: Buffer): Signature | undefined {
  return decodeJsonAs(bytes, signatureSchema);
}

/** Whether a signature file was made for these manifest bytes (no key needed: by its recorded hash). */
export function signsManifest(sigBytes: Buffer, manifestBytes: Buffer): boolean {
  return parseSignature(sigBytes)?.manifestSha256 === sha256(manifestBytes);
}

/**
 * Checks the signature of a manifest with a public key. Returns undefined when it holds, else
 * one line naming the file at fault (the signature or the manifest) and why.
 */
export function signatureProblem(manifestBytes: Buffer, sigBytes: Buffer | undefined, publicKey: LoadedKey): string | undefined {
  if (!sigBytes) return `${SIGNATURE_FILE} is missing: the snapshot is not signed (sign it with sync --sign-key or pack --sign-key)`;
  const parsed = parseSignature(sigBytes);
  if (!parsed) return `${SIGNATURE_FILE} is not a signature file of inventory-mirror (damaged or replaced)`;
  if (parsed.keyId !== publicKey.keyId) return `${SIGNATURE_FILE} was made with key ${parsed.keyId}, not with the public key given (${publicKey.keyId})`;
  const valid = verify(null, manifestBytes, publicKey.key, Buffer.from(parsed.signature, 'base64'));
  if (valid) return undefined;
  if (parsed.manifestSha256 !== sha256(manifestBytes)) return `${MANIFEST_FILE} does not match its signature ${SIGNATURE_FILE}: the manifest was changed after signing`;
  return `${SIGNATURE_FILE} does not verify: the signature was altered`;
}
