/**
 * The pull stage: every list, then every single record and filtered view, each validated as it
 * arrives, redacted by the policy, and handed to the snapshot writer, which stages it at once; so
 * bodies do not pile up in memory and file writes overlap the wait for the service.
 *
 * With the previous snapshot's validators it asks "changed since?". On a 304 the published file
 * is kept without being read when nothing its checks depend on changed (its list item, for a
 * record; its list, for a view), and the warnings it raised are replayed from the cache;
 * otherwise the published file is read and checked again.
 */
import { RequestError, ValidationError } from '../errors.js';
import type { CacheEntry, HttpCache } from '../fetch/cache.js';
import type { Client, Validators } from '../fetch/client.js';
import { planViews, type ViewKey } from '../index/views.js';
import type { FilterSettings } from '../config/schema.js';
import { encodeJson } from '../publish/json.js';
import { filterFile, listFile, recordFile } from '../publish/paths.js';
import type { RedactPolicy } from '../redact/policy.js';
import { redactBody, redactRecord, redactWarnings } from '../redact/redact.js';
import { filterPath, listPath, RESOURCE_NAMES, RESOURCES, singlePath, type ResourceName } from '../spec/resources.js';
import type { RawRecord } from '../spec/schemas.js';
import { sameJson } from '../util/json-value.js';
import { appserverServerWarnings, databaseServerWarnings, listSingleWarnings } from '../validate/crosscheck.js';
import { fieldWarnings } from '../validate/fields.js';
import { listRecords, singleRecord } from '../validate/structure.js';
import type { Warning } from '../validate/warnings.js';

/** Where pulled files go: the snapshot writer (src/publish/writer.ts). */
export interface SnapshotSink {
  put(path: string, bytes: Buffer, owner: string): Promise<void>;
  /** Keeps the published file (a 304); false when it cannot, and the body must be fetched. */
  keep(path: string, owner: string): Promise<boolean>;
  /** The published file's bytes, or undefined when it no longer matches its manifest. */
  read(path: string): Promise<Buffer | undefined>;
}

export interface Pulled {
  /** The filtered views of the snapshot. */
  views: ViewKey[];
  /** Records listed but answering 404 as single records: left out of the snapshot. */
  gone: Record<ResourceName, string[]>;
  warnings: Warning[];
  /** Validators of this snapshot's responses, for the next sync. */
  cache: HttpCache;
}

export interface PullOptions {
  client: Client;
  sink: SnapshotSink;
  filters: FilterSettings;
  /** Told the number of requests planned so far, for progress. */
  onPlanned?: (total: number) => void;
  /** Validators and warnings of the previous snapshot's responses; only for files it holds. */
  cache?: HttpCache;
  /** Fields removed or masked in every body before it is kept. */
  redact?: RedactPolicy | undefined;
  /** A list longer than this fails the sync before any single record is fetched. */
  maxRecords?: number;
  /** Requests in flight (the client's limit); jobs are started a little ahead of it. */
  concurrency?: number;
}

