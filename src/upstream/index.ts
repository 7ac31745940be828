/**
 * The built-in simulated inventory service: our embedded default, test fixture and benchmark
 * load. `startUpstream` generates the dataset and serves it on node:http, rendering bodies as
 * they are asked for.
 */
import type { AddressInfo } from 'node:net';
import type { ResourceName } from '../spec/resources.js';
import { generateDataset, type View } from './data.js';
import { checkFaultOptions, createFaultPlan, type FaultOptions, type FaultPlan } from './faults.js';
import type { InjectedReport } from './injected.js';
import type { MutationReport } from './mutate.js';
import { checkRateLimit, createRateLimiter } from './limiter.js';
import { createPacer, type PacingOptions } from './pacing.js';
import { exactProfile, PROFILES, type ProfileName } from './profile.js';
import { RealisticProfile } from './realistic.js';
import { createUpstreamServer, type ForcedResponse } from './server.js';
import { Store, type HiddenAttributes } from './store.js';
import { createTraffic, type TrafficReport } from './traffic.js';

export type { FaultKind, FaultOptions } from './faults.js';
export { FAULT_KINDS } from './faults.js';
export type { MutationReport } from './mutate.js';
export type { InjectedReport } from './injected.js';
export { PROFILES, type ProfileName } from './profile.js';
export { QUEUE_PER_WORKER } from './pacing.js';
export { CONTROL_ENDPOINTS } from './control.js';

/** How to start the simulated service. */
export interface UpstreamOptions {
  /** The X-Api-Token value every request must carry. */
  token: string;
  /** Default 1; the same seed and scale give byte-identical data. */
  seed?: number;
  /** Number of servers (default 200); the other resources follow in proportion. */
  scale?: number;
  host?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Add fields the spec does not list to every record, in lists and single views. */
  extraFields?: boolean;
  faults?: FaultOptions;
  /** 'realistic' (default): renders as the real CMDB does (see realistic.ts); 'exact': only what the API document lists. */
  profile?: ProfileName;
  /** Mean service time per request in milliseconds, jittered deterministically (default 0). */
  latencyMs?: number;
  /** Requests served at once; the rest queue, and beyond 4 per worker get 503 with Retry-After: 1 (default unlimited). */
  workers?: number;
  /** A rate limiter in front of the service: above this many requests within any one second, 429 with Retry-After: 1 (default none). */
  rateLimit?: number;
  /**
   * Keep every rendered body (default false: 96 MiB of single views and 128 MiB of filtered lists,
   * all of them at 20 000 servers, not at 200 000). Memory then grows with the inventory, and a
   * second pass over it renders nothing.
   */
  keepRendered?: boolean;
  /** Answer the token-free control endpoint (/_control) to loopback clients (default true). */
  control?: boolean;
}

/** A running simulated service. */
export interface Upstream {
  /** Base URL without a trailing slash. */
  url: string;
  port: number;
  /** Closes the server and every keep-alive socket. */
  close(): Promise<void>;
  setFaults(faults: FaultOptions | undefined): void;
  /** Replaces the service time and the workers from now on (a service degrading mid-run). */
  setPacing(pacing: PacingOptions): void;
  /** Replaces the rate limiter's requests a second from now on; undefined turns it off. */
  setRateLimit(perSecond: number | undefined): void;
  /** Requests received since start, faulted and refused ones included, control requests not. */
  requestCount(): number;
  /** What the service saw since the last reset (`POST /_control/traffic/reset`): busiest second, peak held, refusals. */
  traffic(): TrafficReport;
  /** Record counts per resource. */
  counts(): Record<ResourceName, number>;
  /** Replace or add one record, given as its documented single view and kept as given; the profile renders both views from it (exact: the list item drops the single-only fields). Hidden attrs optional. */
  putRecord(resource: ResourceName, record: Record<string, unknown> & { id: string }, hidden?: HiddenAttributes): void;
  removeRecord(resource: ResourceName, id: string): boolean;
  /** Deterministic batch of changes; reports exactly what it did (ids per resource). */
  mutate(options: { seed?: number; share?: number }): MutationReport;
  /** Force one path (path+query exactly as requested) to answer a given status/body/content-type; undefined clears. */
  override(path: string, response: ForcedResponse | undefined): void;
  /** /<resource>/<id>.json answers 404 for this id while the list still shows it (a record deleted mid-sync). */
  hideSingle(resource: ResourceName, id: string): void;
  /** What the current data holds that the API document does not promise (empty for the exact profile's own data). */
  injected(): InjectedReport;
}

/** Generates the data and starts listening; resolves once the port is bound. Bodies are rendered when first asked for. */
export async function startUpstream(options: UpstreamOptions): Promise<Upstream> {
  if (typeof options.token !== 'string' || options.token === '') throw new TypeError('startUpstream: token must be a non-empty string');
  if (options.faults) checkFaultOptions(options.faults);
  const profileName = options.profile ?? 'realistic';
  if (!PROFILES.includes(profileName)) throw new RangeError(`profile must be one of ${PROFILES.join(', ')}, got ${JSON.stringify(profileName)}`);
  const seed = options.seed ?? 1;
  // Before generating: a bad option should not cost a big inventory's start time.
  const pacer = createPacer(options, seed);
  checkRateLimit(options.rateLimit);
  const limiter = createRateLimiter(options.rateLimit);
  const dataset = generateDataset(seed, options.scale ?? 200);
  const store = new Store(dataset, profileName === 'realistic' ? new RealisticProfile(dataset, seed) : exactProfile, options.extraFields ?? false, options.keepRendered);
  let faults: FaultPlan = createFaultPlan(options.faults);
  const setFaults = (next: FaultOptions | undefined): void => {
    faults = createFaultPlan(next);
  };
  const overrides = new Map<string, ForcedResponse>();
  const setPacing = (next: PacingOptions): void => pacer.set(next);
  const setRateLimit = (perSecond: number | undefined): void => limiter.set(perSecond);
  const traffic = createTraffic();
  const control = options.control === false ? undefined : { mutate: store.mutate.bind(store), injected: store.injected.bind(store), setFaults, setPacing, setRateLimit, traffic };
  const { server, cancelPending, requestCount } = createUpstreamServer({ store, token: options.token, faults: () => faults, overrides, pacer, limiter, control, traffic });

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        cancelPending();
        if (!server.listening) return resolve();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
    setFaults,
    setPacing,
    setRateLimit,
    requestCount,
    traffic: () => traffic.report(),
    counts: () => store.counts(),
    putRecord: (resource, record, hidden) => store.put(resource, record as View, hidden),
    removeRecord: (resource, id) => store.remove(resource, id),
    mutate: (mutation) => store.mutate(mutation),
    override: (path, response) => {
      if (response) overrides.set(path, response);
      else overrides.delete(path);
    },
    hideSingle: (resource, id) => store.hideSingle(resource, id),
    injected: () => store.injected(),
  };
}
