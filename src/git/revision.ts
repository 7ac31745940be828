/**
 * Files of a folder kept in git, as they were at a revision: `git cat-file --batch` in one
 * process, asked for one file at a time, so a change set between two commits reads only the
 * files it compares. For `diff REV1 REV2 --dir out`.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { relative } from 'node:path';
import { ConfigError, GitError, NotSnapshotError } from '../errors.js';
import { MANIFEST_FILE } from '../snapshot/paths.js';
import { childEnv } from '../util/secrets.js';
import { git } from './git.js';

/** A folder at one revision: its files by path inside the folder. */
export class RevisionReader {
  readonly #child: ChildProcessWithoutNullStreams;
  #buffer = Buffer.alloc(0);
  #waiting: { resolve: () => void } | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #failed: Error | undefined;

  private constructor(
    readonly top: string,
    /** The folder inside the repository, `/`-separated, '' for the top. */
    readonly prefix: string,
    readonly revision: string,
  ) {
    this.#child = spawn('git', ['cat-file', '--batch'], { cwd: top, env: childEnv() });
    this.#child.stdout.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#waiting?.resolve();
    });
    this.#child.on('error', (error) => {
      this.#failed = error;
      this.#waiting?.resolve();
    });
    this.#child.on('close', () => {
      this.#failed ??= new GitError('git cat-file ended early');
      this.#waiting?.resolve();
    });
  }

  /** The folder `dir` (inside a git work tree) at `revision`; refuses a revision git does not know. */
  static async open(dir: string, revision: string): Promise<RevisionReader> {
    const top = await git(dir, ['rev-parse', '--show-toplevel']);
    if (top.code !== 0) throw new ConfigError(`--dir ${dir} is not inside a git work tree; diff takes git revisions only of a folder kept in git`);
    const root = top.stdout.trim();
    const known = await git(root, ['rev-parse', '--verify', '--quiet', `${revision}^{commit}`]);
    if (known.code !== 0) throw new ConfigError(`${JSON.stringify(revision)} is not a revision of the repository at ${root} (e.g. HEAD, HEAD~1, a commit hash or a tag)`);
    const prefix = relative(root, dir).split('\\').join('/');
    return new RevisionReader(root, prefix, revision);
  }

  /** A file of the folder at the revision, or undefined when it did not exist then. */
  read(path: string): Promise<Buffer | undefined> {
    const next = this.#queue.then(() => this.#ask(path));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /** The manifest at the revision; NotSnapshotError when the folder held no snapshot then. */
  async manifestBytes(): Promise<Buffer> {
    const bytes = await this.read(MANIFEST_FILE);
    if (!bytes) throw new NotSnapshotError(`${this.prefix || '.'} held no ${MANIFEST_FILE} at ${this.revision}; it was not a published snapshot then`);
    return bytes;
  }

  close(): void {
    this.#child.stdin.end();
  }

  async #ask(path: string): Promise<Buffer | undefined> {
    const spec = `${this.revision}:${this.prefix ? `${this.prefix}/` : ''}${path}`;
    this.#child.stdin.write(`${spec}\n`);
    const header = await this.#take((buffer) => {
      const end = buffer.indexOf(0x0a);
      return end === -1 ? undefined : end + 1;
    });
    const line = header.toString('utf8').trimEnd();
    if (line.endsWith(' missing')) return undefined;
    const match = / (\w+) (\d+)$/.exec(line);
    if (!match) throw new GitError(`git cat-file answered ${JSON.stringify(line)} for ${spec}`);
    if (match[1] !== 'blob') return undefined;
    const size = Number(match[2]);
    const body = await this.#take((buffer) => (buffer.length >= size + 1 ? size + 1 : undefined));
    return body.subarray(0, size);
  }

  /** Waits until `complete` finds the end of the next piece of output, and takes it. */
  async #take(complete: (buffer: Buffer) => number | undefined): Promise<Buffer> {
    for (;;) {
      const end = complete(this.#buffer);
      if (end !== undefined) {
        const piece = this.#buffer.subarray(0, end);
        this.#buffer = this.#buffer.subarray(end);
        return piece;
      }
      if (this.#failed) throw this.#failed;
      await new Promise<void>((resolve) => (this.#waiting = { resolve }));
      this.#waiting = undefined;
    }
  }
}
