/**
 * The findings a run makes once everything is pulled, beside those the pull made as bodies came
 * in: what was kept unread keeps the findings it had (from the previous quality report), and
 * references are judged across records once both renderings are known (the published record
 * carries the single view's value). Pure.
 */
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import { appserverServerFindings, databaseNameFindings, publishedValue, serverNames } from '../validate/crosscheck.js';
import { isRecordCode, type CarriedGroup, type Finding, type FindingCode } from '../validate/findings.js';
import type { Quality } from '../validate/quality.js';
import type { Shape } from '../validate/record.js';
import type { ListSummary } from './lists.js';
import type { Pulled } from './pull.js';

/**
 * The previous snapshot's findings about what this run kept unread, group by group: those about a
 * record's own bodies, of the records still listed and not read again (they hold while both bodies
 * are unchanged), and those of views kept on a 304.
 */
export function carriedGroups(previous: Quality, lists: Record<ResourceName, ListSummary>, pulled: Pulled): CarriedGroup[] {
  const carried: CarriedGroup[] = [];
  for (const group of previous.findings) {
    const { resource, field, code } = group;
    let ids: string[];
    if (isRecordCode(code)) {
      const { members } = lists[resource];
      const reread = pulled.reread[resource];
      ids = group.ids.filter((id) => members.has(id) && !reread.has(id));
    } else if (code === 'not_in_list' && pulled.keptViews.has(`${resource}\u0000${field}`)) ids = group.ids;
    else continue;
    const values = new Map<string, unknown>();
    if (group.values) for (const id of ids) if (Object.hasOwn(group.values, id) && group.values[id] !== undefined) values.set(id, group.values[id]);
    carried.push({ resource, field, code, ids, values });
  }
  return carried;
}

/** The fields only one rendering carries, from the records read, plus the previous report's where records were kept unread. */
export function shapesWithCarried(shapes: ReadonlyMap<ResourceName, Shape>, previous: Quality | undefined, lists: Record<ResourceName, ListSummary>, pulled: Pulled): Map<ResourceName, Shape> {
  const out = new Map<ResourceName, Shape>();
  for (const [resource, shape] of shapes) out.set(resource, { listOnly: new Set(shape.listOnly), singleOnly: new Set(shape.singleOnly) });
  if (!previous) return out;
  for (const resource of RESOURCE_NAMES) {
    const before = previous.shape[resource];
    if (!before || pulled.reread[resource].size === lists[resource].ids.length) continue;
    const shape = out.get(resource) ?? { listOnly: new Set<string>(), singleOnly: new Set<string>() };
    for (const field of before.listOnly) shape.listOnly.add(field);
    for (const field of before.singleOnly) shape.singleOnly.add(field);
    out.set(resource, shape);
  }
  return out;
}

/** Reads the view_mismatch values the run found for a field (the single view's value is the published one). */
type Mismatches = (resource: ResourceName, field: string, code: FindingCode) => ReadonlyMap<string, unknown>;

/**
 * Dangling references: appservers to servers by id, databases to servers by name. Both need the
 * servers: when they are not mirrored (config `resources`) nothing can be judged, and nothing is.
 */
export function crossCheckFindings(lists: Record<ResourceName, ListSummary>, chosen: readonly ResourceName[], mismatches: Mismatches): Finding[] {
  const found: Finding[] = [];
  if (!chosen.includes('servers')) return found;
  const names = serverNames(lists.servers.names, mismatches('servers', 'name', 'view_mismatch'));
  const serverIds = mismatches('appservers', 'server_id', 'view_mismatch');
  const serverNameLists = mismatches('databases', 'server_names', 'view_mismatch');
  // Appended one by one: a spread per record of 100 000 was most of the time here.
  const add = (findings: Finding[]): void => {
    for (const finding of findings) found.push(finding);
  };
  for (let n = 0; n < lists.appservers.ids.length; n++) {
    const id = lists.appservers.ids.at(n);
    add(appserverServerFindings({ id, server_id: publishedValue(serverIds, id, JSON.parse(lists.appservers.refs.at(n))) }, lists.servers.members));
  }
  for (let n = 0; n < lists.databases.ids.length; n++) {
    const id = lists.databases.ids.at(n);
    add(databaseNameFindings({ id, server_names: publishedValue(serverNameLists, id, JSON.parse(lists.databases.refs.at(n))) }, names));
  }
  return found;
}
