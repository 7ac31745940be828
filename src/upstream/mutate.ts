/**
 * A deterministic batch of changes to the dataset, planned as plain data: which records to
 * remove, which views to put, and the report of what that does. The operating-system tree is
 * left alone so that by_system answers stay comparable between runs; one system's codename
 * changes (every server view embedding it changes with it). One server also changes silently: a
 * field only its single view shows (its rack), with its `updated_at` kept, as a CMDB's bulk
 * import does; no list shows that change.
 */
import { compareIds } from '../spec/ids.js';
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import { hostOf, makeAppserver, makeApplication, makeDatabase, makeServer, systemsOf, type Dataset, type Host, type MakeContext, type ServerHidden, type View } from './data.js';
import { createRng, type Rng } from './random.js';
import * as W from './vocab.js';

/** Ids added, removed and changed, per resource. */
export interface MutationReport {
  added: Record<ResourceName, string[]>;
  removed: Record<ResourceName, string[]>;
  changed: Record<ResourceName, string[]>;
  /** Changed without a new `updated_at`, in a field only the single view shows (realistic profile). */
  silent: Record<ResourceName, string[]>;
}

/** What applying a mutation does to the dataset. */
interface MutationPlan {
  removes: { resource: ResourceName; id: string }[];
  puts: { resource: ResourceName; view: View; hidden?: ServerHidden }[];
  /** Servers whose rack moves without a save. */
  silent: string[];
  report: MutationReport;
}

// Servers first, so that new appservers and databases only name servers that survive the batch.
const MUTABLE = ['servers', 'applications', 'databases', 'appservers'] as const satisfies readonly ResourceName[];

const emptyIds = (): Record<ResourceName, string[]> => Object.fromEntries(RESOURCE_NAMES.map((r) => [r, []])) as unknown as Record<ResourceName, string[]>;

/** How many records to add, remove and change: a share of n, at least one once n ≥ 3. */
function mutationCount(n: number, share: number): number {
  if (share <= 0) return 0;
  const count = Math.round(n * share);
  return n >= 3 ? Math.min(Math.max(1, count), Math.floor(n / 2)) : count;
}

/** A value from `make` that differs from `current`, or `current` marked as revised. */
function different<T>(current: unknown, make: () => T, revise: () => T): T {
  for (let i = 0; i < 8; i++) {
    const value = make();
    if (value !== current) return value;
  }
  return revise();
}

/** A copy of the view with one field value changed, as an operator's edit would. */
function changeView(resource: ResourceName, view: View, rng: Rng): View {
  const next = structuredClone(view);
  const renamed = (): string => `${String(view.name ?? view.id)} (rev.)`;
  if (resource === 'servers' && rng.chance(0.5) && typeof next.memory_GB === 'number') {
    next.memory_GB = different(view.memory_GB, () => rng.pick(W.MEMORY_GB), () => Number(view.memory_GB) + 1);
  } else if (resource === 'servers') {
    const attributes = typeof next.extended_attributes === 'object' && next.extended_attributes !== null ? (next.extended_attributes as Record<string, unknown>) : {};
    attributes.cost_center = different(attributes.cost_center, () => `CC-${rng.int(1000, 9999)}`, () => `${String(attributes.cost_center)}-1`);
    next.extended_attributes = attributes;
  } else if (resource === 'databases' && Array.isArray(next.instances) && typeof next.instances[0] === 'object' && next.instances[0] !== null) {
    const instance = next.instances[0] as Record<string, unknown>;
    const versions = next.type === 'mysql' ? W.DB_VERSIONS.mysql : W.DB_VERSIONS.pgsql;
    instance.version = different(instance.version, () => rng.pick(versions), () => `${String(instance.version)}.1`);
  } else if (resource === 'appservers' && typeof next.runtime_version === 'string') {
    next.runtime_version = different(view.runtime_version, () => rng.pick(W.RUNTIME_VERSIONS), () => `${String(view.runtime_version)}.1`);
  } else if (resource === 'applications' && typeof next.description === 'string') {
    next.description = different(view.description, () => `${rng.pick(W.APP_PURPOSES)} (${rng.pick(W.APP_OWNERS)})`, () => `${String(view.description)} (rev.)`);
  } else {
    next.name = renamed();
  }
  return next;
}

/** Fresh numeric ids above every numeric id in use. */
function freshIds(rng: Rng, order: readonly string[], count: number): string[] {
  let next = 1 + order.reduce((max, id) => (/^\d+$/.test(id) ? Math.max(max, Number(id)) : max), 0);
  return Array.from({ length: count }, () => {
    const id = String(next);
    next += rng.chance(0.2) ? rng.int(2, 4) : 1;
    return id;
  });
}

