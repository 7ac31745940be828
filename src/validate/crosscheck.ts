/**
 * Checks across records: an appserver's server exists, a database's server names name servers
 * and its single view lists one server per name, a filtered view lists only records of the list.
 * Pure; each finding names the record it is about.
 */
import type { RawRecord } from '../spec/schemas.js';
import type { ResourceName } from '../spec/resources.js';
import { isPlainObject } from '../util/json-value.js';
import type { Finding } from './findings.js';

/**
 * Where a record's list item and single view disagree on a field, the published record carries the
 * single view's value: `mismatches` are the field's view_mismatch values by id ({list, single}).
 */
export function publishedValue(mismatches: ReadonlyMap<string, unknown>, id: string, listValue: unknown): unknown {
  const mismatch = mismatches.get(id);
  return isPlainObject(mismatch) && Object.hasOwn(mismatch, 'single') ? mismatch.single : listValue;
}

/**
 * The server names records may name: the list items' names, and the single view's name where it
 * differs from the list's (a list showing an outdated name must not make references to the
 * current one dangle). `renamed` are servers.name view_mismatch values.
 */
export function serverNames(listNames: { has(name: string): boolean }, renamed: ReadonlyMap<string, unknown>): { has(name: string): boolean } {
  const current = new Set<unknown>();
  for (const id of renamed.keys()) current.add(publishedValue(renamed, id, undefined));
  return { has: (name) => listNames.has(name) || current.has(name) };
}

/** An appserver whose server_id names no server of the inventory. */
export function appserverServerFindings(appserver: RawRecord, serverIds: { has(id: string): boolean }): Finding[] {
  const id = appserver.server_id;
  if (typeof id !== 'string' || serverIds.has(id)) return [];
  return [{ resource: 'appservers', id: appserver.id, field: 'server_id', code: 'dangling_ref', value: id }];
}

/** A database whose server_names holds names no server has. */
export function databaseNameFindings(database: RawRecord, serverNames: { has(name: string): boolean }): Finding[] {
  const names = database.server_names;
  if (!Array.isArray(names)) return [];
  const unknown = names.filter((name) => typeof name === 'string' && !serverNames.has(name));
  return unknown.length ? [{ resource: 'databases', id: database.id, field: 'server_names', code: 'dangling_ref', value: unknown }] : [];
}

/** A database's single view lists one server per name in server_names. */
export function serverListFindings(single: RawRecord): Finding[] {
  const names = single.server_names;
  const servers = single.servers;
  if (!Array.isArray(names) || !Array.isArray(servers)) return [];
  const listed = servers.map((s) => (isPlainObject(s) ? s.name : undefined));
  const missing = names.filter((n) => !listed.includes(n));
  const extra = listed.filter((n) => !names.includes(n));
  if (names.length === servers.length && missing.length === 0 && extra.length === 0) return [];
  return [{ resource: 'databases', id: single.id, field: 'servers', code: 'server_list_mismatch', value: { server_names: names.length, servers: servers.length, ...(missing.length ? { missing } : {}), ...(extra.length ? { extra } : {}) } }];
}

/** A record of a filtered view that the full list does not hold. */
export function notInListFinding(resource: ResourceName, id: string, view: string): Finding {
  return { resource, id, field: view, code: 'not_in_list' };
}
