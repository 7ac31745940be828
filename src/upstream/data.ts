/**
 * The simulated inventory: records as their single views (fields in the spec's order) plus the
 * hidden attributes the real service filters on but never renders. Generation is a pure
 * function of (seed, scale).
 */
import { compareIds, isNumericId } from '../spec/ids.js';
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import { createRng, hashString, type Rng } from './random.js';
import * as W from './vocab.js';

/** One record as its single view renders it; list items are derived from it. */
export type View = Record<string, unknown> & { id: string };

/** What the service knows about a server but does not render. `null` means unknown. */
export interface ServerHidden {
  siteId: string | null;
  roomId: string | null;
  rackId: string | null;
  maintainerId: string | null;
  serialNumber: string | null;
  arch: string | null;
  manufacturer: string;
  model: string;
  virtual: boolean;
  osId: string | null;
}

/** What the service knows about an operating system but does not render. */
export interface SystemHidden {
  parentId: string | null;
}

/** The whole simulated inventory. `order` holds each resource's ids in list order. */
export interface Dataset {
  views: Record<ResourceName, Map<string, View>>;
  order: Record<ResourceName, string[]>;
  servers: Map<string, ServerHidden>;
  systems: Map<string, SystemHidden>;
}

/** A server that appservers and databases may name. */
export interface Host {
  id: string;
  name: string;
  ip: string;
}

/** What the record makers need besides randomness: the systems and the hosts to refer to. */
export interface MakeContext {
  rng: Rng;
  systems: readonly { id: string; family: string; leaf: boolean }[];
  hosts: readonly Host[];
  /** Next free database-instance id; instance ids are unique across all databases. */
  nextInstanceId: number;
}

/** Where an id is, or would go, in a sorted id list. */
function idPosition(order: readonly string[], id: string): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareIds(order[mid]!, id) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Inserts an id into a sorted id list unless present; returns whether it was added. */
function insertId(order: string[], id: string): boolean {
  // Generation and mutation mostly add ids above all others: append without searching.
  if (order.length === 0 || compareIds(order[order.length - 1]!, id) < 0) {
    order.push(id);
    return true;
  }
  const at = idPosition(order, id);
  if (order[at] === id) return false;
  order.splice(at, 0, id);
  return true;
}

/** Removes an id from a sorted id list; returns whether it was there. */
export function removeId(order: string[], id: string): boolean {
  const at = idPosition(order, id);
  if (order[at] !== id) return false;
  order.splice(at, 1);
  return true;
}

/** Record counts for a scale: servers = scale, the rest in proportion, systems fixed. */
function sizesFor(scale: number): Record<ResourceName, number> {
  if (!Number.isInteger(scale) || scale < 1) throw new RangeError(`scale must be a positive integer, got ${scale}`);
  return {
    applications: Math.max(1, Math.round(scale / 5)),
    databases: Math.max(1, Math.round(scale / 10)),
    operating_systems: W.OS_TREE.length,
    servers: scale,
    appservers: Math.max(1, Math.round(scale / 2)),
  };
}

/** Builds the dataset; the same seed and scale give the same data in every process. */
export function generateDataset(seed: number, scale: number): Dataset {
  const sizes = sizesFor(scale);
  const rng = createRng(seed);
  const dataset = emptyDataset();

  W.OS_TREE.forEach((node, i) => {
    const id = String(i + 1);
    addRecord(dataset, 'operating_systems', { id, name: node.name, codename: node.codename });
    dataset.systems.set(id, { parentId: node.parent === null ? null : String(node.parent + 1) });
  });

  const ctx: MakeContext = { rng, systems: systemsOf(dataset), hosts: [], nextInstanceId: 5001 };
  const hosts: Host[] = [];
  idSequence(rng, sizes.servers, 1000).forEach((id, i) => {
    const { view, hidden } = makeServer(ctx, id);
    addRecord(dataset, 'servers', view);
    dataset.servers.set(id, hidden);
    // A quarter of the servers host nothing, so removing servers rarely has to re-point references.
    if (i % 4 !== 3 || scale < 4) hosts.push(hostOf(view));
  });
  ctx.hosts = hosts;

  idSequence(rng, sizes.applications, 1, 40).forEach((id) => addRecord(dataset, 'applications', makeApplication(ctx, id)));
  idSequence(rng, sizes.databases, 1).forEach((id) => addRecord(dataset, 'databases', makeDatabase(ctx, id)));
  idSequence(rng, sizes.appservers, 1).forEach((id) => addRecord(dataset, 'appservers', makeAppserver(ctx, id)));
  for (const resource of RESOURCE_NAMES) dataset.order[resource].sort(compareIds);
  return dataset;
}

/** A dataset with no records. */
function emptyDataset(): Dataset {
  const views = {} as Dataset['views'];
  const order = {} as Dataset['order'];
  for (const resource of RESOURCE_NAMES) {
    views[resource] = new Map();
    order[resource] = [];
  }
  return { views, order, servers: new Map(), systems: new Map() };
}

