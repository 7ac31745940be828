/**
 * The requests a sync makes, as plain data: the five lists, then every single record and every
 * filtered view the lists reveal, planned exactly as `sync/pull.ts` plans them (default, empty
 * configured filters), each with the file it is published as. Pure.
 */
import { filtersSchema } from '../src/config/schema.js';
import { planViews } from '../src/index/views.js';
import { filterFile, listFile, recordFile } from '../src/snapshot/paths.js';
import { filterPath, listPath, RESOURCE_NAMES, singlePath, type ResourceName } from '../src/spec/resources.js';
import type { RawRecord } from '../src/spec/schemas.js';

/** One GET and the file its body lands in. */
export interface Fetch {
  path: string;
  file: string;
}

/** The five list requests, fetched first. */
export function listFetches(): Fetch[] {
  return RESOURCE_NAMES.map((resource) => ({ path: listPath(resource), file: listFile(resource) }));
}

/** Every single record and filtered view, given the records of the five lists. */
export function detailFetches(lists: Readonly<Record<ResourceName, readonly RawRecord[]>>): Fetch[] {
  const singles = RESOURCE_NAMES.flatMap((resource) => lists[resource].map((record) => ({ path: singlePath(resource, record.id), file: recordFile(resource, record.id) })));
  const discovered = { osIds: lists.operating_systems.map((os) => os.id), fieldValues: (resource: ResourceName, field: string) => lists[resource].map((r) => r[field]).filter((v): v is string => typeof v === 'string' && v.length > 0) };
  const views = planViews(discovered, filtersSchema.parse({})).map(({ resource, param, value }) => ({ path: filterPath(resource, param, value), file: filterFile(resource, param, value) }));
  return [...singles, ...views];
}
