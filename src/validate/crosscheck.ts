/**
 * Checks across records: a list item agrees with its single view, a database's servers match
 * its server_names, an appserver's server exists. Pure; each finding is a Warning.
 */
import type { RawRecord } from '../spec/schemas.js';
import type { ResourceName } from '../spec/resources.js';
import { isPlainObject } from '../util/json-value.js';
import { preview, type Warning } from './warnings.js';

/**
 * Paths where `list` and `single` disagree. The single view may add fields (at any depth, e.g.
 * each database instance gains `config`), so a list value must be contained in the single one.
 */
export function disagreements(list: unknown, single: unknown, path = ''): string[] {
  if (isPlainObject(list) && isPlainObject(single)) {
    return Object.keys(list).flatMap((key) => (key in single ? disagreements(list[key], single[key], path ? `${path}.${key}` : key) : [path ? `${path}.${key}` : key]));
  }
  if (Array.isArray(list) && Array.isArray(single)) {
    if (list.length !== single.length) return [path];
    return list.flatMap((item, i) => disagreements(item, single[i], `${path}[${i}]`));
  }
  return list === single ? [] : [path];
}

/** A warning per field where a list item and its single view differ. */
export function listSingleWarnings(resource: ResourceName, listItem: RawRecord, single: RawRecord): Warning[] {
  return disagreements(listItem, single).map((field) => ({
    resource,
    id: single.id,
    field,
    message: `the list says ${preview(valueAtPath(listItem, field))}, the single view says ${preview(valueAtPath(single, field))}`,
  }));
}

function valueAtPath(record: unknown, path: string): unknown {
  let value: unknown = record;
  for (const part of path.match(/[^.[\]]+/g) ?? []) value = isPlainObject(value) || Array.isArray(value) ? (value as Record<string, unknown>)[part] : undefined;
  return value;
}

/** A database's single view lists one server per name in server_names. */
export function databaseServerWarnings(single: RawRecord): Warning[] {
  const names = single.server_names;
  const servers = single.servers;
  if (!Array.isArray(names) || !Array.isArray(servers)) return [];
  const listed = servers.map((s) => (isPlainObject(s) ? s.name : undefined));
  const missing = names.filter((n) => !listed.includes(n));
  const extra = listed.filter((n) => !names.includes(n));
  if (names.length === servers.length && missing.length === 0 && extra.length === 0) return [];
  return [
    {
      resource: 'databases',
      id: single.id,
      field: 'servers',
      message: `has ${servers.length} entries for ${names.length} server_names${missing.length ? `; no entry for ${preview(missing)}` : ''}${extra.length ? `; entries not in server_names: ${preview(extra)}` : ''}`,
    },
  ];
}

/** An appserver's server_id names a server of the snapshot. */
export function appserverServerWarnings(appserver: RawRecord, serverIds: ReadonlySet<string>): Warning[] {
  const id = appserver.server_id;
  if (typeof id !== 'string' || serverIds.has(id)) return [];
  return [{ resource: 'appservers', id: appserver.id, field: 'server_id', message: `names server ${JSON.stringify(id)}, which is not in the servers list` }];
}
