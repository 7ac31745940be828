/**
 * The bench's child processes: each runs in its own process group so that a timeout, a failure
 * or Ctrl-C of the bench ends it and everything it started (curl, xargs, the sync under
 * /usr/bin/time), by id; wall time, peak RSS and CPU time are measured from outside.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { USAGE_FILE_ENV, type Usage } from './usage-on-exit.js';

const running = new Set<ChildProcess>();

const TIME_BIN = '/usr/bin/time';
/** Preloaded into a measured Node child when /usr/bin/time is not installed. */
const USAGE_PRELOAD = new URL('./usage-on-exit.js', import.meta.url).href;
let usageFiles = 0;

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
   * Measure peak RSS and CPU time: through /usr/bin/time -v when present, else (for a Node child)
   * from the child's own process.resourceUsage() at exit.
   */
  measure?: boolean;
  /** The /usr/bin/time to use (default /usr/bin/time; false: as if not installed). */
  timeBin?: string | false;
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

/** The resident set size of a running process now, and its peak so far (Linux), in bytes. */
export function memoryOf(pid: number): { rssBytes?: number; peakRssBytes?: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kB = (field: string): number | undefined => {
      const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
      return match ? Number(match[1]) * 1024 : undefined;
    };
    return { rssBytes: kB('VmRSS'), peakRssBytes: kB('VmHWM') };
  } catch {
    // No /proc (not Linux): ps knows the current RSS, not the peak.
    try {
      const kB = Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim());
      return Number.isFinite(kB) && kB > 0 ? { rssBytes: kB * 1024 } : {};
    } catch {
      return {};
    }
  }
}

/** Peak RSS and CPU time as the preloaded usage-on-exit.js wrote them, then the file removed. */
function readUsageFile(file: string): Pick<ChildResult, 'peakRssBytes' | 'cpuMs'> {
  try {
    const usage = JSON.parse(readFileSync(file, 'utf8')) as Usage;
    return { peakRssBytes: usage.maxRssBytes, cpuMs: { user: usage.userMs, system: usage.systemMs } };
  } catch {
    return {};
  } finally {
    rmSync(file, { force: true });
  }
}

/** Runs a command to its end (or its timeout), timed by wall clock. */
export function runChild(command: string, args: string[], options: ChildOptions): Promise<ChildResult> {
  const timeBin = options.timeBin ?? TIME_BIN;
  const useTime = options.measure === true && timeBin !== false && existsSync(timeBin);
  const usageFile = options.measure === true && !useTime && command === process.execPath ? join(tmpdir(), `im-bench-usage-${process.pid}-${++usageFiles}.json`) : undefined;
  let [bin, argv] = [command, args];
  let env = options.env;
  if (useTime) [bin, argv] = [timeBin, ['-v', command, ...args]];
  else if (usageFile) [argv, env] = [['--import', USAGE_PRELOAD, ...args], { ...env, [USAGE_FILE_ENV]: usageFile }];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = startChild(bin, argv, { env, cwd: options.cwd });
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
    child.once('error', (error) => {
      clearTimeout(timer);
      if (usageFile) rmSync(usageFile, { force: true });
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      const wallMs = Math.round(performance.now() - started);
      const measured = useTime ? parseTimeReport(stderr) : usageFile ? readUsageFile(usageFile) : {};
      resolve({ code, stdout, stderr, wallMs, timedOut, ...measured });
    });
  });
}
