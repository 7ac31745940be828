/** The machine a bench ran on, for reading its numbers later. */
import { statfs } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg, totalmem } from 'node:os';

/** CPU, cores, memory, Node version, free disk where the bench writes, and how busy it was. */
export interface Machine {
  cpu: string;
  cores: number;
  ramMB: number;
  node: string;
  diskFreeMB: number | undefined;
  /** 1, 5 and 15 minute load averages when the bench started: other work on the machine skews the numbers. */
  loadAverage: number[];
}

function cpuModel(): string {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Describes this machine; `dir` is where the bench writes its files. */
export async function describeMachine(dir: string): Promise<Machine> {
  let diskFreeMB: number | undefined;
  try {
    const stats = await statfs(dir);
    diskFreeMB = Math.round((stats.bavail * stats.bsize) / 2 ** 20);
  } catch {
    diskFreeMB = undefined;
  }
  return {
    cpu: cpuModel(),
    cores: availableParallelism(),
    ramMB: Math.round(totalmem() / 2 ** 20),
    node: process.version,
    diskFreeMB,
    loadAverage: loadavg().map((n) => Math.round(n * 100) / 100),
  };
}
