/**
 * Every deliberate failure is a MirrorError with a stable `code` and the exit status the CLI
 * gives it. Only the CLI entry turns them into messages and exit statuses; anything else that
 * escapes is a bug and is reported as one.
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

/** Bad configuration: config file, environment or token set-up. Exit 2. */
export class ConfigError extends MirrorError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('E_CONFIG', message, { exitCode: 2, ...options });
  }
}

/** A request to the service failed for good (after retries where they apply). */
export class RequestError extends MirrorError {
  readonly path: string;
  readonly status: number | undefined;

  constructor(code: string, path: string, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(code, message, { cause: options.cause });
    this.path = path;
    this.status = options.status;
  }
}

/** The service refused the token. Never retried, and the message never carries the token. */
export class TokenRejectedError extends RequestError {
  constructor(path: string, status: number) {
    super('E_TOKEN_REJECTED', path, `the service rejected the token (HTTP ${status} on GET ${path}); check INVENTORY_API_TOKEN or the token file`, { status });
  }
}

/** A structural fault in what the service sent: the snapshot cannot be built from it. */
export class ValidationError extends MirrorError {
  constructor(message: string) {
    super('E_VALIDATION', message);
  }
}

/** The output folder is in a state we must not touch (lock held, damaged journal, ...). */
export class OutputError extends MirrorError {
  constructor(code: string, message: string, options: { cause?: unknown } = {}) {
    super(code, message, options);
  }
}

/** A published folder does not match its manifest. */
export class VerifyError extends MirrorError {
  readonly problems: string[];

  constructor(message: string, problems: string[]) {
    super('E_VERIFY', message);
    this.problems = problems;
  }
}

/** An archive that is malformed or holds something a snapshot never does. */
export class ArchiveError extends MirrorError {
  constructor(file: string, message: string, options: { cause?: unknown } = {}) {
    super('E_ARCHIVE', `${file}: ${message}`, options);
  }
}
