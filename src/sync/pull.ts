/**
 * The pull stage: every list, then every single record and filtered view, each validated as it
 * arrives, redacted by the policy, and kept as the bytes it will be published as, so parsed
 * records do not pile up in memory. With the previous snapshot's validators it asks "changed
 * since?" and, on 304, takes the body from the published file (already redacted) instead of the
 * wire.
 */
import { RequestError, ValidationError } from '../errors.js';
import type { HttpCache } from '../fetch/cache.js';
import type { Client } from '../fetch/client.js';
import { planViews, type ViewKey } from '../index/views.js';
import type { FilterSettings } from '../config/schema.js';
import { encodeJson } from '../publish/json.js';
import { filterFile, listFile, recordFile } from '../publish/paths.js';
import { filterPath, listPath, RESOURCE_NAMES, RESOURCES, singlePath, type ResourceName } from '../spec/resources.js';
import type { RawRecord } from '../spec/schemas.js';
import { appserverServerWarnings, databaseServerWarnings, listSingleWarnings } from '../validate/crosscheck.js';
import { fieldWarnings } from '../validate/fields.js';
import { listRecords, singleRecord } from '../validate/structure.js';
import type { Warning } from '../validate/warnings.js';
import type { RedactPolicy } from '../redact/policy.js';
import { redactBody, redactRecord, redactWarnings } from '../redact/redact.js';

export interface ListBody {
  /** The parsed body; its records array is `body[resource]`. */
  body: Record<string, unknown>;
  records: RawRecord[];
}

export interface PulledView extends ViewKey {
  /** Published bytes of the view. */
  bytes: Buffer;
}

export interface Pulled {
  /** Published bytes of each list. */
  lists: Record<ResourceName, Buffer>;
  /** Published bytes of each single record, by resource and id. */
  singles: Record<ResourceName, Map<string, Buffer>>;
  views: PulledView[];
  /** Records listed but answering 404 as single records: left out of the snapshot. */
  gone: Record<ResourceName, string[]>;
  warnings: Warning[];
  /** Validators of this snapshot's responses, for the next sync. */
  cache: HttpCache;
}

export interface PullOptions {
  client: Client;
  filters: FilterSettings;
  /** Told the number of requests planned so far, for progress. */
  onPlanned?: (total: number) => void;
  /** Validators and warnings of the previous snapshot's responses. */
  cache?: HttpCache;
  /** Whether the previous snapshot has this file (then a conditional request is worth making). */
  hasPrevious?: (file: string) => boolean;
  /** A file of the previous snapshot (to answer a 304), or undefined when it is gone or altered. */
  readPrevious?: (file: string) => Promise<Buffer | undefined>;
  /** Fields removed or masked in every body before it is kept. */
  redact?: RedactPolicy | undefined;
  /** A list longer than this fails the sync before any single record is fetched. */
  maxRecords?: number;
}

function perResource<T>(make: (resource: ResourceName) => T): Record<ResourceName, T> {
  return Object.fromEntries(RESOURCE_NAMES.map((r) => [r, make(r)])) as Record<ResourceName, T>;
}

interface Fetched<T> {
  value: T;
  /** The published file's bytes when the service answered 304. */
  stored: Buffer | undefined;
}