/** Adds or replaces a record's view, keeping list order. */
export function addRecord(dataset: Dataset, resource: ResourceName, view: View): void {
  if (!dataset.views[resource].has(view.id)) insertId(dataset.order[resource], view.id);
  dataset.views[resource].set(view.id, view);
}

/** The systems with their root family and whether they are leaves, for picking a server's OS. */
export function systemsOf(dataset: Dataset): MakeContext['systems'] {
  const parents = new Set([...dataset.systems.values()].map((s) => s.parentId));
  return dataset.order.operating_systems.map((id) => {
    let root = id;
    for (let parent = dataset.systems.get(root)?.parentId; parent; parent = dataset.systems.get(parent)?.parentId) root = parent;
    const family = String(dataset.views.operating_systems.get(root)?.name ?? '');
    return { id, family, leaf: !parents.has(id) };
  });
}

/** A server view as a reference target. */
export function hostOf(view: View): Host {
  return { id: view.id, name: String(view.name), ip: typeof view.ip === 'string' ? view.ip : '10.0.0.1' };
}

/** `count` ids from `start` upward with occasional gaps; every `legacyEvery`-th is a slug id. */
function idSequence(rng: Rng, count: number, start: number, legacyEvery = 0): string[] {
  const ids: string[] = [];
  let next = start;
  for (let i = 0; i < count; i++) {
    if (legacyEvery > 0 && i % legacyEvery === legacyEvery - 1) {
      ids.push(`legacy-${String(i).padStart(4, '0')}`);
      continue;
    }
    ids.push(String(next));
    next += rng.chance(0.1) ? rng.int(2, 6) : 1;
  }
  return ids;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

function token(rng: Rng, length: number, alphabet: string): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[rng.int(0, alphabet.length - 1)];
  return out;
}

const kindsOf = new WeakMap<MakeContext['systems'], { leaves: MakeContext['systems']; inner: MakeContext['systems'] }>();

/** The leaf and inner systems, split once per systems list rather than once per server. */
function systemKinds(systems: MakeContext['systems']): { leaves: MakeContext['systems']; inner: MakeContext['systems'] } {
  let kinds = kindsOf.get(systems);
  if (!kinds) {
    kinds = { leaves: systems.filter((s) => s.leaf), inner: systems.filter((s) => !s.leaf) };
    kindsOf.set(systems, kinds);
  }
  return kinds;
}

/** A new server with its hidden attributes. */
export function makeServer(ctx: MakeContext, id: string): { view: View; hidden: ServerHidden } {
  const { rng } = ctx;
  const { leaves, inner } = systemKinds(ctx.systems);
  const system = rng.chance(0.8) || inner.length === 0 ? rng.pick(leaves.length > 0 ? leaves : ctx.systems) : rng.pick(inner);
  const arch = rng.chance(0.05) ? null : rng.pick(W.ARCH_BY_FAMILY[system.family] ?? ['x86_64']);
  const processor = rng.pick(W.PROCESSORS[arch ?? 'x86_64'] ?? W.PROCESSORS.x86_64!);
  const virtual = rng.chance(0.6);
  const platform = virtual ? rng.pick(W.VIRTUAL_MODELS) : { ...rng.pick(W.PHYSICAL_MODELS), hypervisor: '' };
  const site = rng.int(1, 4);
  const room = `${site}${rng.int(1, 3)}`;
  const number = isNumericId(id) ? Number(id) : hashString(id);
  const ip = rng.chance(0.05)
    ? `fd00:${site}::${(number & 0xffff).toString(16)}`
    : `10.${site}.${(number >> 8) & 255}.${number & 255}`;
  const view: View = {
    id,
    name: `${rng.pick(W.CITIES)}-${rng.pick(W.ROLES)}-${id}`,
    hypervisor_name: virtual ? `${platform.hypervisor}-${site}-${pad2(rng.int(1, 24))}.infra.example.net` : null,
    ip,
    memory_GB: rng.pick(W.MEMORY_GB),
    processor_system_count: rng.pick([1, 2, 4, 8, 16, 32, 64]),
    processor_reference: processor.reference,
    processor_frequency_GHz: processor.ghz,
    extended_attributes: extendedAttributes(rng),
  };
  const hidden: ServerHidden = {
    siteId: String(site),
    roomId: room,
    rackId: `${room}${pad2(rng.int(1, 12))}`,
    maintainerId: String(rng.int(101, 125)),
    serialNumber: virtual ? `VMW-${token(rng, 12, '0123456789abcdef')}` : token(rng, 10, '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ'),
    arch,
    manufacturer: platform.manufacturer,
    model: platform.model,
    virtual,
    osId: system.id,
  };
  return { view, hidden };
}

