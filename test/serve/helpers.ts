/** A real mirror for serve tests: the simulated upstream, synced with configured filter values taken from its hidden data. */
import { sync as runSync } from '../../src/sync/index.js';
import { generateDataset, type Dataset } from '../../src/upstream/data.js';
import type { Upstream } from '../../src/upstream/index.js';
import { tempDir } from '../helpers/tmp.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';

export interface Mirror {
  upstream: Upstream;
  dir: string;
  data: Dataset;
  filters: Record<string, string[]>;
  /** Syncs the upstream into the folder again. */
  sync(): Promise<void>;
}

/** Configured values for the filters that cannot be discovered: a few of each, from the data. */
function configuredValues(data: Dataset): Record<string, string[]> {
  const hidden = data.order.servers.map((id) => data.servers.get(id)!);
  const first = hidden[0]!;
  const second = hidden[1]!;
  return {
    by_location: [`site:${first.siteId}`, `room:${second.roomId}`, `rack:${first.rackId}`],
    by_maintainer: [first.maintainerId!, second.maintainerId!],
    by_serial_number: [first.serialNumber!, hidden[5]!.serialNumber!],
    by_arch: ['x86_64', 'aarch64'],
    by_fullmodel: [first.manufacturer.split(' ')[0]!.toLowerCase(), second.model],
  };
}

/**
 * Starts an upstream and syncs it into a fresh folder (with the offline page when `browser`);
 * both go in the teardown of the scope that builds it (a test, or the file when built at its top level).
 */
export async function buildMirror(options: { seed?: number; scale?: number; browser?: boolean } = {}): Promise<Mirror> {
  const seed = options.seed ?? 7;
  const scale = options.scale ?? 120;
  const data = generateDataset(seed, scale);
  const filters = configuredValues(data);
  const upstream = await useUpstream({ seed, scale, profile: 'exact' });
  const dir = tempDir('im-serve-');
  const sync = async (): Promise<void> => {
    await runSync({ baseUrl: upstream.url, token: TOKEN, out: dir, settings: { retries: 2, retryBaseMs: 2, retryMaxMs: 20 }, filters: { servers: filters }, browser: options.browser ?? false });
  };
  await sync();
  return { upstream, dir, data, filters, sync };
}

/** GET against a base URL: the bytes, and the body parsed when it is JSON. */
export async function fetchJson(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown; bytes: Buffer; headers: Headers }> {
  const res = await fetch(base + path, { headers });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: compared as text.
  }
  return { status: res.status, body, bytes, headers: res.headers };
}
