/**
 * The realistic profile: renders the way the real CMDB (a Rails app over a database) does.
 * List items and single views are different projections of a record: the list shows a few
 * denormalized columns, the single view nests the record's associations, and both carry
 * timestamps. A few list items show a stale copy of a field, as a list served from a cache
 * does. Every value is a function of (seed, record, when it was last saved): bodies are
 * byte-stable across processes and change only when their record does.
 */
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import type { Dataset, View } from './data.js';
import { documentedItem, type Fields, type Profile } from './profile.js';
import { recordRng } from './random.js';
import { realizeRecord } from './realize.js';
import * as W from './vocab.js';

/** How often each view-level quirk is drawn, per server. */
const VIEW_RATES = {
  serverWithoutIp: 0.06,
  staleServerItem: 0.001,
} as const;

const HOUR = 3_600_000;
const DAY = 86_400_000;
const CREATED_FROM = Date.UTC(2014, 0, 1);
const CREATED_TO = Date.UTC(2025, 0, 1);
/** Generated records were last saved before this instant; saves while the service runs come after it, an hour apart per clock tick. */
const STARTED = Date.UTC(2026, 0, 1);

const whole = (ms: number): number => Math.floor(ms / 1000) * 1000;
const pad2 = (n: number): string => String(n).padStart(2, '0');
const dates = new Map<number, string>();

/** ISO 8601 as Rails renders times (milliseconds, Z); dates are kept per day, as a Date per call was a third of a projection's cost. */
function iso(ms: number): string {
  const day = Math.floor(ms / DAY);
  let date = dates.get(day);
  if (date === undefined) {
    date = new Date(day * DAY).toISOString().slice(0, 10);
    dates.set(day, date);
  }
  const rest = ms - day * DAY;
  return `${date}T${pad2(Math.floor(rest / HOUR))}:${pad2(Math.floor(rest / 60_000) % 60)}:${pad2(Math.floor(rest / 1000) % 60)}.${String(rest % 1000).padStart(3, '0')}Z`;
}

/** A list-item field that shows an outdated value. */
interface Stale {
  field: 'name' | 'memory_GB';
  value: unknown;
}

/** The realistic profile over one dataset; `seed` is the dataset's. */
export class RealisticProfile implements Profile {
  readonly name = 'realistic';
  readonly includeServers = 'list-items';
  /** The clock of each record's last save while running; absent for records as generated. */
  private readonly saves = {} as Record<ResourceName, Map<string, number>>;
  /** Per application, the servers (by id) its instances run on, drawn when it enters the data. */
  private readonly instanceHosts = new Map<string, string[]>();

  constructor(
    private readonly dataset: Dataset,
    private readonly seed: number,
  ) {
    for (const resource of RESOURCE_NAMES) this.saves[resource] = new Map();
  }

  admit(resource: ResourceName, view: View): View {
    if (resource === 'applications' && !this.instanceHosts.has(view.id)) {
      const rng = recordRng(this.seed, resource, view.id, 'instances');
      const servers = this.dataset.order.servers;
      const count = servers.length === 0 ? 0 : rng.int(1, 2);
      this.instanceHosts.set(view.id, Array.from({ length: count }, () => servers[rng.int(0, servers.length - 1)]!));
    }
    return realizeRecord(this.seed, resource, view);
  }

  touch(resource: ResourceName, id: string, clock: number): void {
    this.saves[resource].set(id, clock);
  }

  dependents(resource: ResourceName): readonly ResourceName[] {
    // Appserver, database and application single views name servers (joined when rendered); server
    // views name their operating system, and system views their parent.
    if (resource === 'servers') return ['appservers', 'databases', 'applications'];
    if (resource === 'operating_systems') return ['servers', 'operating_systems'];
    return [];
  }

  listValue(resource: ResourceName, view: View, field: string): unknown {
    if (resource === 'servers') {
      const stale = this.serverQuirks(view).stale;
      if (stale?.field === field) return stale.value;
    }
    return view[field];
  }

  item(resource: ResourceName, view: View): Fields {
    const item = resource === 'servers' ? this.serverItem(view) : resource === 'databases' ? documentedItem(resource, view) : fieldsOf(view);
    item.updated_at = iso(this.stamps(resource, view.id).updated);
    return item;
  }

