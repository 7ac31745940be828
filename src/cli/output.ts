/**
 * Where a command's messages go: levels (`-q` warnings and errors only, default, `-v` detail
 * too), text or JSON lines (`--log-format json`, one object per line for log collectors), and on
 * a terminal a progress line that messages never collide with: it is cleared before a message
 * and drawn again after. Secrets are scrubbed from every line, control characters escaped.
 */
import type { Writable } from 'node:stream';
import type { Log } from '../log.js';
import type { Progress } from '../sync/progress.js';
import { printable } from '../util/printable.js';
import { scrub } from '../util/secrets.js';

export type Verbosity = 'quiet' | 'normal' | 'verbose';
export type LogFormat = 'text' | 'json';

interface OutputOptions {
  stream: Writable;
  /** Whether `stream` is a terminal: the progress line is drawn, and retries get a line each. */
  isTTY: boolean;
  verbosity: Verbosity;
  format: LogFormat;
  /** Names the command in JSON lines. */
  command: string;
  /** Prefix each text line with the time (long-running commands). */
  timestamps?: boolean;
}

/** A Log and a Progress sharing one stream. */
export class Output implements Log {
  readonly #options: OutputOptions;
  #status = '';
  #lastDraw = 0;
  #planned = 0;
  #done = 0;
  #started = Date.now();

  constructor(options: OutputOptions) {
    this.#options = options;
  }

  warn(message: string): void {
    this.#line('warn', message);
  }

  info(message: string): void {
    if (this.#options.verbosity !== 'quiet') this.#line('info', message);
  }

  detail(message: string): void {
    const { verbosity, isTTY, format } = this.#options;
    if (verbosity === 'verbose' || (verbosity === 'normal' && isTTY && format === 'text')) this.#line('detail', message);
  }

  /** A structured event (JSON mode) or its text rendering. */
  event(level: 'info' | 'warn', message: string, fields: Record<string, unknown>): void {
    if (level === 'info' && this.#options.verbosity === 'quiet') return;
    this.#line(level, message, fields);
  }

  /** The progress of a sync, drawn on a terminal (text mode, not quiet) only. */
  get progress(): Progress {
    const { isTTY, verbosity, format } = this.#options;
    if (!isTTY || verbosity === 'quiet' || format !== 'text') return { planned() {}, tick() {}, done() {} };
    return {
      planned: (n) => {
        this.#planned = n;
      },
      tick: () => {
        this.#done++;
        const now = Date.now();
        if (now - this.#lastDraw < 100) return;
        this.#lastDraw = now;
        const rate = this.#done / Math.max((now - this.#started) / 1000, 0.001);
        this.#draw(`requests ${this.#done}/${this.#planned} (${Math.round(rate)}/s${this.#planned > this.#done ? `, about ${formatEta((this.#planned - this.#done) / rate)} left` : ''})`);
      },
      done: () => this.#draw(''),
    };
  }

  #draw(status: string): void {
    if (status === this.#status) return;
    this.#options.stream.write(`\r\x1b[K${status}`);
    this.#status = status;
  }

  #line(level: string, message: string, fields?: Record<string, unknown>): void {
    const { stream, format, command, timestamps } = this.#options;
    const text = scrub(message);
    let line: string;
    if (format === 'json') line = scrub(JSON.stringify({ time: new Date().toISOString(), level, command, message: text, ...fields }));
    else line = `${timestamps ? `${new Date().toISOString()} ` : ''}${level === 'warn' ? 'warning: ' : ''}${printable(text)}`;
    if (this.#status) stream.write(`\r\x1b[K${line}\n${this.#status}`);
    else stream.write(`${line}\n`);
  }
}

/** Seconds left as a person reads them: `40 s`, `3 min`, `1 h 5 min`. */
export function formatEta(seconds: number): string {
  if (seconds < 60) return `${Math.max(1, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
