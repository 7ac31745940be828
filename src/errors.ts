/**
 * Every deliberate failure is a MirrorError subclass with one fixed `code` and the exit status the
 * CLI gives it. Only the CLI entry turns them into messages and exit statuses; anything else that
 * escapes is reported as a filesystem problem when it is one (describeFsError), else as a bug.
 */
export class MirrorError extends Error {
  readonly code: string;
  readonly exitCode: number;

  constructor(code: string, message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.exitCode = options.exitCode ?? 1;
  }
}

/** Bad command line: unknown flag, missing argument, malformed value. Exit 2. */
export class UsageError extends MirrorError {
  constructor(message: string) {
    super('E_USAGE', message, { exitCode: 2 });
  }
}

/** Bad configuration: config file, environment, token or key set-up. Exit 2. */
export class ConfigError extends MirrorError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('E_CONFIG', message, { exitCode: 2, ...options });
  }
}

/** A folder (or archive) given to a command is not a published snapshot. Exit 2, for every command. */
export class NotSnapshotError extends MirrorError {
  constructor(message: string) {
    super('E_NOT_SNAPSHOT', message, { exitCode: 2 });
  }
}

/** The output folder (or another target) cannot be used as given: not a folder, unwritable, someone else's files. Exit 2. */
export class OutputError extends MirrorError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('E_OUTPUT', message, { exitCode: 2, ...options });
  }
}

/** The output folder holds files but no snapshot: publishing among them must be allowed (allowNonEmpty). Exit 2. */
export class NotEmptyError extends MirrorError {
  constructor(message: string) {
    super('E_NOT_EMPTY', message, { exitCode: 2 });
  }
}

/** Writing failed while the run was under way (disk full, read-only remount, I/O error). Exit 1. */
export class DiskError extends MirrorError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('E_DISK', message, options);
  }
}

/** Another process holds the folder's lock. */
export class LockedError extends MirrorError {
  constructor(message: string) {
    super('E_LOCKED', message);
  }
}

/** --wait-lock passed and another process still holds the folder's lock: the run was skipped, not failed. Exit 75 (EX_TEMPFAIL: try again later). */
export class SkippedError extends MirrorError {
  constructor(message: string) {
    super('E_SKIPPED', message, { exitCode: 75 });
  }
}

/** A journal left by an interrupted publish cannot be read. */
export class JournalError extends MirrorError {
  constructor(message: string) {
    super('E_JOURNAL', message);
  }
}

/** A request to the service failed for good (after retries where they apply). */
class RequestError extends MirrorError {
  readonly path: string;
  readonly status: number | undefined;

  constructor(code: string, path: string, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(code, message, { cause: options.cause });
    this.path = path;
    this.status = options.status;
  }
}

/** Every attempt at a request failed. */
export class RequestFailedError extends RequestError {
  constructor(path: string, message: string, options: { status?: number; cause?: unknown } = {}) {
    super('E_REQUEST_FAILED', path, message, options);
  }
}

/** The service answered a status the mirror cannot use (not retried). */
export class HttpStatusError extends RequestError {
  constructor(path: string, status: number, message: string) {
    super('E_HTTP_STATUS', path, message, { status });
  }
}

/** The base URL does not lead to the API: an HTML page, a redirect to a login page. */
export class WrongServiceError extends RequestError {
  constructor(path: string, message: string, options: { status?: number } = {}) {
    super('E_WRONG_SERVICE', path, message, options);
  }
}

/** The service refused the token. Never retried, and the message never carries the token. */
export class TokenRejectedError extends RequestError {
  /** `from`: where the token came from (the command line knows), e.g. `the token file /etc/x (--token-file)`. */
  constructor(path: string, status: number, from?: string) {
    super('E_TOKEN_REJECTED', path, `the service rejected the token (HTTP ${status} on GET ${path}); check ${from ?? 'INVENTORY_API_TOKEN or the token file'}`, { status });
  }
}

/** A body over sync.maxBodyBytes. */
export class BodyTooLargeError extends RequestError {
  constructor(path: string, message: string) {
    super('E_BODY_TOO_LARGE', path, message);
  }
}

/** The sync's deadline passed. */
export class DeadlineError extends RequestError {
  constructor(path: string, message: string) {
    super('E_DEADLINE', path, message);
  }
}

/** The run was stopped (a signal, a shutdown) before it published; the folder keeps its snapshot. */
export class AbortedError extends MirrorError {
  constructor(message: string, options: { exitCode?: number } = {}) {
    super('E_ABORTED', message, options);
  }
}

/** A structural fault in what the service sent: the snapshot cannot be built from it. */
export class ValidationError extends MirrorError {
  constructor(message: string) {
    super('E_VALIDATION', message);
  }
}

/** A strict sync met findings the configuration does not accept; `patterns` would accept them. */
export class StrictError extends MirrorError {
  readonly count: number;
  readonly patterns: readonly string[];

