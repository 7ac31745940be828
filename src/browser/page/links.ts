/**
 * Indirect links (pure): which appservers connect to a database. An appserver names its database
 * by host (`dbconn_server`, `dbconn_url`) and schema (`dbconn_db`); a database names its hosts
 * (instances' `host_alias` and `listen_address`, its servers) and schemas (instances' `databases`).
 */
import { fmt } from './format.js';
import type { RecordBody, Table } from './types.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A database's host names and addresses, and its schema names, in lower case. */
export function databaseKeys(db: RecordBody, serverNames: readonly string[]): { hosts: Set<string>; schemas: Set<string> } {
  const hosts = new Set<string>();
  const schemas = new Set<string>();
  const add = (set: Set<string>, v: unknown): void => {
    if (typeof v === 'string' && v.trim() !== '') set.add(v.trim().toLowerCase());
  };
  for (const n of serverNames) add(hosts, n);
  if (Array.isArray(db.server_names)) for (const n of db.server_names) add(hosts, n);
  for (const inst of Array.isArray(db.instances) ? db.instances : []) {
    if (!isObject(inst)) continue;
    add(hosts, inst.host_alias);
    add(hosts, inst.listen_address);
    if (isObject(inst.databases)) for (const k of Object.keys(inst.databases)) add(schemas, k);
  }
  return { hosts, schemas };
}

/** The host of a `dbconn_url` (`kind://host:port/db`, or a JDBC-like `…@host:port…`). */
export function urlHost(url: string): string | undefined {
  const m = /\/\/(?:[^@/]*@)?([^:/?#]+)/.exec(url) ?? /@([^:/?#]+)/.exec(url);
  return m?.[1]?.toLowerCase();
}

/**
 * The appservers whose connection names one of the database's hosts; when the database lists
 * schemas, the connection's schema must be one of them too (one host often serves many databases).
 */
export function connectedAppservers(A: Table, keys: { hosts: Set<string>; schemas: Set<string> }): string[] {
  const server = A.cols.get('dbconn_server');
  const url = A.cols.get('dbconn_url');
  const db = A.cols.get('dbconn_db');
  const out: string[] = [];
  for (let i = 0; i < A.n; i++) {
    const host = fmt(server?.[i] ?? null).trim().toLowerCase().replace(/:\d+$/, '') || urlHost(fmt(url?.[i] ?? null));
    if (!host || !keys.hosts.has(host)) continue;
    const schema = fmt(db?.[i] ?? null).trim().toLowerCase();
    if (keys.schemas.size > 0 && schema !== '' && !keys.schemas.has(schema)) continue;
    out.push(A.ids[i]!);
  }
  return out;
}
