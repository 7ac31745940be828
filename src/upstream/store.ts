/**
 * The dataset and its answers. Bodies are rendered when first asked for, not at start, so a big
 * inventory starts fast: list items are kept once rendered (every list and filter reuses them),
 * single views live in a bounded cache while their ETags are kept apart (a conditional re-fetch
 * renders nothing), full lists are kept until their resource changes, and filtered lists per
 * normalized query within a byte budget.
 */
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import { ByteLru } from './cache.js';
import { addRecord, removeId, type Dataset, type ServerHidden, type SystemHidden, type View } from './data.js';
import { evaluateQuery, normalizeQuery } from './filters.js';
import { computeInjected, type InjectedReport } from './injected.js';
import { planMutation, type MutationReport } from './mutate.js';
import type { Profile } from './profile.js';
import { listBody, Renderer, type Body } from './render.js';

/** Hidden attributes a caller may give with putRecord; unknown ones stay unknown. */
export type HiddenAttributes = Partial<ServerHidden> & Partial<SystemHidden>;

/** A list answer: a body, or the parameter whose value was malformed. */
type ListAnswer = Body | { error: string };

/** Filtered lists are kept up to this many bytes, least recently used dropped first. */
const FILTER_CACHE_BYTES = 128 * 1024 * 1024;
/** Single views kept: all of them at the default scales, the most recent ones at 200 000 servers. */
const SINGLE_CACHE_BYTES = 96 * 1024 * 1024;
/** What an error answer counts for in the filter cache, so that malformed queries cannot pile up without bound. */
const ERROR_ANSWER_BYTES = 256;

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

const perResource = <T>(make: () => T): Record<ResourceName, T> => Object.fromEntries(RESOURCE_NAMES.map((r) => [r, make()])) as Record<ResourceName, T>;

/** The simulated service's state and its answers. */
export class Store {
  private readonly renderer: Renderer;
  private readonly items = perResource(() => new Map<string, Buffer>());
  private readonly etags = perResource(() => new Map<string, string>());
  private readonly singles: ByteLru<Body>;
  /** Part of every single-cache key: bumping it retires a whole resource's cached views, which then age out. */
  private readonly generations = perResource(() => 0);
  private readonly lists = new Map<ResourceName, Body>();
  private readonly filtered: ByteLru<ListAnswer>;
  private readonly hiddenSingles = perResource(() => new Set<string>());
  private mutations = 0;
  /** The last injected() report, until the data changes: it looks at every record, seconds at 200 000 servers. */
  private report: InjectedReport | undefined;
  /** Logical time of saves: one tick per putRecord and per mutation batch. */
  private clock = 0;

  /** Takes ownership of a freshly generated dataset: its records enter through the profile. */
  constructor(
    readonly dataset: Dataset,
    private readonly profile: Profile,
    extraFields: boolean,
    keepRendered = false,
  ) {
    this.renderer = new Renderer(profile, extraFields);
    const limit = (bytes: number): number => (keepRendered ? Infinity : bytes);
    this.singles = new ByteLru<Body>(limit(SINGLE_CACHE_BYTES), (body) => body.data.length);
    this.filtered = new ByteLru<ListAnswer>(limit(FILTER_CACHE_BYTES), (answer) => ('data' in answer ? answer.data.length : ERROR_ANSWER_BYTES));
    for (const resource of RESOURCE_NAMES) for (const view of dataset.views[resource].values()) profile.admit(resource, view);
  }

  /** Record counts per resource. */
  counts(): Record<ResourceName, number> {
    return Object.fromEntries(RESOURCE_NAMES.map((r) => [r, this.dataset.order[r].length])) as Record<ResourceName, number>;
  }

  /** The single-view body, or undefined for an unknown or hidden id. */
  single(resource: ResourceName, id: string): Body | undefined {
    if (this.hiddenSingles[resource].has(id)) return undefined;
    const view = this.dataset.views[resource].get(id);
    if (!view) return undefined;
    const key = `${resource}#${this.generations[resource]}/${id}`;
    let body = this.singles.get(key);
    if (!body) {
      body = this.renderer.single(resource, view);
      this.singles.set(key, body);
      this.etags[resource].set(id, body.etag);
    }
    return body;
  }

  /** The single view's ETag, rendering only when it is not known yet; undefined for an unknown or hidden id. */
  singleEtag(resource: ResourceName, id: string): string | undefined {
    if (this.hiddenSingles[resource].has(id)) return undefined;
    return this.etags[resource].get(id) ?? this.single(resource, id)?.etag;
  }

