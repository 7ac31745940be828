/**
 * The dataset with its rendered bodies. Every record's list item and single body are rendered
 * once up front and again only when that record changes; full lists are joined lazily and
 * filtered lists are cached per normalized query until the data changes.
 */
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import { addRecord, type Dataset, type ServerHidden, type SystemHidden, type View } from './data.js';
import { evaluateQuery, normalizeQuery } from './filters.js';
import { planMutation, type MutationReport } from './mutate.js';
import { databaseItemWithServers, listBody, renderRecord, type Body, type Rendered } from './render.js';

/** Hidden attributes a caller may give with putRecord; unknown ones stay unknown. */
export type HiddenAttributes = Partial<ServerHidden> & Partial<SystemHidden>;

/** A list answer: a body, or the parameter whose value was malformed. */
export type ListAnswer = Body | { error: string };

/** Filtered lists are kept up to this many bytes, least recently used dropped first. */
const FILTER_CACHE_BYTES = 128 * 1024 * 1024;

const UNKNOWN_SERVER: ServerHidden = {
  siteId: null,
  roomId: null,
  rackId: null,
  maintainerId: null,
  serialNumber: null,
  arch: null,
  manufacturer: '',
  model: '',
  virtual: false,
  osId: null,
};

/** The simulated service's state and its answers. */
export class Store {
  private readonly rendered: Record<ResourceName, Map<string, Rendered>>;
  private readonly lists = new Map<ResourceName, Body>();
  private readonly filtered = new Map<string, ListAnswer>();
  private filteredBytes = 0;
  private readonly hiddenSingles: Record<ResourceName, Set<string>>;
  private mutations = 0;

  constructor(
    readonly dataset: Dataset,
    private readonly extraFields: boolean,
  ) {
    this.rendered = {} as Store['rendered'];
    this.hiddenSingles = {} as Store['hiddenSingles'];
    for (const resource of RESOURCE_NAMES) {
      const out = new Map<string, Rendered>();
      for (const [id, view] of dataset.views[resource]) out.set(id, renderRecord(resource, view, extraFields));
      this.rendered[resource] = out;
      this.hiddenSingles[resource] = new Set();
    }
  }

  /** Record counts per resource. */
  counts(): Record<ResourceName, number> {
    return Object.fromEntries(RESOURCE_NAMES.map((r) => [r, this.dataset.order[r].length])) as Record<ResourceName, number>;
  }

  /** The single-view body, or undefined for an unknown or hidden id. */
  single(resource: ResourceName, id: string): Body | undefined {
    if (this.hiddenSingles[resource].has(id)) return undefined;
    return this.rendered[resource].get(id)?.single;
  }

  /** The list body for a query string. */
  list(resource: ResourceName, search: URLSearchParams): ListAnswer {
    const query = normalizeQuery(resource, search);
    if (query.key === '') return this.fullList(resource);
    const cacheKey = `${resource}?${query.key}`;
    const cached = this.filtered.get(cacheKey);
    if (cached) {
      this.filtered.delete(cacheKey);
      this.filtered.set(cacheKey, cached);
      return cached;
    }
    const result = evaluateQuery(this.dataset, resource, query);
    let answer: ListAnswer;
    if (!result.ok) {
      answer = { error: `invalid value for ${result.param}: ${result.message}` };
    } else {
      const rendered = this.rendered[resource];
      const items = result.includeServers
        ? result.ids.map((id) => databaseItemWithServers(this.dataset.views.databases.get(id)!, rendered.get(id)!.extra))
        : result.ids.map((id) => rendered.get(id)!.item);
      answer = listBody(resource, items);
    }
    this.remember(cacheKey, answer);
    return answer;
  }

  private fullList(resource: ResourceName): Body {
    let body = this.lists.get(resource);
    if (!body) {
      const rendered = this.rendered[resource];
      body = listBody(resource, this.dataset.order[resource].map((id) => rendered.get(id)!.item));
      this.lists.set(resource, body);
    }
    return body;
  }

  private remember(key: string, answer: ListAnswer): void {
    const size = 'data' in answer ? answer.data.length : 0;
    if (size > FILTER_CACHE_BYTES) return;
    this.filtered.set(key, answer);
    this.filteredBytes += size;
    for (const [oldKey, old] of this.filtered) {
      if (this.filteredBytes <= FILTER_CACHE_BYTES) break;
      this.filtered.delete(oldKey);
      this.filteredBytes -= 'data' in old ? old.data.length : 0;
    }
  }

  private changed(resource: ResourceName): void {
    this.lists.delete(resource);
    // Hidden server and system attributes feed other resources' filters too, so drop every cached query.
    this.filtered.clear();
    this.filteredBytes = 0;
  }

  /** Adds or replaces a record given as its single view. */
  put(resource: ResourceName, record: View, hidden?: HiddenAttributes): void {
    if (typeof record.id !== 'string' || record.id === '') throw new TypeError(`putRecord(${resource}): id must be a non-empty string`);
    const view = resource === 'databases' && !Array.isArray(record.servers) ? { ...record, servers: this.serversNamed(record.server_names) } : record;
    if (resource === 'servers') {
      const previous = this.dataset.servers.get(view.id) ?? { ...UNKNOWN_SERVER, virtual: view.hypervisor_name != null };
      this.dataset.servers.set(view.id, { ...previous, ...serverAttributes(hidden) });
    }
    if (resource === 'operating_systems') {
      this.dataset.systems.set(view.id, { parentId: hidden?.parentId ?? this.dataset.systems.get(view.id)?.parentId ?? null });
    }
    addRecord(this.dataset, resource, view);
    this.rendered[resource].set(view.id, renderRecord(resource, view, this.extraFields));
    this.changed(resource);
  }

  /** Removes a record; references to it elsewhere are left as they are. */
  remove(resource: ResourceName, id: string): boolean {
    if (!this.dataset.views[resource].delete(id)) return false;
    const order = this.dataset.order[resource];
    order.splice(order.indexOf(id), 1);
    this.rendered[resource].delete(id);
    if (resource === 'servers') this.dataset.servers.delete(id);
    if (resource === 'operating_systems') this.dataset.systems.delete(id);
    this.changed(resource);
    return true;
  }

  /** Makes /<resource>/<id>.json answer 404 while the list still shows the record. */
  hideSingle(resource: ResourceName, id: string): void {
    this.hiddenSingles[resource].add(id);
  }

  /** Applies a deterministic batch of changes; without a seed, each call draws a new batch. */
  mutate(options: { seed?: number; share?: number }): MutationReport {
    this.mutations += 1;
    const plan = planMutation(this.dataset, { seed: options.seed ?? this.mutations, share: options.share ?? 0.01 });
    for (const { resource, id } of plan.removes) this.remove(resource, id);
    for (const { resource, view, hidden } of plan.puts) this.put(resource, view, hidden);
    return plan.report;
  }

  private serversNamed(names: unknown): { id: string; name: string }[] {
    if (!Array.isArray(names)) return [];
    const byName = new Map<string, string>();
    for (const [id, view] of this.dataset.views.servers) if (typeof view.name === 'string' && !byName.has(view.name)) byName.set(view.name, id);
    return names.filter((n): n is string => typeof n === 'string' && byName.has(n)).map((name) => ({ id: byName.get(name)!, name }));
  }
}

/** The server attributes among the given hidden ones, leaving out what was not given. */
function serverAttributes(source: HiddenAttributes | undefined): Partial<ServerHidden> {
  if (!source) return {};
  return Object.fromEntries(Object.entries(source).filter(([key, value]) => key in UNKNOWN_SERVER && value !== undefined));
}