const ATTRIBUTE_MAKERS: readonly [string, (rng: Rng) => unknown][] = [
  ['environment', (rng) => rng.pick(W.ENVIRONMENTS)],
  ['owner_team', (rng) => rng.pick(W.APP_OWNERS)],
  ['backup_policy', (rng) => rng.pick(W.BACKUP_POLICIES)],
  ['cost_center', (rng) => `CC-${rng.int(1000, 9999)}`],
  ['monitored', (rng) => rng.chance(0.8)],
  ['criticality', (rng) => rng.int(1, 4)],
  ['decommission_date', (rng) => (rng.chance(0.7) ? null : `2027-${pad2(rng.int(1, 12))}-01`)],
  ['notes', (rng) => rng.pick(['rack "B" — côté cour', 'migré depuis l’ancien DC', '', 'see ticket #4711'])],
];

/** 2 to 5 free key/value pairs, in a fixed key order. */
function extendedAttributes(rng: Rng): Record<string, unknown> {
  const chosen = rng.sample(ATTRIBUTE_MAKERS, rng.int(2, 5));
  return Object.fromEntries(chosen.map(([key, make]) => [key, make(rng)]));
}

/** A new application. */
export function makeApplication(ctx: MakeContext, id: string): View {
  const { rng } = ctx;
  const base = rng.pick(W.APP_NAMES);
  return {
    id,
    name: rng.chance(0.5) ? base : `${base} ${rng.pick(['v2', 'Next', 'legacy', 'Süd', 'Nord'])}`,
    description: `${rng.pick(W.APP_PURPOSES)} (${rng.pick(W.APP_OWNERS)})`,
  };
}

/** A new database service on 1 to 3 of the context's hosts. */
export function makeDatabase(ctx: MakeContext, id: string): View {
  const { rng } = ctx;
  const type = rng.pick(W.DB_KINDS);
  const hosts = rng.sample(ctx.hosts, rng.int(1, 3));
  const word = rng.pick(W.APP_WORDS);
  const name = `${rng.chance(0.2) ? word.toUpperCase() : word}_${type === 'pgsql' ? 'pg' : 'my'}_${pad2(rng.int(1, 99))}`;
  const instances = Array.from({ length: rng.int(1, 3) }, (_, i) => {
    const host = hosts[i % hosts.length]!;
    const schemas = rng.sample(W.SCHEMA_NAMES, rng.int(1, 4));
    return {
      id: String(ctx.nextInstanceId++),
      name: `${name.toLowerCase()}_${i + 1}`,
      listen_address: host.ip,
      listen_port: rng.pick(W.DB_PORTS[type]),
      host_alias: `${name.toLowerCase().replaceAll('_', '-')}-${i + 1}.db.example.net`,
      version: rng.pick(W.DB_VERSIONS[type]),
      config: {
        max_connections: rng.pick([100, 151, 200, 500]),
        shared_buffers: rng.pick(W.SHARED_BUFFERS),
        ...(type === 'pgsql' ? { wal_level: rng.pick(['replica', 'logical']) } : { innodb_buffer_pool_size: rng.pick(['1G', '4G']) }),
      },
      databases: Object.fromEntries(schemas.map((schema) => [schema, rng.int(8192, 500_000_000_000)])),
    };
  });
  return {
    id,
    name,
    type,
    server_names: hosts.map((h) => h.name),
    instances,
    servers: hosts.map((h) => ({ id: h.id, name: h.name })),
  };
}

/** A new application-server instance on one of the context's hosts. */
export function makeAppserver(ctx: MakeContext, id: string): View {
  const { rng } = ctx;
  const host = rng.pick(ctx.hosts);
  const word = rng.pick(W.APP_WORDS);
  const env = rng.pick(['prd', 'stg', 'dev']);
  const name = `${word}-${env}-${pad2(rng.int(1, 30))}`;
  const kind = rng.pick(W.DB_KINDS);
  const hasDb = rng.chance(0.8);
  const dbServer = `db-${word.toLowerCase()}.example.net`;
  const dns = `${word.toLowerCase()}-${id}.apps.example.net`;
  const guard = rng.chance(0.3);
  return {
    id,
    name,
    vip: rng.chance(0.5) ? `vip-${word.toLowerCase()}-${env}.example.net` : `10.200.${rng.int(0, 255)}.${rng.int(1, 254)}`,
    dns: rng.chance(0.2) ? dns[0]!.toUpperCase() + dns.slice(1) : dns,
    directory: `/opt/appserver/instances/${name}`,
    appserver_version: rng.pick(W.APPSERVER_VERSIONS),
    runtime_version: rng.pick(W.RUNTIME_VERSIONS),
    runtime_xms: rng.pick(W.RUNTIME_XMS),
    runtime_xmx: rng.pick(W.RUNTIME_XMX),
    dbconn_url: hasDb ? `dbconn:${kind}://${dbServer}:${W.DB_PORTS[kind][0]}/${word.toLowerCase()}` : '',
    dbconn_server: hasDb ? dbServer : '',
    dbconn_db: hasDb ? word.toLowerCase() : '',
    dbconn_user: hasDb ? `${word.toLowerCase()}_app` : '',
    dbconn_driver: hasDb ? W.DB_DRIVERS[kind] : '',
    guard,
    guard_csac: guard && rng.chance(0.5),
    server_id: host.id,
    server_name: host.name,
  };
}
