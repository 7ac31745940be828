/**
 * Runs the built CLI (`dist/cli.js`) as a user would, in a clean environment: PATH and HOME only,
 * plus what the test gives, so a developer's own INVENTORY_API_TOKEN or config never reaches it.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/**
 * Who runs the CLI in a test of file permissions: the test's own user, or, as root (who may
 * write anywhere), "nobody". Undefined when nobody cannot reach the built CLI (a checkout inside
 * a private folder): such a test is skipped rather than failing on MODULE_NOT_FOUND.
 */
export const UNPRIVILEGED: { uid?: number; gid?: number } | undefined = (() => {
  if (process.getuid?.() !== 0) return {};
  const nobody = { uid: 65534, gid: 65534 };
  return spawnSync(process.execPath, [CLI, '--version'], { ...nobody, stdio: 'ignore', timeout: 30_000 }).status === 0 ? nobody : undefined;
})();

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function cleanEnv(env: Record<string, string> | undefined): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env };
}

/** Runs `inventory-mirror ...args` to completion (bounded by `timeoutMs`), as another user with `uid`/`gid`. */
export function runCli(args: string[], options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number; uid?: number; gid?: number } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: cleanEnv(options.env), cwd: options.cwd, timeout: options.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024, uid: options.uid, gid: options.gid }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Starts the CLI and leaves it running; the caller stops it. */
export function startCli(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], { env: cleanEnv(options.env), cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
}
