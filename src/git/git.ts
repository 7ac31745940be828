/**
 * Commits a published snapshot with the git command line (execFile, no shell): exactly the
 * output folder, with a pathspec so nothing else the user staged goes into the commit.
 */
import { execFile } from 'node:child_process';
import { dirname, relative } from 'node:path';
import fs from 'fs-extra';
import { ConfigError, GitError } from '../errors.js';
import { childEnv } from '../util/secrets.js';

/** Who commits when neither git.author nor the repository's own identity says. */
const DEFAULT_AUTHOR = 'inventory-mirror <inventory-mirror@localhost>';

interface GitOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs git; resolves with the exit code instead of rejecting, so callers decide what is an error. */
export function git(cwd: string, args: string[]): Promise<GitOutput> {
  return new Promise((resolvePromise, reject) => {
    // git and its hooks get our environment without our secrets (a hook may be anyone's script).
    execFile('git', args, { cwd, maxBuffer: 64 * 1024 * 1024, env: childEnv({ GIT_TERMINAL_PROMPT: '0' }) }, (error, stdout, stderr) => {
      if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') return reject(new ConfigError('--git: the git command was not found; install git or drop --git (config git.commit)'));
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolvePromise({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

async function must(cwd: string, args: string[]): Promise<string> {
  const out = await git(cwd, args);
  if (out.code !== 0) {
    const command = args.find((a) => !a.startsWith('-') && !a.includes('=')) ?? '';
    throw new GitError(`git ${command} failed in ${cwd}: ${out.stderr.trim().split('\n')[0] || `exit ${out.code}`}`);
  }
  return out.stdout;
}

/** The nearest folder of `path` that exists (the output folder may not exist before its first sync). */
async function existingFolder(path: string): Promise<string> {
  let dir = path;
  while (!(await fs.stat(dir).catch(() => undefined))?.isDirectory()) {
    const parent = dirname(dir);
    if (parent === dir) return dir;
    dir = parent;
  }
  return dir;
}

/** Checks up front that `out` lies inside a git work tree; a ConfigError (exit 2) naming the fix otherwise. */
export async function checkWorkTree(out: string): Promise<void> {
  const cwd = await existingFolder(out);
  const result = await git(cwd, ['rev-parse', '--is-inside-work-tree']);
  if (result.code !== 0 || result.stdout.trim() !== 'true') {
    throw new ConfigError(`--git: the output folder ${out} is not inside a git work tree; run \`git init\` in it or a parent, or drop --git (config git.commit)`);
  }
}

/** Splits "Name <email>". */
function parseAuthor(author: string): { name: string; email: string } {
  const match = /^([^<>\n]+?) <([^<>\n]+)>$/.exec(author);
  if (!match) throw new ConfigError(`git.author: expected "Name <email>", got ${JSON.stringify(author)}`);
  return { name: match[1]!, email: match[2]! };
}

interface CommitOptions {
  /** Absolute path of the output folder. */
  out: string;
  /** Subject and body of the commit message. */
  message: string;
  /** "Name <email>"; else the repository's identity, else DEFAULT_AUTHOR. */
  author?: string;
}

/** Stages and commits the output folder; resolves to the new commit's hash, or undefined when nothing differs from HEAD. */
export async function commitSnapshot(options: CommitOptions): Promise<string | undefined> {
  const top = (await must(options.out, ['rev-parse', '--show-toplevel'])).trim();
  const spec = relative(top, options.out) || '.';
  await must(top, ['add', '-A', '--', spec]);
  const staged = await git(top, ['diff', '--cached', '--quiet', '--', spec]);
  if (staged.code === 0) return undefined;
  if (staged.code !== 1) throw new GitError(`git diff --cached failed in ${top}: ${staged.stderr.trim().split('\n')[0]}`);
  const identity = options.author ? parseAuthor(options.author) : await repoIdentity(top);
  const config = identity ? ['-c', `user.name=${identity.name}`, '-c', `user.email=${identity.email}`] : [];
  await must(top, [...config, 'commit', '--quiet', '-m', options.message, '--', spec]);
  return (await must(top, ['rev-parse', 'HEAD'])).trim();
}

/** The repository's identity is used when set; else the default, so a fresh machine can commit. */
async function repoIdentity(cwd: string): Promise<{ name: string; email: string } | undefined> {
  const name = await git(cwd, ['config', 'user.name']);
  const email = await git(cwd, ['config', 'user.email']);
  return name.code === 0 && email.code === 0 && name.stdout.trim() && email.stdout.trim() ? undefined : parseAuthor(DEFAULT_AUTHOR);
}
