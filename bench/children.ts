/**
 * The bench's child processes: each runs in its own process group so that a timeout, a failure
 * or Ctrl-C of the bench ends it and everything it started (curl, xargs, the sync under
 * /usr/bin/time), by id; wall time, peak RSS and CPU time are measured from outside.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const running = new Set<ChildProcess>();

const TIME_BIN = '/usr/bin/time';

/** How a finished child went. */
export interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  /** Peak resident set size in bytes, when measured. */
  peakRssBytes?: number;
  /** CPU time in user and kernel mode, all threads, when measured through /usr/bin/time. */
  cpuMs?: { user: number; system: number };
  timedOut: boolean;
}

export interface ChildOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs: number;
  /**
   * Measure peak RSS and CPU time: through /usr/bin/time -v when present, else peak RSS alone by
   * polling /proc VmHWM.
   */
  measure?: boolean;
}

/** Ends a child and its process group; quiet when it is already gone. */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/** Ends every child still running (the bench's finally and signal handlers). */
export function stopAllChildren(): void {
  for (const child of running) stopChild(child, 'SIGKILL');
  running.clear();
}

/** Starts a tracked child in its own process group; stdin is a pipe, stdout and stderr are captured by the caller. */
export function startChild(command: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string }): ChildProcess {
  const child = spawn(command, args, { env: options.env, cwd: options.cwd, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Peak RSS in bytes and CPU time in ms from the report of `/usr/bin/time -v`. */
export function parseTimeReport(stderr: string): Pick<ChildResult, 'peakRssBytes' | 'cpuMs'> {
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
  const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
  const system = /System time \(seconds\): ([\d.]+)/.exec(stderr);
  return {
    ...(rss ? { peakRssBytes: Number(rss[1]) * 1024 } : {}),
    ...(user && system ? { cpuMs: { user: Math.round(Number(user[1]) * 1000), system: Math.round(Number(system[1]) * 1000) } } : {}),
  };
}

function readHwm(pid: number): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Runs a command to its end (or its timeout), timed by wall clock. */
export function runChild(command: string, args: string[], options: ChildOptions): Promise<ChildResult> {
  const useTime = options.measure === true && existsSync(TIME_BIN);
  const [bin, argv] = useTime ? [TIME_BIN, ['-v', command, ...args]] : [command, args];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = startChild(bin, argv, options);
    child.stdin?.end();
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      stopChild(child, 'SIGKILL');
    }, options.timeoutMs);
    let polledRss: number | undefined;
    const poll =
      options.measure && !useTime
        ? setInterval(() => {
            const hwm = child.pid === undefined ? undefined : readHwm(child.pid);
            if (hwm !== undefined) polledRss = Math.max(polledRss ?? 0, hwm);
          }, 50)
        : undefined;
    child.once('error', (error) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      const wallMs = Math.round(performance.now() - started);
      const measured = useTime ? parseTimeReport(stderr) : polledRss === undefined ? {} : { peakRssBytes: polledRss };
      resolve({ code, stdout, stderr, wallMs, timedOut, ...measured });
    });
  });
}
