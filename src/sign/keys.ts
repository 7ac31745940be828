/**
 * Ed25519 key files: the private key as PKCS8 PEM, the public key as SPKI PEM. A key id (the
 * first 16 hex digits of the sha256 of the public key's DER form) names a key in signatures and
 * error messages without showing the key itself.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';

export interface LoadedKey {
  key: KeyObject;
  keyId: string;
}

/** The short id of a public (or private) key: sha256 of the SPKI DER, 16 hex digits. */
function keyIdOf(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256').update(pub.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);
}

/** A fresh Ed25519 key pair as PEM text. */
export function generateKeyPair(): { privatePem: string; publicPem: string; keyId: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    keyId: keyIdOf(publicKey),
  };
}

function readKeyFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${what} ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

/** Loads an Ed25519 private key (PKCS8 PEM) for signing; `what` names it in errors (the command line names its flag). */
export function loadPrivateKey(path: string, what = 'the signing key'): LoadedKey {
  const text = readKeyFile(path, what);
  let key: KeyObject;
  try {
    key = createPrivateKey(text);
  } catch {
    throw new ConfigError(`${what} ${path}: not a private key in PEM form; make one with \`inventory-mirror keygen --out PREFIX\` and pass PREFIX.key`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new ConfigError(`${what} ${path}: a ${key.asymmetricKeyType ?? 'unknown'} key; signatures use Ed25519 keys (make one with \`inventory-mirror keygen\`)`);
  return { key, keyId: keyIdOf(key) };
}

/** Loads an Ed25519 public key (SPKI PEM) for checking signatures; `what` names it in errors. */
export function loadPublicKey(path: string, what = 'the public key'): LoadedKey {
  const text = readKeyFile(path, what);
  if (text.includes('PRIVATE KEY')) throw new ConfigError(`${what} ${path}: holds a private key; pass the public one (PREFIX.pub from keygen)`);
  let key: KeyObject;
  try {
    key = createPublicKey(text);
  } catch {
    throw new ConfigError(`${what} ${path}: not a public key in PEM form; pass PREFIX.pub written by \`inventory-mirror keygen\``);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new ConfigError(`${what} ${path}: a ${key.asymmetricKeyType ?? 'unknown'} key; signatures use Ed25519 keys`);
  return { key, keyId: keyIdOf(key) };
}
