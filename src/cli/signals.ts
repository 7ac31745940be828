/** SIGINT and SIGTERM for the long-running commands (serve, upstream, schedule). */

/** Calls `handler` on the first SIGINT or SIGTERM; returns a function that stops listening. */
export function onStopSignal(handler: (signal: NodeJS.Signals) => void): () => void {
  const listener = (signal: NodeJS.Signals): void => {
    off();
    handler(signal);
  };
  const off = (): void => {
    process.off('SIGINT', listener);
    process.off('SIGTERM', listener);
  };
  process.on('SIGINT', listener);
  process.on('SIGTERM', listener);
  return off;
}

/** Resolves with the signal when the process is asked to stop. */
export function untilStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => onStopSignal(resolve));
}