  single(resource: ResourceName, view: View): Fields {
    const single = resource === 'servers' ? this.serverSingle(view) : fieldsOf(view);
    if (resource === 'operating_systems') {
      const parentId = this.dataset.systems.get(view.id)?.parentId;
      const parent = parentId ? this.dataset.views.operating_systems.get(parentId) : undefined;
      single.parent = parent ? { id: parent.id, name: parent.name } : null;
    }
    if (resource === 'appservers') {
      // Joined at render time: a retired server renders as null, as a missing association does.
      const server = typeof view.server_id === 'string' ? this.dataset.views.servers.get(view.server_id) : undefined;
      single.server = server ? { id: server.id, name: server.name } : null;
    }
    if (resource === 'databases' && Array.isArray(view.servers)) {
      // Joined at render time too: a renamed server shows its new name, a removed one drops out
      // (server_names, a stored column, keeps naming it).
      single.servers = view.servers.flatMap((entry) => {
        const id = (entry as { id?: unknown } | null)?.id;
        const server = typeof id === 'string' ? this.dataset.views.servers.get(id) : undefined;
        return server ? [{ id: server.id, name: server.name }] : [];
      });
    }
    if (resource === 'applications') {
      // Instances name their servers by name, as the real service's application page does.
      const hosts = (this.instanceHosts.get(view.id) ?? []).flatMap((id) => {
        const name = this.dataset.views.servers.get(id)?.name;
        return typeof name === 'string' ? [name] : [];
      });
      single.application_instances = hosts.length === 0 ? [] : [{ name: `${String(view.name).toLowerCase().replace(/[^a-z0-9]+/g, '-')}-prd`, servers: hosts }];
    }
    const { created, updated } = this.stamps(resource, view.id);
    single.created_at = iso(created);
    single.updated_at = iso(updated);
    return single;
  }

  /** When a record was created and last saved: drawn once per record; a save while running moves the latter past every earlier one. */
  private stamps(resource: ResourceName, id: string): { created: number; updated: number } {
    const rng = recordRng(this.seed, resource, id, 'time');
    const created = whole(CREATED_FROM + rng.next() * (CREATED_TO - CREATED_FROM));
    const settled = whole(created + rng.next() * (STARTED - created));
    const save = this.saves[resource].get(id);
    return { created, updated: save === undefined ? settled : STARTED + save * HOUR + (settled % HOUR) };
  }

  private serverQuirks(view: View): { ipMissing: boolean; stale: Stale | undefined } {
    const rng = recordRng(this.seed, 'servers', view.id, 'view');
    const ipMissing = rng.chance(VIEW_RATES.serverWithoutIp);
    if (!rng.chance(VIEW_RATES.staleServerItem)) return { ipMissing, stale: undefined };
    if (rng.chance(0.5)) {
      const name = `${rng.pick(W.CITIES)}-${rng.pick(W.ROLES)}-${view.id}`;
      return { ipMissing, stale: { field: 'name', value: name === view.name ? `${name}-old` : name } };
    }
    return { ipMissing, stale: { field: 'memory_GB', value: rng.pick(W.MEMORY_GB.filter((gb) => gb !== Number(view.memory_GB))) } };
  }

  /** The list columns: the documented fields (a stale copy here and there) and a few denormalized ones. */
  private serverItem(view: View): Fields {
    const hidden = this.dataset.servers.get(view.id);
    const item = fieldsOf(view, 'ip');
    const { stale } = this.serverQuirks(view);
    if (stale) item[stale.field] = stale.value;
    const system = hidden?.osId ? this.dataset.views.operating_systems.get(hidden.osId) : undefined;
    item.arch = hidden?.arch ?? null;
    item.virtual = hidden?.virtual ?? view.hypervisor_name != null;
    item.os_name = typeof system?.name === 'string' ? system.name : '';
    item.ipaddress = typeof view.ip === 'string' ? view.ip : '';
    return item;
  }

  /** The single view: the documented fields and the associations a CMDB page shows. */
  private serverSingle(view: View): Fields {
    const hidden = this.dataset.servers.get(view.id);
    const single = fieldsOf(view);
    if ('ip' in single && this.serverQuirks(view).ipMissing) single.ip = null;
    const system = hidden?.osId ? this.dataset.views.operating_systems.get(hidden.osId) : undefined;
    const maintainer = hidden?.maintainerId ? W.MAINTAINERS[Number(hidden.maintainerId) - 101] : undefined;
    single.operating_system = system ? { id: system.id, name: system.name, codename: system.codename } : null;
    single.location = hidden?.siteId == null ? null : { site: hidden.siteId, room: hidden.roomId, rack: hidden.rackId };
    single.hardware = hidden ? { manufacturer: hidden.manufacturer, model: hidden.model, serial_number: hidden.serialNumber } : null;
    single.maintainer = maintainer ? { id: hidden!.maintainerId, name: maintainer } : null;
    return single;
  }
}

/**
 * A shallow copy of a record without `skip`, built key by key: V8 adds fields to such objects
 * quickly, while adding fields to a spread copy is about twenty times slower.
 */
function fieldsOf(view: View, skip?: string): Fields {
  const out: Fields = {};
  for (const key in view) if (key !== skip) out[key] = view[key];
  return out;
}