/** Pulls and validates the whole inventory. Throws on the first structural fault. */
export async function pull({ client, filters, onPlanned, cache = new Map(), hasPrevious = () => false, readPrevious = async () => undefined, redact, maxRecords = Infinity }: PullOptions): Promise<Pulled> {
  const warnings: Warning[] = [];
  const nextCache: HttpCache = new Map();

  /**
   * GET with validators when the previous snapshot has the file; field warnings are computed on
   * a fresh body and replayed from the cache on a 304. Undefined on 404.
   */
  const fetchJson = async <T>(path: string, file: string, check: (body: unknown) => T, fieldCheck: (value: T) => Warning[]): Promise<Fetched<T> | undefined> => {
    const entry = cache.get(path);
    // Ask "changed since?" only for bodies the previous snapshot holds; read the file only on 304.
    const conditional = entry && (entry.etag || entry.lastModified) && hasPrevious(file) ? entry : undefined;
    const result = await client.get(path, check, conditional);
    if (result.status === 404) return undefined;
    if (result.status === 304) {
      const stored = await readPrevious(file);
      let value: T | undefined;
      try {
        value = stored ? check(JSON.parse(stored.toString('utf8'))) : undefined;
      } catch {
        value = undefined;
      }
      if (stored && value !== undefined) {
        nextCache.set(path, entry!);
        warnings.push(...(entry!.warnings ?? []));
        return { value, stored };
      }
      // The published file is gone or altered: fetch the body outright.
      cache.delete(path);
      return fetchJson(path, file, check, fieldCheck);
    }
    // Cached (and so replayed) only as the policy lets them be shown.
    const found = redactWarnings(fieldCheck(result.value), redact);
    warnings.push(...found);
    const { etag, lastModified } = result.validators;
    if (etag || lastModified) nextCache.set(path, { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}), ...(found.length ? { warnings: found } : {}) });
    return { value: result.value, stored: undefined };
  };

  const fetchList = async (resource: ResourceName, path: string, file: string, checkFields: boolean): Promise<ListBody & { bytes: Buffer }> => {
    const check = (body: unknown): ListBody => ({ body: body as Record<string, unknown>, records: listRecords(body, resource, path) });
    const fieldCheck = (list: ListBody): Warning[] => (checkFields ? list.records.flatMap((record) => fieldWarnings(resource, 'list', record)) : []);
    const fetched = await fetchJson(path, file, check, fieldCheck);
    if (!fetched) throw new RequestError('E_HTTP_STATUS', path, `GET ${path} answered 404; is the base URL right?`, { status: 404 });
    return { ...fetched.value, bytes: fetched.stored ?? encodeJson(redactBody(resource, fetched.value.body, redact)) };
  };

  onPlanned?.(RESOURCE_NAMES.length);
  const lists = perResource<ListBody & { bytes: Buffer }>(() => ({ body: {}, records: [], bytes: Buffer.alloc(0) }));
  await Promise.all(
    RESOURCE_NAMES.map(async (resource) => {
      lists[resource] = await fetchList(resource, listPath(resource), listFile(resource), true);
    }),
  );

  for (const resource of RESOURCE_NAMES) {
    const count = lists[resource].records.length;
    if (count > maxRecords) throw new ValidationError(`GET ${listPath(resource)} lists ${count} records, over the limit of ${maxRecords} (sync.maxRecords); raise it if the inventory really is that large`);
  }
  const byId = perResource<Map<string, RawRecord>>(() => new Map());
  for (const resource of RESOURCE_NAMES) for (const record of lists[resource].records) byId[resource].set(record.id, record);
  const serverIds = new Set(byId.servers.keys());
  const viewKeys = planViews(perResourceRecords(lists), filters);
  onPlanned?.(RESOURCE_NAMES.length + RESOURCE_NAMES.reduce((n, r) => n + lists[r].records.length, 0) + viewKeys.length);

  const singles = perResource<Map<string, Buffer>>(() => new Map());
  const gone = perResource<string[]>(() => []);
  const singleJobs = RESOURCE_NAMES.flatMap((resource) =>
    lists[resource].records.map(async (item) => {
      const path = singlePath(resource, item.id);
      const check = (body: unknown) => ({ body, record: singleRecord(body, RESOURCES[resource].singular, item.id, path) });
      const fetched = await fetchJson(path, recordFile(resource, item.id), check, ({ record }) => fieldWarnings(resource, 'single', record));
      if (!fetched) {
        gone[resource].push(item.id);
        return;
      }
      const { record, body } = fetched.value;
      // Either side may come from a published (redacted) file: compare them as published.
      const published = redactRecord(resource, record, redact) as RawRecord;
      warnings.push(...redactWarnings(listSingleWarnings(resource, redactRecord(resource, item, redact) as RawRecord, published), redact));
      if (resource === 'databases') warnings.push(...databaseServerWarnings(published));
      if (resource === 'appservers') warnings.push(...appserverServerWarnings(published, serverIds));
      singles[resource].set(item.id, fetched.stored ?? encodeJson(redactBody(resource, body, redact)));
    }),
  );
  const viewJobs = viewKeys.map(async (key): Promise<PulledView> => {
    const path = filterPath(key.resource, key.param, key.value);
    // A view's records are records of the list, already judged there; only membership is new.
    const view = await fetchList(key.resource, path, filterFile(key.resource, key.param, key.value), false);
    for (const record of view.records) {
      if (!byId[key.resource].has(record.id)) {
        warnings.push({ resource: key.resource, id: record.id, field: '', message: `is in the filtered view ?${key.param}=${key.value} but not in the ${key.resource} list` });
      }
    }
    return { ...key, bytes: view.bytes };
  });
  const [, views] = await Promise.all([Promise.all(singleJobs), Promise.all(viewJobs)]);

  for (const resource of RESOURCE_NAMES) {
    if (gone[resource].length === 0) continue;
    for (const id of gone[resource]) warnings.push({ resource, id, field: '', message: 'is listed but its single record answered 404 (deleted during the sync?); left out of this snapshot' });
    // The published list and views lack these records, so they are not the service's bodies:
    // no validators for them, and the next sync fetches them whole.
    const left = new Set(gone[resource]);
    lists[resource].bytes = withoutRecords(lists[resource].bytes, resource, left);
    nextCache.delete(listPath(resource));
    for (const view of views) {
      if (view.resource !== resource) continue;
      view.bytes = withoutRecords(view.bytes, resource, left);
      nextCache.delete(filterPath(resource, view.param, view.value));
    }
  }
  return { lists: perResource((r) => lists[r].bytes), singles, views, gone, warnings, cache: nextCache };
}

/** A published list body without the given records (rare: records deleted during the sync). */
function withoutRecords(bytes: Buffer, resource: ResourceName, ids: ReadonlySet<string>): Buffer {
  const body = JSON.parse(bytes.toString('utf8')) as Record<string, RawRecord[]>;
  return encodeJson({ ...body, [resource]: body[resource]!.filter((r) => !ids.has(r.id)) });
}

function perResourceRecords(lists: Record<ResourceName, ListBody>): Record<ResourceName, RawRecord[]> {
  return Object.fromEntries(RESOURCE_NAMES.map((r) => [r, lists[r].records])) as Record<ResourceName, RawRecord[]>;
}