/** Runs the jobs `width` at a time; the first failure stops the others from starting more. */
async function drain(jobs: Iterator<() => Promise<void>>, width: number): Promise<void> {
  let failed = false;
  const worker = async (): Promise<void> => {
    for (let next = jobs.next(); !next.done && !failed; next = jobs.next()) {
      try {
        await next.value();
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
}

interface ListBody {
  /** The parsed body; its records array is `body[resource]`. */
  body: Record<string, unknown>;
  records: RawRecord[];
}

type Fetched<T> = { status: 200; value: T; validators: Validators } | { status: 304; entry: CacheEntry } | { status: 404 };

function perResource<T>(make: (resource: ResourceName) => T): Record<ResourceName, T> {
  return Object.fromEntries(RESOURCE_NAMES.map((r) => [r, make(r)])) as Record<ResourceName, T>;
}


/** Pulls and validates the whole inventory into `sink`. Throws on the first structural fault. */
export async function pull({ client, sink, filters, onPlanned, cache = new Map(), redact, maxRecords = Infinity, concurrency = 16 }: PullOptions): Promise<Pulled> {
  const warnings: Warning[] = [];
  const nextCache: HttpCache = new Map();

  /** GET, conditional when the cache has validators for the path. */
  const get = async <T>(path: string, check: (body: unknown) => T, conditional = true): Promise<Fetched<T>> => {
    const entry = conditional ? cache.get(path) : undefined;
    const result = await client.get(path, check, entry && (entry.etag || entry.lastModified) ? entry : undefined);
    return result.status === 304 ? { status: 304, entry: entry! } : result;
  };
  /**
   * Reports a path's warnings (as the policy lets them be shown) and remembers them with the
   * validators, so a 304 next time replays them: `own` are the body's own, `checks` those
   * against other records, which a changed list makes stale.
   */
  const remember = (path: string, validators: Validators, found: { own?: Warning[]; checks?: Warning[] }): void => {
    const own = redactWarnings(found.own ?? [], redact);
    const checks = redactWarnings(found.checks ?? [], redact);
    warnings.push(...own, ...checks);
    if (!validators.etag && !validators.lastModified) return;
    const entry: CacheEntry = {};
    if (validators.etag) entry.etag = validators.etag;
    if (validators.lastModified) entry.lastModified = validators.lastModified;
    if (own.length) entry.warnings = own;
    if (checks.length) entry.checks = checks;
    nextCache.set(path, entry);
  };
  /** Keeps a 304's cache entry as it is, replaying its warnings (redacted when they were stored). */
  const reuse = (path: string, entry: CacheEntry): void => {
    if (entry.warnings) warnings.push(...entry.warnings);
    if (entry.checks) warnings.push(...entry.checks);
    nextCache.set(path, entry);
  };
  /** The published file behind a 304, parsed; undefined when it is gone or altered. */
  const stored = async <T>(file: string, check: (body: unknown) => T): Promise<T | undefined> => {
    const bytes = await sink.read(file);
    try {
      return bytes ? check(JSON.parse(bytes.toString('utf8'))) : undefined;
    } catch {
      return undefined;
    }
  };

  /**
   * A list (or view) body, fetched, or read behind a 304 (then `entry` is set); or, on a 304 that
   * `keepUnread` accepts, nothing but the cache entry.
   */
  async function fetchList(resource: ResourceName, path: string, file: string): Promise<ListBody & { validators: Validators; entry?: CacheEntry }>;
  async function fetchList(resource: ResourceName, path: string, file: string, keepUnread: () => Promise<boolean>): Promise<(ListBody & { validators: Validators; entry?: CacheEntry }) | { kept: CacheEntry }>;
  async function fetchList(resource: ResourceName, path: string, file: string, keepUnread?: () => Promise<boolean>): Promise<(ListBody & { validators: Validators; entry?: CacheEntry }) | { kept: CacheEntry }> {
    const check = (body: unknown): ListBody => ({ body: body as Record<string, unknown>, records: listRecords(body, resource, path) });
    let result = await get(path, check);
    if (result.status === 304) {
      if (keepUnread && (await keepUnread())) return { kept: result.entry };
      const value = await stored(file, check);
      if (value) return { ...value, validators: result.entry, entry: result.entry };
      result = await get(path, check, false);
    }
    if (result.status !== 200) throw new RequestError('E_HTTP_STATUS', path, `GET ${path} answered ${result.status}; is the base URL right?`, { status: result.status });
    return { ...result.value, validators: result.validators };
  }

  onPlanned?.(RESOURCE_NAMES.length);
  const lists = perResource<ListBody & { changed: boolean }>(() => ({ body: {}, records: [], changed: true }));
  await Promise.all(
    RESOURCE_NAMES.map(async (resource) => {
      const path = listPath(resource);
      const list = await fetchList(resource, path, listFile(resource));
      if (list.entry) reuse(path, list.entry);
      else remember(path, list.validators, { own: list.records.flatMap((record) => fieldWarnings(resource, 'list', record)) });
      lists[resource] = { ...list, changed: !list.entry };
    }),
  );
  for (const resource of RESOURCE_NAMES) {
    const count = lists[resource].records.length;
    if (count > maxRecords) throw new ValidationError(`GET ${listPath(resource)} lists ${count} records, over the limit of ${maxRecords} (sync.maxRecords); raise it if the inventory really is that large`);
  }

  const byId = perResource<Map<string, RawRecord>>(() => new Map());
  for (const resource of RESOURCE_NAMES) for (const record of lists[resource].records) byId[resource].set(record.id, record);
  const serverIds = new Set(byId.servers.keys());
  const viewKeys = planViews(perResource((r) => lists[r].records), filters);
  onPlanned?.(RESOURCE_NAMES.length + RESOURCE_NAMES.reduce((n, r) => n + lists[r].records.length, 0) + viewKeys.length);

  // A record the service answers 304 for was checked against its list item as the previous
  // snapshot published it; where the list changed, that item is compared with the new one.
  const publishedItems = perResource<Map<string, RawRecord> | undefined>(() => undefined);
  for (const resource of RESOURCE_NAMES) {
    if (!lists[resource].changed || cache.size === 0) continue;
    const before = await stored(listFile(resource), (body) => listRecords(body, resource, listPath(resource)));
    if (before) publishedItems[resource] = new Map(before.map((record) => [record.id, record]));
  }
  /** Whether the list item of a record is the one the previous snapshot published (so its checks still hold). */
  const itemUnchanged = (resource: ResourceName, item: RawRecord): boolean => {
    if (!lists[resource].changed) return true;
    const before = publishedItems[resource]?.get(item.id);
    return before !== undefined && sameJson(before, redactRecord(resource, item, redact));
  };

  /** The checks of a single record against its list item, on the forms as published. */
  const crossChecks = (resource: ResourceName, item: RawRecord, record: RawRecord): Warning[] => {
    const published = redactRecord(resource, record, redact) as RawRecord;
    const found = listSingleWarnings(resource, redactRecord(resource, item, redact) as RawRecord, published);
    if (resource === 'databases') found.push(...databaseServerWarnings(published));
    return found;
  };

  const gone = perResource<string[]>(() => []);
  const fetchSingle = async (resource: ResourceName, item: RawRecord): Promise<void> => {
    const path = singlePath(resource, item.id);
    const file = recordFile(resource, item.id);
    const owner = `${resource} id ${JSON.stringify(item.id)}`;
    const check = (body: unknown) => ({ body, record: singleRecord(body, RESOURCES[resource].singular, item.id, path) });
    // The appserver's server is checked on its list item (which must agree with the single
    // view, else that is reported), so it holds without reading the record.
    if (resource === 'appservers') warnings.push(...redactWarnings(appserverServerWarnings(item, serverIds), redact));
    let result = await get(path, check);
    if (result.status === 304) {
      const { entry } = result;
      // Unchanged record, unchanged list item: every check still holds, no need to read it.
      if (itemUnchanged(resource, item) && (await sink.keep(file, owner))) {
        reuse(path, entry);
        return;
      }
      // Unchanged record, changed list item: check it again against the published file.
      const value = await stored(file, check);
      if (value && (await sink.keep(file, owner))) {
        remember(path, entry, { own: entry.warnings, checks: crossChecks(resource, item, value.record) });
        return;
      }
      result = await get(path, check, false);
    }
    if (result.status === 404) {
      gone[resource].push(item.id);
      return;
    }
    if (result.status !== 200) throw new RequestError('E_HTTP_STATUS', path, `GET ${path} answered 304 to a request that was not conditional`, { status: 304 });
    const { body, record } = result.value;
    remember(path, result.validators, { own: fieldWarnings(resource, 'single', record), checks: crossChecks(resource, item, record) });
    await sink.put(file, encodeJson(redactBody(resource, body, redact)), owner);
  };

  const fetchView = async (key: ViewKey): Promise<void> => {
    const path = filterPath(key.resource, key.param, key.value);
    const file = filterFile(key.resource, key.param, key.value);
    const owner = `the view ${key.resource}?${key.param}=${JSON.stringify(key.value)}`;
    // A view's records are records of the list, judged there; only membership is new, and it
    // still holds, unread, when neither the view nor its list changed.
    const view = await fetchList(key.resource, path, file, async () => !lists[key.resource].changed && (await sink.keep(file, owner)));
    if ('kept' in view) {
      reuse(path, view.kept);
      return;
    }
    const checks = view.records
      .filter((record) => !byId[key.resource].has(record.id))
      .map((record) => ({ resource: key.resource, id: record.id, field: '', message: `is in the filtered view ?${key.param}=${key.value} but not in the ${key.resource} list` }));
    remember(path, view.validators, { checks });
    if (!view.entry || !(await sink.keep(file, owner))) await sink.put(file, encodeJson(redactBody(key.resource, view.body, redact)), owner);
  };
  // Views first (fewer, larger), then every record, through a few workers: only the jobs in
  // flight exist at any time, instead of one waiting promise per record for the whole pull.
  function* jobs(): Generator<() => Promise<void>> {
    for (const key of viewKeys) yield () => fetchView(key);
    for (const resource of RESOURCE_NAMES) for (const item of lists[resource].records) yield () => fetchSingle(resource, item);
  }
  await drain(jobs(), concurrency * 2);

  for (const resource of RESOURCE_NAMES) {
    const left = new Set(gone[resource]);
    for (const id of gone[resource]) warnings.push({ resource, id, field: '', message: 'is listed but its single record answered 404 (deleted during the sync?); left out of this snapshot' });
    const list = lists[resource];
    const owner = `the ${resource} list`;
    if (left.size === 0 && !list.changed && (await sink.keep(listFile(resource), owner))) continue;
    const body = left.size ? { ...list.body, [resource]: list.records.filter((r) => !left.has(r.id)) } : list.body;
    await sink.put(listFile(resource), encodeJson(redactBody(resource, body, redact)), owner);
    if (left.size === 0) continue;
    // The published list and views lack these records, so they are not the service's bodies:
    // no validators for them, and the next sync fetches them whole.
    nextCache.delete(listPath(resource));
    for (const key of viewKeys) {
      if (key.resource !== resource) continue;
      const file = filterFile(resource, key.param, key.value);
      const bytes = await sink.read(file);
      if (!bytes) continue;
      const view = JSON.parse(bytes.toString('utf8')) as Record<string, RawRecord[]>;
      await sink.put(file, encodeJson({ ...view, [resource]: view[resource]!.filter((r) => !left.has(r.id)) }), `the view ${resource}?${key.param}=${JSON.stringify(key.value)}`);
      nextCache.delete(filterPath(resource, key.param, key.value));
    }
  }
  return { views: viewKeys, gone, warnings, cache: nextCache };
}
