/**
 * Progress on a terminal: one line, rewritten at most a few times a second. Silent otherwise, so
 * logs and cron mail carry only the summary.
 */
import type { Writable } from 'node:stream';

export interface Progress {
  planned(total: number): void;
  tick(): void;
  done(): void;
}

export const silentProgress: Progress = { planned() {}, tick() {}, done() {} };

/** A progress line on `stream` (a TTY): `requests 1234/36000 (5210/s)`. */
export function terminalProgress(stream: Writable, label = 'requests'): Progress {
  let total = 0;
  let done = 0;
  let lastDraw = 0;
  const started = Date.now();
  const draw = (): void => {
    const seconds = (Date.now() - started) / 1000;
    const rate = seconds > 0 ? Math.round(done / seconds) : 0;
    stream.write(`\r\x1b[K${label} ${done}/${total} (${rate}/s)`);
  };
  return {
    planned(n) {
      total = n;
    },
    tick() {
      done++;
      const now = Date.now();
      if (now - lastDraw >= 100) {
        lastDraw = now;
        draw();
      }
    },
    done() {
      if (lastDraw !== 0) stream.write('\r\x1b[K');
    },
  };
}
