/** Runs the built CLI (`dist/cli.js`) as a child process, without blocking the test's event loop. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export const CLI = resolve(import.meta.dirname, '../../dist/cli.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `node dist/cli.js ...args` to completion (bounded by `timeoutMs`). */
export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...options.env }, cwd: options.cwd, timeout: options.timeoutMs ?? 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      done({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Starts the CLI and leaves it running; the caller stops it. */
export function startCli(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...options.env }, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
}
