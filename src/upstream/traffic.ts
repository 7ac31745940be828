/**
 * What the simulated service saw of its clients, counted by the service itself so that a test or
 * the benchmark can check a client's manners from the other side: requests, the most that arrived
 * within any one second (a rate cap honoured or not), the most in service or waiting at once, and
 * the requests refused with 503 because the queue was full or with 429 by the rate limiter.
 */

/** The counters since the last reset. */
export interface TrafficReport {
  requests: number;
  /** The most requests that arrived within any window of one second. */
  busiestSecond: number;
  /** The most requests held at once (being served or waiting for a worker). */
  peakInFlight: number;
  /** Requests answered 503 because every worker was busy and the queue full. */
  refused: number;
  /** Requests answered 429 by the rate limiter (over its requests a second). */
  throttled: number;
}

export interface Traffic {
  /** A request arrived at `now` (milliseconds); returns the call to make when it is answered. */
  arrived(now: number): () => void;
  refused(): void;
  throttled(): void;
  report(): TrafficReport;
  reset(): void;
}

export function createTraffic(): Traffic {
  let report: TrafficReport;
  // Arrival times within the last second, oldest first: a queue kept as an array and a head index.
  let window: number[];
  let head: number;
  let inFlight = 0;
  const reset = (): void => {
    report = { requests: 0, busiestSecond: 0, peakInFlight: inFlight, refused: 0, throttled: 0 };
    window = [];
    head = 0;
  };
  reset();
  return {
    arrived(now) {
      report.requests += 1;
      window.push(now);
      while (now - window[head]! >= 1000) head += 1;
      if (head > 1024 && head * 2 > window.length) {
        window = window.slice(head);
        head = 0;
      }
      report.busiestSecond = Math.max(report.busiestSecond, window.length - head);
      inFlight += 1;
      report.peakInFlight = Math.max(report.peakInFlight, inFlight);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        inFlight -= 1;
      };
    },
    refused() {
      report.refused += 1;
    },
    throttled() {
      report.throttled += 1;
    },
    report: () => ({ ...report }),
    reset,
  };
}
