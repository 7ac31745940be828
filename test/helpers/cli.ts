/** Runs the built CLI (`dist/cli.js`) as a user would, and captures what it printed. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `inventory-mirror ...args`; env is added to a minimal environment (no inherited token). */
export function runCli(args: string[], options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number; uid?: number; gid?: number } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env }, cwd: options.cwd, timeout: options.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024, uid: options.uid, gid: options.gid },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
