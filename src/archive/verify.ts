/** `verify --archive`: checks an archive against the manifest inside it without unpacking it. */
import { NotSnapshotError } from '../errors.js';
import type { LoadedKey } from '../sign/keys.js';
import { signatureProblem } from '../sign/signature.js';
import type { VerifyReport } from '../verify/report.js';
import { compareArchive } from './check.js';
import { readArchive } from './read.js';

/** Streams the archive, hashing every entry; throws ArchiveError on a refused entry. */
export async function verifyArchive(file: string, publicKey?: LoadedKey): Promise<VerifyReport> {
  const contents = await readArchive(file);
  const report = compareArchive(contents);
  if (report.noManifest) throw new NotSnapshotError(`${file} holds no valid _meta/manifest.json; it is not an archive made by \`inventory-mirror pack\``);
  const signature = publicKey && contents.manifest ? signatureProblem(contents.manifest, contents.signature, publicKey) : undefined;
  return { ...report, signature };
}
