/**
 * Indirect links (pure): which appservers connect to which database. An appserver names its
 * database by host (`dbconn_server`, `dbconn_url`) and schema (`dbconn_db`); a database names its
 * hosts (instances' `host_alias` and `listen_address`, `server_names`, its servers' names) and
 * schemas (the keys of its instances' `databases`). Worked out by the sync for every database at
 * once, from a map of hosts, so the cost is linear in the records, not databases × appservers.
 */
import type { Cell } from './table.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** What a database answers to, in lower case: host names and addresses, schema names. */
export interface DatabaseKeys {
  hosts: Set<string>;
  schemas: Set<string>;
}

/** A database's keys, from its single view. */
export function databaseKeys(db: Record<string, unknown>): DatabaseKeys {
  const hosts = new Set<string>();
  const schemas = new Set<string>();
  const add = (set: Set<string>, v: unknown): void => {
    if (typeof v === 'string' && v.trim() !== '') set.add(v.trim().toLowerCase());
  };
  for (const s of Array.isArray(db.servers) ? db.servers : []) add(hosts, isObject(s) ? s.name : undefined);
  for (const n of Array.isArray(db.server_names) ? db.server_names : []) add(hosts, n);
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

const text = (cell: Cell | undefined): string => (cell === null || cell === undefined ? '' : Array.isArray(cell) ? cell.join(', ') : String(cell));

/** An appserver's connection as its table row has it: host (port dropped) and schema, in lower case. */
export function connectionOf(server: Cell | undefined, url: Cell | undefined, db: Cell | undefined): { host: string; schema: string } | undefined {
  const host = text(server).trim().toLowerCase().replace(/:\d+$/, '') || urlHost(text(url));
  return host ? { host, schema: text(db).trim().toLowerCase() } : undefined;
}

/**
 * Matches connections to databases: those whose keys hold the connection's host; when a database
 * lists schemas, the connection's schema must be one of them too (one host often serves many
 * databases). Returns a function from a connection to the ids of the databases it reaches.
 */
export function databaseMatcher(keys: ReadonlyMap<string, DatabaseKeys>): (connection: { host: string; schema: string }) => string[] {
  const byHost = new Map<string, string[]>();
  for (const [id, k] of keys) {
    for (const host of k.hosts) {
      const list = byHost.get(host);
      if (list) list.push(id);
      else byHost.set(host, [id]);
    }
  }
  return ({ host, schema }) => (byHost.get(host) ?? []).filter((id) => {
    const schemas = keys.get(id)!.schemas;
    return schemas.size === 0 || schema === '' || schemas.has(schema);
  });
}
