/** Compares what an archive holds with the manifest inside it: pure. */
import { parseManifest } from '../snapshot/manifest.js';
import { MANIFEST_FILE, SIGNATURE_FILE } from '../snapshot/paths.js';
import type { VerifyReport } from '../verify/report.js';
import type { ArchiveContents } from './read.js';

interface ArchiveReport extends VerifyReport {
  /** Set when the archive holds no usable `_meta/manifest.json`. */
  noManifest: boolean;
}

/** Missing, altered and extra entries of an archive against its own manifest. */
export function compareArchive(contents: ArchiveContents): ArchiveReport {
  const manifest = contents.manifest ? parseManifest(contents.manifest)?.table : undefined;
  const present = [...contents.files.keys()].filter((p) => p !== MANIFEST_FILE && p !== SIGNATURE_FILE);
  if (!manifest) return { files: 0, missing: [], altered: [], extra: present.sort(), noManifest: true };
  const listed = [...manifest.paths()];
  const altered = listed.filter((path) => {
    const seen = contents.files.get(path);
    return seen !== undefined && !manifest.matches(path, seen.sha256, seen.size);
  });
  return {
    files: listed.length,
    missing: listed.filter((p) => !contents.files.has(p)).sort(),
    altered: altered.sort(),
    extra: present.filter((p) => !manifest.has(p)).sort(),
    noManifest: false,
  };
}
