/** `verify --archive`: checks an archive against the manifest inside it without unpacking it. */
import type { LoadedKey } from '../sign/keys.js';
import { signatureProblem } from '../sign/signature.js';
import { compareArchive, type ArchiveReport } from './check.js';
import { readArchive } from './read.js';

export interface ArchiveVerifyReport extends ArchiveReport {
  /** With a public key: why the signature does not hold, or undefined when it does. */
  signature: string | undefined;
}

/** Streams the archive, hashing every entry; throws ArchiveError on a refused entry. */
export async function verifyArchive(file: string, publicKey?: LoadedKey): Promise<ArchiveVerifyReport> {
  const contents = await readArchive(file);
  const report = compareArchive(contents);
  const signature = publicKey && contents.manifest && !report.noManifest ? signatureProblem(contents.manifest, contents.signature, publicKey) : undefined;
  return { ...report, signature };
}
