/**
 * Where a run's CPU time goes: reads a `.cpuprofile` (from `node --cpu-prof`) and prints the
 * top functions by self time, and self time per package or source folder.
 *
 *     node dist-bench/bench/profile.js FILE.cpuprofile [--top N]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { formatTable } from './report.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/** The parts of a V8 CPU profile this reads. */
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time in ms per key, largest first. */
export type SelfTimes = [key: string, ms: number][];

/** Where a script lives: its package under node_modules, a folder of ours, a Node internal, or a V8 pseudo-frame. */
export function area(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : `(native) ${functionName}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return url.split('/').slice(0, 3).join('/');
  const ours = /\/dist\/(.+)\/[^/]+$/.exec(url);
  return ours ? `dist/${ours[1]}` : url;
}

/** Self time by function and by area. Pure. */
export function selfTimes(profile: CpuProfile): { byFunction: SelfTimes; byArea: SelfTimes; totalMs: number } {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = nodes.get(id);
    const delta = (profile.timeDeltas[i] ?? 0) / 1000;
    if (!node) return;
    total += delta;
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.split('/').slice(-2).join('/');
    const fn = `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''}`.trim();
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + delta);
    const key = area(url, functionName);
    byArea.set(key, (byArea.get(key) ?? 0) + delta);
  });
  const sorted = (map: Map<string, number>): SelfTimes => [...map].sort((a, b) => b[1] - a[1]);
  return { byFunction: sorted(byFunction), byArea: sorted(byArea), totalMs: total };
}

if (process.argv[1]?.endsWith('profile.js')) {
  const { values, positionals } = parseArgs({ options: { top: { type: 'string' } }, allowPositionals: true });
  if (positionals.length !== 1) {
    process.stderr.write('profile: expects one .cpuprofile file (node --cpu-prof --cpu-prof-dir DIR ...)\n');
    process.exitCode = 2;
  } else {
    const top = Number(values.top ?? '25');
    const { byFunction, byArea, totalMs } = selfTimes(JSON.parse(readFileSync(positionals[0]!, 'utf8')) as CpuProfile);
    const rows = (times: SelfTimes): (string | number)[][] => times.slice(0, top).map(([key, ms]) => [key, Math.round(ms), `${((ms / totalMs) * 100).toFixed(1)}%`]);
    process.stdout.write(`total sampled: ${Math.round(totalMs)} ms\n\n`);
    process.stdout.write(`${formatTable(['function (self time)', 'ms', 'share'], rows(byFunction))}\n\n`);
    process.stdout.write(`${formatTable(['area (self time)', 'ms', 'share'], rows(byArea))}\n`);
  }
}