/** Points an appserver or database that names a removed server at a remaining one; undefined when untouched. */
function repoint(resource: ResourceName, view: View, gone: ReadonlySet<string>, goneNames: ReadonlySet<string>, pick: () => Host): View | undefined {
  if (resource === 'appservers' && typeof view.server_id === 'string' && gone.has(view.server_id)) {
    const host = pick();
    return { ...view, server_id: host.id, server_name: host.name };
  }
  if (resource === 'databases' && Array.isArray(view.server_names) && view.server_names.some((n) => goneNames.has(n as string))) {
    const hosts = view.server_names.map((name) => (goneNames.has(name as string) ? pick() : undefined));
    const next: View = { ...view, server_names: view.server_names.map((name, i) => hosts[i]?.name ?? name) };
    if (Array.isArray(view.servers)) next.servers = view.servers.map((s, i) => (hosts[i] ? { id: hosts[i].id, name: hosts[i].name } : s));
    return next;
  }
  return undefined;
}

/** Plans a deterministic batch of adds, removes and changes; applies nothing. */
export function planMutation(dataset: Dataset, options: { seed: number; share: number }): MutationPlan {
  const rng = createRng(options.seed);
  const report: MutationReport = { added: emptyIds(), removed: emptyIds(), changed: emptyIds(), silent: emptyIds() };
  const plan: MutationPlan = { removes: [], puts: [], silent: [], report };
  const pending = new Map<ResourceName, Map<string, View>>(MUTABLE.map((r) => [r, new Map()]));
  const ctx: MakeContext = { rng, systems: systemsOf(dataset), hosts: [], nextInstanceId: 1 + maxInstanceId(dataset) };
  const goneServers = new Set<string>();
  // The hosts new records may name, grown in place: copying it per new server is quadratic at scale.
  let hosts: Host[] = [];

  for (const resource of MUTABLE) {
    const order = dataset.order[resource];
    const count = mutationCount(order.length, options.share);
    const removed = rng.sample(order, count);
    const removedSet = new Set(removed);
    const changed = rng.sample(order.filter((id) => !removedSet.has(id)), count);
    report.removed[resource] = removed;
    for (const id of removed) plan.removes.push({ resource, id });
    for (const id of changed) pending.get(resource)!.set(id, changeView(resource, dataset.views[resource].get(id)!, rng));
    report.changed[resource] = changed;

    if (resource === 'servers') {
      removed.forEach((id) => goneServers.add(id));
      hosts = order.filter((id) => !removedSet.has(id)).map((id) => hostOf(dataset.views.servers.get(id)!));
      ctx.hosts = hosts;
    }
    for (const id of freshIds(rng, order, count)) {
      if (resource === 'servers') {
        const { view, hidden } = makeServer(ctx, id);
        plan.puts.push({ resource, view, hidden });
        hosts.push(hostOf(view));
      } else {
        if (ctx.hosts.length === 0) break;
        const make = resource === 'applications' ? makeApplication : resource === 'databases' ? makeDatabase : makeAppserver;
        plan.puts.push({ resource, view: make(ctx, id) });
      }
      report.added[resource].push(id);
    }
  }

  if (goneServers.size > 0 && ctx.hosts.length > 0) {
    const goneNames = new Set([...goneServers].map((id) => String(dataset.views.servers.get(id)!.name)));
    const pick = (): Host => rng.pick(ctx.hosts);
    for (const resource of ['databases', 'appservers'] as const) {
      const removed = new Set(report.removed[resource]);
      for (const id of dataset.order[resource]) {
        if (removed.has(id)) continue;
        const view = pending.get(resource)!.get(id) ?? dataset.views[resource].get(id)!;
        const moved = repoint(resource, view, goneServers, goneNames, pick);
        if (!moved) continue;
        if (!pending.get(resource)!.has(id)) report.changed[resource].push(id);
        pending.get(resource)!.set(id, moved);
      }
    }
  }

  const systems = dataset.order.operating_systems;
  if (options.share > 0 && systems.length > 0) {
    const id = rng.pick(systems);
    const view = dataset.views.operating_systems.get(id)!;
    plan.puts.push({ resource: 'operating_systems', view: { ...view, codename: `${String(view.codename ?? view.name)} (rev.)` } });
    report.changed.operating_systems.push(id);
  }
  const untouched = dataset.order.servers.filter((id) => !goneServers.has(id) && !pending.get('servers')!.has(id));
  if (options.share > 0 && untouched.length > 0) {
    const id = rng.pick(untouched);
    plan.silent.push(id);
    report.silent.servers.push(id);
  }

  for (const [resource, views] of pending) for (const view of views.values()) plan.puts.push({ resource, view });
  for (const ids of [report.added, report.removed, report.changed]) for (const resource of RESOURCE_NAMES) ids[resource].sort(compareIds);
  return plan;
}

function maxInstanceId(dataset: Dataset): number {
  let max = 5000;
  for (const view of dataset.views.databases.values()) {
    if (!Array.isArray(view.instances)) continue;
    for (const instance of view.instances) {
      const id = (instance as { id?: unknown } | null)?.id;
      if (typeof id === 'string' && /^\d+$/.test(id)) max = Math.max(max, Number(id));
    }
  }
  return max;
}