  constructor(problem: { message: string; count: number; patterns: readonly string[] }) {
    super('E_STRICT', problem.message);
    this.count = problem.count;
    this.patterns = problem.patterns;
  }
}

/** A resource would lose more of its records than sync.massRemoval allows; nothing was published. */
export class MassRemovalError extends MirrorError {
  readonly resource: string;
  readonly lost: number;
  readonly before: number;
  readonly maxShare: number;

  constructor(problem: { resource: string; lost: number; before: number; maxShare: number }) {
    const { resource, lost, before, maxShare } = problem;
    super('E_MASS_REMOVAL', `${resource} would lose ${lost} of ${before} records (${Math.round((lost / before) * 100)}%, over the ${Math.round(maxShare * 100)}% allowed by sync.massRemoval.maxShare); nothing was published`);
    this.resource = resource;
    this.lost = lost;
    this.before = before;
    this.maxShare = maxShare;
  }
}

/** Two records (or views) would be written to one file name. */
export class NameCollisionError extends MirrorError {
  constructor(message: string) {
    super('E_NAME_COLLISION', message);
  }
}

/** A git command failed while committing a snapshot. */
export class GitError extends MirrorError {
  constructor(message: string) {
    super('E_GIT', message);
  }
}

/** An archive is malformed or holds something a snapshot never does. */
export class ArchiveError extends MirrorError {
  constructor(file: string, message: string, options: { cause?: unknown } = {}) {
    super('E_ARCHIVE', `${file}: ${message}`, options);
  }
}

/** A published folder does not match its manifest (verify, pack). */
export class VerifyError extends MirrorError {
  readonly problems: string[];

  constructor(message: string, problems: string[]) {
    super('E_VERIFY', message);
    this.problems = problems;
  }
}

/**
 * Object storage refused or failed a request of push (or of verify on a bucket): names the bucket,
 * the key and the store's own error code (AccessDenied, NoSuchBucket, InvalidAccessKeyId, ...).
 * Exit 1; `sync --push` gives 3, the snapshot being published locally all the same.
 */
export class PushError extends MirrorError {
  readonly bucket: string;
  readonly key: string | undefined;
  readonly storeCode: string | undefined;

  constructor(problem: { bucket: string; key?: string | undefined; storeCode?: string | undefined; message: string }, options: { exitCode?: number; cause?: unknown } = {}) {
    super('E_PUSH', problem.message, options);
    this.bucket = problem.bucket;
    this.key = problem.key;
    this.storeCode = problem.storeCode;
  }
}

/** A key file that keygen would overwrite. */
export class KeyExistsError extends MirrorError {
  constructor(message: string) {
    super('E_KEY_EXISTS', message);
  }
}

/** A file the build should have made is missing from the installed package (the offline page's script). */
export class InstallError extends MirrorError {
  constructor(message: string) {
    super('E_INSTALL', message);
  }
}

/**
 * An answer that came with status 200 but cannot be used (wrong envelope, not JSON, cut short):
 * a fault of that request, retried like a 503. Not a MirrorError: it never reaches the user as is.
 */
export class BodyFault extends Error {}

const FS_PROBLEMS: Record<string, string> = {
  ENOENT: 'does not exist',
  EACCES: 'is not accessible to this user (permission denied); check its owner and mode',
  EPERM: 'may not be changed by this user (operation not permitted)',
  ENOSPC: 'cannot be written: no space left on its device',
  EDQUOT: 'cannot be written: the disk quota is exhausted',
  EROFS: 'is on a read-only file system',
  ENOTDIR: 'has a parent that is a file, not a folder',
  EISDIR: 'is a folder where a file was expected',
  EEXIST: 'already exists',
  ENOTEMPTY: 'is a folder that is not empty',
  EMFILE: 'cannot be opened: too many open files (raise the limit with ulimit -n)',
  ENAMETOOLONG: 'has a name that is too long',
  EIO: 'could not be read or written: an I/O error of its device',
  ELOOP: 'is a symbolic link loop',
  EXDEV: 'cannot be renamed across file systems',
};

/** A filesystem error while `doing` something as a DiskError (exit 1) naming the path; undefined for any other error. */
export function fsFailure(error: unknown, doing: string): DiskError | undefined {
  const described = describeFsError(error);
  return described === undefined ? undefined : new DiskError(`${doing}: ${described}`, { cause: error });
}

/** A one-line message for a filesystem error (one that carries an errno code and a path), else undefined. */
export function describeFsError(error: unknown): string | undefined {
  const { code, path, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  if (typeof code !== 'string' || typeof path !== 'string') return undefined;
  const problem = FS_PROBLEMS[code];
  return problem ? `${path} ${problem} (${syscall ?? 'fs'} ${code})` : `${syscall ?? 'fs'} failed on ${path} (${code})`;
}
