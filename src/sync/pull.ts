/**
 * The pull stage: every list, then every single record and filtered view, each validated as it
 * arrives and kept as the bytes it will be published as, so the parsed single records do not
 * pile up in memory.
 */
import { RequestError } from '../errors.js';
import type { Client, Validators } from '../fetch/client.js';
import { planViews, type ViewKey } from '../index/views.js';
import type { FilterSettings } from '../config/schema.js';
import { encodeJson } from '../publish/json.js';
import { filterPath, listPath, RESOURCE_NAMES, RESOURCES, singlePath, type ResourceName } from '../spec/resources.js';
import type { RawRecord } from '../spec/schemas.js';
import { appserverServerWarnings, databaseServerWarnings, listSingleWarnings } from '../validate/crosscheck.js';
import { fieldWarnings } from '../validate/fields.js';
import { listRecords, singleRecord } from '../validate/structure.js';
import type { Warning } from '../validate/warnings.js';

export interface ListBody {
  /** The parsed body; its records array is `body[resource]`. */
  body: Record<string, unknown>;
  records: RawRecord[];
}

export interface PulledView extends ViewKey, ListBody {}

export interface Pulled {
  lists: Record<ResourceName, ListBody>;
  /** Published bytes of each single record, by resource and id. */
  singles: Record<ResourceName, Map<string, Buffer>>;
  views: PulledView[];
  /** Records listed but answering 404 as single records: left out of the snapshot. */
  gone: Record<ResourceName, string[]>;
  warnings: Warning[];
}

export interface PullOptions {
  client: Client;
  filters: FilterSettings;
  /** Told the number of requests planned so far, for progress. */
  onPlanned?: (total: number) => void;
}

function emptyRecord<T>(make: () => T): Record<ResourceName, T> {
  return Object.fromEntries(RESOURCE_NAMES.map((r) => [r, make()])) as Record<ResourceName, T>;
}

function expectOk<T>(result: Awaited<ReturnType<Client['get']>>, path: string): asserts result is { status: 200; value: T; bytes: Buffer; validators: Validators } {
  if (result.status !== 200) throw new Error(`GET ${path}: unexpected ${result.status}`);
}

/** Pulls and validates the whole inventory. Throws on the first structural fault. */
export async function pull({ client, filters, onPlanned }: PullOptions): Promise<Pulled> {
  const warnings: Warning[] = [];
  onPlanned?.(RESOURCE_NAMES.length);
  const lists = emptyRecord<ListBody>(() => ({ body: {}, records: [] }));
  await Promise.all(
    RESOURCE_NAMES.map(async (resource) => {
      const path = listPath(resource);
      const result = await client.get(path, (body) => ({ body: body as Record<string, unknown>, records: listRecords(body, resource, path) }));
      if (result.status === 404) throw new RequestError('E_HTTP_STATUS', path, `GET ${path} answered 404; is the base URL right?`, { status: 404 });
      expectOk<ListBody>(result, path);
      lists[resource] = result.value;
      for (const record of result.value.records) warnings.push(...fieldWarnings(resource, 'list', record));
    }),
  );

  const byId = emptyRecord<Map<string, RawRecord>>(() => new Map());
  for (const resource of RESOURCE_NAMES) for (const record of lists[resource].records) byId[resource].set(record.id, record);
  const serverIds = new Set(byId.servers.keys());
  const viewKeys = planViews(Object.fromEntries(RESOURCE_NAMES.map((r) => [r, lists[r].records])) as Record<ResourceName, RawRecord[]>, filters);
  onPlanned?.(RESOURCE_NAMES.length + [...RESOURCE_NAMES].reduce((n, r) => n + lists[r].records.length, 0) + viewKeys.length);

  const singles = emptyRecord<Map<string, Buffer>>(() => new Map());
  const gone = emptyRecord<string[]>(() => []);
  const singleJobs = RESOURCE_NAMES.flatMap((resource) =>
    lists[resource].records.map(async (item) => {
      const path = singlePath(resource, item.id);
      const result = await client.get(path, (body) => ({ body, record: singleRecord(body, RESOURCES[resource].singular, item.id, path) }));
      if (result.status === 404) {
        gone[resource].push(item.id);
        return;
      }
      expectOk<{ body: unknown; record: RawRecord }>(result, path);
      const { body, record } = result.value;
      warnings.push(...fieldWarnings(resource, 'single', record), ...listSingleWarnings(resource, item, record));
      if (resource === 'databases') warnings.push(...databaseServerWarnings(record));
      if (resource === 'appservers') warnings.push(...appserverServerWarnings(record, serverIds));
      singles[resource].set(item.id, encodeJson(body));
    }),
  );
  const viewJobs = viewKeys.map(async (key): Promise<PulledView> => {
    const path = filterPath(key.resource, key.param, key.value);
    const result = await client.get(path, (body) => ({ body: body as Record<string, unknown>, records: listRecords(body, key.resource, path) }));
    if (result.status === 404) throw new RequestError('E_HTTP_STATUS', path, `GET ${path} answered 404`, { status: 404 });
    expectOk<ListBody>(result, path);
    for (const record of result.value.records) {
      if (!byId[key.resource].has(record.id)) {
        warnings.push({ resource: key.resource, id: record.id, field: '', message: `is in the filtered view ?${key.param}=${key.value} but not in the ${key.resource} list` });
      }
    }
    return { ...key, ...result.value };
  });
  const [, views] = await Promise.all([Promise.all(singleJobs), Promise.all(viewJobs)]);

  for (const resource of RESOURCE_NAMES) {
    for (const id of gone[resource]) warnings.push({ resource, id, field: '', message: 'is listed but its single record answered 404 (deleted during the sync?); left out of this snapshot' });
  }
  return { lists, singles, views, gone, warnings };
}
