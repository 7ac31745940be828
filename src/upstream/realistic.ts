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
export const VIEW_RATES = {
  serverWithoutIp: 0.06,
  staleServerItem: 0.001,
} as const;

const CREATED_FROM = Date.UTC(2014, 0, 1);
const CREATED_TO = Date.UTC(2025, 0, 1);
/** Generated records were last saved before this instant; saves while the service runs come after it, an hour apart per clock tick. */
const STARTED = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

const iso = (ms: number): string => new Date(ms).toISOString();
const whole = (ms: number): number => Math.floor(ms / 1000) * 1000;

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

  constructor(
    private readonly dataset: Dataset,
    private readonly seed: number,
  ) {
    for (const resource of RESOURCE_NAMES) this.saves[resource] = new Map();
  }

  admit(resource: ResourceName, view: View): View {
    return realizeRecord(this.seed, resource, view);
  }

  touch(resource: ResourceName, id: string, clock: number): void {
    this.saves[resource].set(id, clock);
  }

  dependents(resource: ResourceName): readonly ResourceName[] {
    // Appserver single views name their server; server views name their operating system.
    if (resource === 'servers') return ['appservers'];
    if (resource === 'operating_systems') return ['servers'];
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
    const { updated_at } = this.stamps(resource, view.id);
    if (resource === 'servers') return { ...this.serverItem(view), updated_at };
    return { ...documentedItem(resource, view), updated_at };
  }

  single(resource: ResourceName, view: View): Fields {
    const stamps = this.stamps(resource, view.id);
    switch (resource) {
      case 'servers':
        return { ...this.serverSingle(view), ...stamps };
      case 'operating_systems': {
        const parentId = this.dataset.systems.get(view.id)?.parentId;
        const parent = parentId ? this.dataset.views.operating_systems.get(parentId) : undefined;
        return { ...view, parent: parent ? { id: parent.id, name: parent.name } : null, ...stamps };
      }
      case 'appservers': {
        // Joined at render time: a retired server renders as null, as a missing association does.
        const server = typeof view.server_id === 'string' ? this.dataset.views.servers.get(view.server_id) : undefined;
        return { ...view, server: server ? { id: server.id, name: server.name } : null, ...stamps };
      }
      default:
        return { ...view, ...stamps };
    }
  }

  /** created_at and updated_at: drawn once per record; a save while running moves updated_at past every earlier one. */
  private stamps(resource: ResourceName, id: string): { created_at: string; updated_at: string } {
    const rng = recordRng(this.seed, resource, id, 'time');
    const created = whole(CREATED_FROM + rng.next() * (CREATED_TO - CREATED_FROM));
    const settled = whole(created + rng.next() * (STARTED - created));
    const save = this.saves[resource].get(id);
    return { created_at: iso(created), updated_at: iso(save === undefined ? settled : STARTED + save * HOUR + (settled % HOUR)) };
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
    const { ip, ...item } = view;
    const { stale } = this.serverQuirks(view);
    if (stale) item[stale.field] = stale.value;
    const system = hidden?.osId ? this.dataset.views.operating_systems.get(hidden.osId) : undefined;
    return {
      ...item,
      arch: hidden?.arch ?? null,
      virtual: hidden?.virtual ?? view.hypervisor_name != null,
      os_name: typeof system?.name === 'string' ? system.name : '',
      ipaddress: typeof ip === 'string' ? ip : '',
    };
  }

  /** The single view: the documented fields and the associations a CMDB page shows. */
  private serverSingle(view: View): Fields {
    const hidden = this.dataset.servers.get(view.id);
    const { ipMissing } = this.serverQuirks(view);
    const system = hidden?.osId ? this.dataset.views.operating_systems.get(hidden.osId) : undefined;
    const maintainer = hidden?.maintainerId ? W.MAINTAINERS[Number(hidden.maintainerId) - 101] : undefined;
    return {
      ...view,
      ...('ip' in view && ipMissing ? { ip: null } : {}),
      operating_system: system ? { id: system.id, name: system.name, codename: system.codename } : null,
      location: hidden?.siteId == null ? null : { site: hidden.siteId, room: hidden.roomId, rack: hidden.rackId },
      hardware: hidden ? { manufacturer: hidden.manufacturer, model: hidden.model, serial_number: hidden.serialNumber } : null,
      maintainer: maintainer ? { id: hidden!.maintainerId, name: maintainer } : null,
    };
  }
}
