/** Compares what an archive holds with the manifest inside it: pure. */
import { parseManifest } from '../publish/manifest.js';
import { MANIFEST_FILE, SIGNATURE_FILE } from '../publish/paths.js';
import type { ArchiveContents } from './read.js';

export interface ArchiveReport {
  /** Files the manifest lists. */
  files: number;
  missing: string[];
  altered: string[];
  extra: string[];
  /** Set when the archive holds no usable `_meta/manifest.json`. */
  noManifest: boolean;
}

/** Missing, altered and extra entries of an archive against its own manifest. */
export function compareArchive(contents: ArchiveContents): ArchiveReport {
  const manifest = contents.manifest ? parseManifest(contents.manifest) : undefined;
  const present = [...contents.files.keys()].filter((p) => p !== MANIFEST_FILE && p !== SIGNATURE_FILE);
  if (!manifest) return { files: 0, missing: [], altered: [], extra: present.sort(), noManifest: true };
  const listed = Object.keys(manifest.files);
  const altered = listed.filter((path) => {
    const seen = contents.files.get(path);
    const want = manifest.files[path]!;
    return seen !== undefined && (seen.size !== want.size || seen.sha256 !== want.sha256);
  });
  return {
    files: listed.length,
    missing: listed.filter((p) => !contents.files.has(p)).sort(),
    altered: altered.sort(),
    extra: present.filter((p) => manifest.files[p] === undefined).sort(),
    noManifest: false,
  };
}

/** One line per problem, as `verify` prints them. */
export function reportLines(report: Pick<ArchiveReport, 'missing' | 'altered' | 'extra'>): string[] {
  return [...report.missing.map((p) => `missing: ${p}`), ...report.altered.map((p) => `altered: ${p}`), ...report.extra.map((p) => `extra: ${p}`)];
}
