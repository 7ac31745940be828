/** The bench's side of `upstream-proc.js`: start it, read its URL and counts, ask it to mutate, stop it. */
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { upstreamCommand } from '../src/commands/upstream.js';
import type { ResourceName } from '../src/spec/resources.js';
import type { Profile } from './args.js';
import { startChild, stopChild } from './children.js';

const SCRIPT = fileURLToPath(new URL('./upstream-proc.js', import.meta.url));

/** Whether this build's simulated service has data profiles (`upstream --profile`). */
export function upstreamHasProfiles(): boolean {
  return 'profile' in upstreamCommand.options;
}

/** A running simulated service in its own process. */
export interface UpstreamChild {
  url: string;
  /** Its process id, for reading its memory. */
  pid: number;
  counts: Record<ResourceName, number>;
  /** From its start to its first line: generating the data and listening. */
  readyMs: number;
  /** Changes `share` of the records; resolves with what changed. */
  mutate(share: number, seed: number): Promise<{ added: number; removed: number; changed: number }>;
  stop(): Promise<void>;
}

/** Starts the service at `scale`; rejects when it does not answer within `timeoutMs`. */
export async function startUpstreamChild(options: {
  scale: number;
  seed: number;
  /** Handed on only when set. */
  profile: Profile | undefined;
  token: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** A slow service: mean service time and workers (`upstream --latency-ms --workers`). */
  pacing?: { latencyMs: number; workers: number };
}): Promise<UpstreamChild> {
  const started = performance.now();
  const profile = options.profile === undefined ? [] : ['--profile', options.profile];
  const pacing = options.pacing ? ['--latency-ms', String(options.pacing.latencyMs), '--workers', String(options.pacing.workers)] : [];
  const child: ChildProcess = startChild(process.execPath, [SCRIPT, '--scale', String(options.scale), '--seed', String(options.seed), ...profile, ...pacing], {
    env: { ...options.env, INVENTORY_API_TOKEN: options.token },
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  const waiting: ((line: string) => void)[] = [];
  const early: string[] = [];
  lines.on('line', (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else early.push(line);
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) => reject(new Error(`the bench upstream (scale ${options.scale}) exited (${signal ?? code}): ${stderr.trim().split('\n').pop() ?? ''}`))),
  );
  exited.catch(() => {});
  const nextLine = (timeoutMs: number): Promise<string> => {
    const line = early.shift();
    if (line !== undefined) return Promise.resolve(line);
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      new Promise<string>((resolve) => waiting.push(resolve)),
      exited,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the bench upstream (scale ${options.scale}) did not answer within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
  };

  try {
    const url = /^upstream listening on (http:\/\/\S+)/.exec(await nextLine(options.timeoutMs))?.[1];
    if (!url) throw new Error('the bench upstream printed no URL');
    const readyMs = Math.round(performance.now() - started);
    const { counts } = JSON.parse(await nextLine(options.timeoutMs)) as { counts: Record<ResourceName, number> };
    return {
      url,
      pid: child.pid!,
      counts,
      readyMs,
      async mutate(share, seed) {
        child.stdin!.write(`mutate ${share} ${seed}\n`);
        const answer = JSON.parse(await nextLine(options.timeoutMs)) as { mutated?: { added: number; removed: number; changed: number }; counts?: Record<ResourceName, number>; error?: string };
        if (!answer.mutated) throw new Error(`the bench upstream refused to mutate: ${answer.error ?? 'no answer'}`);
        if (answer.counts) Object.assign(counts, answer.counts);
        return answer.mutated;
      },
      async stop() {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        stopChild(child);
        const timer = setTimeout(() => stopChild(child, 'SIGKILL'), 5_000);
        await gone;
        clearTimeout(timer);
      },
    };
  } catch (error) {
    stopChild(child, 'SIGKILL');
    throw error;
  }
}