  /** The list body for a query string. */
  list(resource: ResourceName, search: URLSearchParams): ListAnswer {
    const query = normalizeQuery(resource, search);
    if (query.key === '') return this.fullList(resource);
    const cacheKey = `${resource}?${query.key}`;
    const cached = this.filtered.get(cacheKey);
    if (cached) return cached;
    const result = evaluateQuery(this.dataset, resource, query, (view, field) => this.profile.listValue(resource, view, field));
    let answer: ListAnswer;
    if (!result.ok) {
      answer = { error: `invalid value for ${result.param}: ${result.message}` };
    } else if (result.includeServers) {
      const views = this.dataset.views;
      const serverItem = (id: string): Buffer | undefined => (views.servers.has(id) ? this.item('servers', id) : undefined);
      answer = listBody(resource, result.ids.map((id) => this.renderer.itemWithServers(views.databases.get(id)!, this.item('databases', id), serverItem)));
    } else {
      answer = listBody(resource, result.ids.map((id) => this.item(resource, id)));
    }
    this.filtered.set(cacheKey, answer);
    return answer;
  }

  /** What the profile put into the data that the API document does not promise, as found in the current records. */
  injected(): InjectedReport {
    this.report ??= computeInjected(this.dataset, this.profile);
    return structuredClone(this.report);
  }

  private item(resource: ResourceName, id: string): Buffer {
    let item = this.items[resource].get(id);
    if (!item) {
      item = this.renderer.item(resource, this.dataset.views[resource].get(id)!);
      this.items[resource].set(id, item);
    }
    return item;
  }

  private fullList(resource: ResourceName): Body {
    let body = this.lists.get(resource);
    if (!body) {
      body = listBody(resource, this.dataset.order[resource].map((id) => this.item(resource, id)));
      this.lists.set(resource, body);
    }
    return body;
  }

  private changed(resource: ResourceName, id: string): void {
    this.items[resource].delete(id);
    this.etags[resource].delete(id);
    this.singles.delete(`${resource}#${this.generations[resource]}/${id}`);
    this.lists.delete(resource);
    for (const dependent of this.profile.dependents(resource)) {
      this.items[dependent].clear();
      this.etags[dependent].clear();
      this.generations[dependent] += 1;
      this.lists.delete(dependent);
    }
    // Hidden server and system attributes feed other resources' filters too, so drop every cached query.
    this.filtered.clear();
    this.report = undefined;
  }

  /** Adds or replaces a record given as its single view; its values are kept as given. */
  put(resource: ResourceName, record: View, hidden?: HiddenAttributes): void {
    this.clock += 1;
    this.save(resource, record, hidden);
  }

  private save(resource: ResourceName, record: View, hidden?: HiddenAttributes): void {
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
    this.profile.touch(resource, view.id, this.clock);
    this.changed(resource, view.id);
  }

  /** Removes a record; references to it elsewhere are left as they are. */
  remove(resource: ResourceName, id: string): boolean {
    if (!this.dataset.views[resource].delete(id)) return false;
    removeId(this.dataset.order[resource], id);
    if (resource === 'servers') this.dataset.servers.delete(id);
    if (resource === 'operating_systems') this.dataset.systems.delete(id);
    this.changed(resource, id);
    return true;
  }

  /** Makes /<resource>/<id>.json answer 404 while the list still shows the record. */
  hideSingle(resource: ResourceName, id: string): void {
    this.hiddenSingles[resource].add(id);
  }

  /** Applies a deterministic batch of changes; without a seed, each call draws a new batch. */
  mutate(options: { seed?: number; share?: number }): MutationReport {
    this.mutations += 1;
    this.clock += 1;
    const plan = planMutation(this.dataset, { seed: options.seed ?? this.mutations, share: options.share ?? 0.01 });
    for (const { resource, id } of plan.removes) this.remove(resource, id);
    // New and changed records enter as generated ones do, so they carry the profile's quirks at the same rates.
    for (const { resource, view, hidden } of plan.puts) this.save(resource, this.profile.admit(resource, view), hidden);
    for (const id of plan.silent) this.moveRackSilently(id);
    return plan.report;
  }

  /** Moves a server to another rack in its room without saving it (no new updated_at). */
  private moveRackSilently(id: string): void {
    const hidden = this.dataset.servers.get(id);
    if (!hidden?.rackId) return;
    this.dataset.servers.set(id, { ...hidden, rackId: `${hidden.rackId}-b` });
    this.changed('servers', id);
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
