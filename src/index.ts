/**
 * inventory-mirror as a library: the same operations as the commands, with typed options whose
 * every setting but the essentials has a default, and the errors they throw, each with a stable
 * `code`. Everything else in the package is internal (see CHANGELOG.md for what stays stable).
 *
 *     import { sync, verify } from 'inventory-mirror';
 *     const result = await sync({ baseUrl: 'https://cmdb.example.com/api', token, out: '/srv/inventory' });
 */
import { resolve } from 'node:path';
import { packSnapshot, type PackResult } from './archive/pack.js';
import { unpackArchive, type UnpackResult } from './archive/unpack.js';
import { verifyArchive } from './archive/verify.js';
import { loadConfig as readConfig } from './config/load.js';
import type { MirrorConfig } from './config/public.js';
import type { ChangeSet } from './diff/change-set.js';
import { diffFolders } from './diff/read.js';
import { UsageError } from './errors.js';
import { requireFolder } from './publish/output.js';
import { folderSignatureProblem } from './sign/folder.js';
import { loadPrivateKey, loadPublicKey } from './sign/keys.js';
import { problemLines, type VerifyReport } from './verify/report.js';
import { verifyFolder } from './verify/verify.js';

export { sync, type SyncOptions, type SyncResult } from './sync/index.js';
export type { FileCounts, FindingsSummary, GroupSummary, ThrottleSummary } from './sync/result.js';
export type { Progress } from './sync/progress.js';
export { startServe as serve, type ServeOptions, type RunningServe, type ServedSnapshot } from './serve/index.js';
export type { FilterValuesInput, MirrorConfig, RedactionInput, ResourceRedactionInput, SyncSettings, SyncSettingsInput } from './config/public.js';
export {
  AbortedError,
  ArchiveError,
  BodyTooLargeError,
  ConfigError,
  DeadlineError,
  DiskError,
  GitError,
  HttpStatusError,
  InstallError,
  JournalError,
  KeyExistsError,
  LockedError,
  MassRemovalError,
  MirrorError,
  NameCollisionError,
  NotEmptyError,
  NotSnapshotError,
  OutputError,
  PushError,
  RequestFailedError,
  StrictError,
  TokenRejectedError,
  UsageError,
  ValidationError,
  VerifyError,
  WrongServiceError,
} from './errors.js';
export type { ChangeSet, FieldChange, FindingDelta, ResourceChanges } from './diff/change-set.js';
export type { Log } from './log.js';
export type { VerifyReport } from './verify/report.js';
export type { PackResult } from './archive/pack.js';
export type { UnpackResult } from './archive/unpack.js';

/** Reads and checks a config file (default `config/mirror.json` when present), defaults applied. */
export function loadConfig(path?: string, cwd: string = process.cwd()): MirrorConfig {
  return readConfig(path, cwd).config;
}

/** A folder (`dir`) or an archive made by `pack` (`archive`) checked against its manifest; with `publicKey` (a file), its signature too. */
export async function verify(options: { dir: string; publicKey?: string } | { archive: string; publicKey?: string }): Promise<VerifyReport & { ok: boolean; problems: string[] }> {
  const key = options.publicKey ? loadPublicKey(resolve(options.publicKey), 'publicKey') : undefined;
  let report: VerifyReport;
  if ('archive' in options && options.archive) report = await verifyArchive(resolve(options.archive), key);
  else {
    if (!('dir' in options) || !options.dir) throw new UsageError('verify: give the folder to check (dir) or an archive (archive)');
    const dir = resolve(options.dir);
    await requireFolder(dir);
    report = { ...(await verifyFolder(dir)), signature: key ? await folderSignatureProblem(dir, key) : undefined };
  }
  const problems = problemLines(report);
  return { ...report, ok: problems.length === 0, problems };
}

/** What changed from the snapshot in `old` to the one in `new` (two published folders). */
export function diff(options: { old: string; new: string }): Promise<ChangeSet> {
  return diffFolders(resolve(options.old), resolve(options.new));
}

/** One deterministic `.tar.gz` of the snapshot in `dir`, signed with the private key file `signKey` when given. */
export function pack(options: { dir: string; out: string; signKey?: string }): Promise<PackResult> {
  return packSnapshot({ dir: resolve(options.dir), out: resolve(options.out), ...(options.signKey ? { signKey: loadPrivateKey(resolve(options.signKey), 'signKey') } : {}) });
}

/** Restores an archive made by `pack` into `dir`, checked first (and its signature, with the public key file `publicKey`). */
export function unpack(options: { file: string; dir: string; publicKey?: string }): Promise<UnpackResult> {
  return unpackArchive({ file: resolve(options.file), dir: resolve(options.dir), ...(options.publicKey ? { publicKey: loadPublicKey(resolve(options.publicKey), 'publicKey') } : {}) });
}
