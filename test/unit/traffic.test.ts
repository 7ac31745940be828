import { describe, expect, it } from 'vitest';
import { createTraffic } from '../../src/upstream/traffic.js';

describe('the simulator traffic counters', () => {
  it('counts the most arrivals within any one second, the peak held at once, and refusals', () => {
    const traffic = createTraffic();
    const answers = [0, 100, 200, 999].map((t) => traffic.arrived(t));
    answers[0]!();
    answers[0]!();
    traffic.arrived(1000)();
    traffic.arrived(1999)();
    traffic.refused();
    expect(traffic.report()).toEqual({ requests: 6, busiestSecond: 4, peakInFlight: 4, refused: 1, throttled: 0 });
    for (let t = 5000; t < 5010; t++) traffic.arrived(t)();
    expect(traffic.report().busiestSecond).toBe(10);
  });

  it('starts again from a reset, keeping what is still held', () => {
    const traffic = createTraffic();
    const held = traffic.arrived(0);
    traffic.arrived(1)();
    traffic.reset();
    expect(traffic.report()).toEqual({ requests: 0, busiestSecond: 0, peakInFlight: 1, refused: 0, throttled: 0 });
    held();
    traffic.arrived(5000)();
    expect(traffic.report()).toEqual({ requests: 1, busiestSecond: 1, peakInFlight: 1, refused: 0, throttled: 0 });
  });

  it('stays correct over many seconds of arrivals (the window is trimmed, not lost)', () => {
    const traffic = createTraffic();
    for (let t = 0; t < 60_000; t += 10) traffic.arrived(t)();
    expect(traffic.report().busiestSecond).toBe(100);
  });
});
