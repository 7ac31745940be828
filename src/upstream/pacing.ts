/**
 * A slow, shared service: each request takes a service time (mean `latencyMs`, log-normal with a
 * tail, drawn from a seeded stream so that runs replay alike) and holds one of `workers`
 * meanwhile; the others wait in a queue, and once more than QUEUE_PER_WORKER × workers wait, the
 * service answers 503 with Retry-After, as an overloaded app server behind its proxy does.
 */
import { createRng, type Rng } from './random.js';

/** How slow and how narrow the service is; both off by default. */
export interface PacingOptions {
  /** Mean service time per request in milliseconds (default 0). */
  latencyMs?: number;
  /** Requests served at once (default unlimited). */
  workers?: number;
}

/** The spread (σ of the log) of service times; their mean stays `latencyMs`. */
const SPREAD = 0.5;
/** The slowest service time, as a multiple of the mean. */
const TAIL_CAP = 10;

/** Requests that may wait per worker before the service refuses more. */
export const QUEUE_PER_WORKER = 4;

/** Admits requests to the workers. */
export interface Pacer {
  /** Calls `serve` once the request has had a worker for its service time; false when the queue is full. */
  admit(serve: () => void): boolean;
  /** Changes the service time and the workers from now on (a service degrading mid-run); checked as at start. */
  set(options: PacingOptions): void;
  /** Drops the timers and the waiting requests (the server is closing). */
  cancel(): void;
}

/** Checks pacing options; a bad value is a RangeError naming the option. */
export function checkPacingOptions(options: PacingOptions): void {
  const { latencyMs, workers } = options;
  if (latencyMs !== undefined && !(Number.isInteger(latencyMs) && latencyMs >= 0)) throw new RangeError(`latencyMs must be a non-negative integer, got ${latencyMs}`);
  if (workers !== undefined && !(Number.isInteger(workers) && workers >= 1)) throw new RangeError(`workers must be a positive integer, got ${workers}`);
}

/**
 * One service time around a mean of `latencyMs`: log-normal, as response times of a web
 * application are, most near the median and a long tail of slow ones (about 1 in 100 over 3× the
 * mean), cut at TAIL_CAP × the mean.
 */
export function drawServiceTime(rng: Rng, latencyMs: number): number {
  if (latencyMs === 0) return 0;
  const normal = Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
  return Math.round(latencyMs * Math.min(TAIL_CAP, Math.exp(SPREAD * normal - (SPREAD * SPREAD) / 2)));
}

/** A pacer; with neither option set, requests are served at once, as by an unpaced service. */
export function createPacer(options: PacingOptions, seed: number): Pacer {
  const rng = createRng(seed);
  const waiting: (() => void)[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let latencyMs = 0;
  let workers = Number.POSITIVE_INFINITY;
  let busy = 0;

  const serviceTime = (): number => drawServiceTime(rng, latencyMs);
  const start = (serve: () => void): void => {
    busy += 1;
    const timer = setTimeout(() => {
      timers.delete(timer);
      busy -= 1;
      serve();
      drain();
    }, serviceTime());
    timers.add(timer);
  };
  // Fewer workers than requests being served (after `set`) start nothing until enough finish.
  const drain = (): void => {
    while (busy < workers && waiting.length > 0) start(waiting.shift()!);
  };
  const set = (next: PacingOptions): void => {
    checkPacingOptions(next);
    latencyMs = next.latencyMs ?? 0;
    workers = next.workers ?? Number.POSITIVE_INFINITY;
    drain();
  };
  set(options);

  return {
    admit(serve) {
      if (latencyMs === 0 && workers === Number.POSITIVE_INFINITY && waiting.length === 0) serve();
      else if (busy < workers) start(serve);
      else if (waiting.length < workers * QUEUE_PER_WORKER) waiting.push(serve);
      else return false;
      return true;
    },
    set,
    cancel() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      waiting.length = 0;
      busy = 0;
    },
  };
}
