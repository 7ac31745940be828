/**
 * The links a record page shows (pure): a server's applications (whose instances name it),
 * appservers (by `server_id`) and databases (by `servers`); an application's and an appserver's
 * servers; an appserver's databases and a database's appservers (by `dbconn_*`, db-links.ts) and
 * those appservers' servers; an operating system's servers (its `by_system` view: on it or on a
 * descendant) and child systems. Worked out by the sync from the lists, the views and the tables'
 * chunks, and written per detail bucket (`_browser/links/<resource>/<n>.js`), so a record page
 * loads one small file instead of whole tables. A kind keeps its first LINKS_KEPT records and
 * their count: a system with 100 000 servers still has a small file.
 */
import type { ResourceName } from '../spec/resources.js';
import { BROWSER_DIR, bucketOf } from './data.js';
import { connectionOf, databaseMatcher, type DatabaseKeys } from './db-links.js';
import { readJsonArgs, type Cell, type Column } from './table.js';

/** Records a links file keeps per record and kind (the page shows at most as many; the count says how many there are). */
export const LINKS_KEPT = 100;
/** The resources whose record pages read links files. */
export const LINKED_RESOURCES = ['servers', 'applications', 'appservers', 'databases', 'operating_systems'] as const;
export type LinkedResource = (typeof LINKED_RESOURCES)[number];

export const linksFile = (resource: ResourceName, bucket: number): string => `${BROWSER_DIR}/links/${resource}/${bucket}.js`;

/** A linked record: id and name. */
export type Ref = [string, string];
/** Per record, per kind of link (`applications`), the records linked, in order. */
export type Links = Map<string, Map<string, Ref[]>>;

/** A table chunk as the page reads it: ids and cells by column. */
export interface DecodedChunk {
  ids: string[];
  cols: Map<string, Cell[]>;
}

/** A table chunk script (table.ts's `tableScript`) read back; undefined when it is not one. */
export function decodeTableScript(text: string): DecodedChunk | undefined {
  const args = readJsonArgs(text, 'IM_TABLE');
  if (!args) return undefined;
  const [ids, columns] = args as [string[], Column[]];
  const cols = new Map<string, Cell[]>();
  for (const col of columns) cols.set(col[0], col.length === 3 ? col[1].map((c) => col[2][c] ?? null) : col[1]);
  return { ids, cols };
}

const texts = (cell: Cell | undefined): string[] => (typeof cell === 'string' && cell !== '' ? [cell] : Array.isArray(cell) ? cell : []);

/** A list of links longer than this gets a set of its ids: a database many appservers reach is not scanned once per appserver. */
const SCANNED = 16;
/** The ids of each long list of links (most lists are short: a set for each would cost more memory than the lists). */
const held = new WeakMap<Ref[], Set<string>>();
/** How many records a list stands for, where it keeps only the first ones (a system's servers). */
const counted = new WeakMap<Ref[], number>();

function add(links: Links, id: string, kind: string, ref: Ref): void {
  let kinds = links.get(id);
  if (!kinds) links.set(id, (kinds = new Map()));
  const list = kinds.get(kind);
  if (!list) return void kinds.set(kind, [ref]);
  const ids = held.get(list);
  if (ids ? ids.has(ref[0]) : list.some(([other]) => other === ref[0])) return;
  list.push(ref);
  if (ids) ids.add(ref[0]);
  else if (list.length > SCANNED) held.set(list, new Set(list.map(([other]) => other)));
}

/** What the sync has read: the servers' ids and names (list order), the other tables' chunks, the databases' keys, the `by_system` views. */
export interface LinkInput {
  servers: readonly Ref[];
  applications: readonly DecodedChunk[];
  appservers: readonly DecodedChunk[];
  databases: readonly DecodedChunk[];
  operatingSystems: readonly DecodedChunk[];
  /** Per database id, what it answers to (from its single view). */
  databaseKeys: ReadonlyMap<string, DatabaseKeys>;
  /** Per operating-system id, the first servers of its `by_system` view (at least LINKS_KEPT, in view order) and how many it holds. */
  systemServers: ReadonlyMap<string, { first: readonly string[]; count: number }>;
}

/**
 * The links of every server, application and appserver. An application's instances name their
 * servers by name: a name that several servers share links to each of them.
 */
export function backLinks(input: LinkInput): Record<LinkedResource, Links> {
  const { servers, applications, appservers, databases } = input;
  const out = Object.fromEntries(LINKED_RESOURCES.map((r) => [r, new Map()])) as Record<LinkedResource, Links>;
  const serverName = new Map(servers);
  const byName = new Map<string, string[]>();
  for (const [id, name] of servers) {
    const list = byName.get(name);
    if (list) list.push(id);
    else byName.set(name, [id]);
  }
  const nameOf = (chunk: DecodedChunk, i: number): string => texts(chunk.cols.get('name')?.[i])[0] ?? chunk.ids[i]!;
  for (const chunk of applications) {
    const hosts = chunk.cols.get('application_instances.servers');
    chunk.ids.forEach((app, i) => {
      for (const host of texts(hosts?.[i])) {
        for (const server of byName.get(host) ?? []) {
          add(out.servers, server, 'applications', [app, nameOf(chunk, i)]);
          add(out.applications, app, 'servers', [server, host]);
        }
      }
    });
  }
  for (const chunk of appservers) {
    const serverId = chunk.cols.get('server_id');
    const serverRef = chunk.cols.get('server.id');
    chunk.ids.forEach((a, i) => {
      const server = texts(serverId?.[i])[0] ?? texts(serverRef?.[i])[0];
      if (server === undefined || !serverName.has(server)) return;
      add(out.servers, server, 'appservers', [a, nameOf(chunk, i)]);
      add(out.appservers, a, 'servers', [server, serverName.get(server)!]);
    });
  }
  const dbName = new Map<string, string>();
  for (const chunk of databases) {
    const ids = chunk.cols.get('servers.id');
    chunk.ids.forEach((db, i) => {
      dbName.set(db, nameOf(chunk, i));
      for (const server of texts(ids?.[i])) {
        if (!serverName.has(server)) continue;
        add(out.servers, server, 'databases', [db, nameOf(chunk, i)]);
        add(out.databases, db, 'servers', [server, serverName.get(server)!]);
      }
    });
  }
  connections(input, out, serverName, dbName);
  systems(input, out, serverName);
  return out;
}

/** Appserver ↔ database by `dbconn_*`, and a database's appservers' servers. */
function connections({ appservers, databaseKeys }: LinkInput, out: Record<LinkedResource, Links>, serverName: ReadonlyMap<string, string>, dbName: ReadonlyMap<string, string>): void {
  const reaches = databaseMatcher(databaseKeys);
  for (const chunk of appservers) {
    const [server, url, db, serverId] = ['dbconn_server', 'dbconn_url', 'dbconn_db', 'server_id'].map((c) => chunk.cols.get(c));
    chunk.ids.forEach((a, i) => {
      const connection = connectionOf(server?.[i], url?.[i], db?.[i]);
      if (!connection) return;
      const host = texts(serverId?.[i])[0];
      for (const d of reaches(connection)) {
        if (!dbName.has(d)) continue;
        add(out.appservers, a, 'databases', [d, dbName.get(d)!]);
        add(out.databases, d, 'appservers', [a, texts(chunk.cols.get('name')?.[i])[0] ?? a]);
        if (host !== undefined && serverName.has(host)) add(out.databases, d, 'appserver_servers', [host, serverName.get(host)!]);
      }
    });
  }
}

/** A system's servers (its `by_system` view) and its child systems (whose `parent.id` names it; a parent not in the table makes a root). */
function systems({ operatingSystems, systemServers }: LinkInput, out: Record<LinkedResource, Links>, serverName: ReadonlyMap<string, string>): void {
  const known = new Set(operatingSystems.flatMap((chunk) => chunk.ids));
  for (const chunk of operatingSystems) {
    const parent = chunk.cols.get('parent.id');
    chunk.ids.forEach((os, i) => {
      const p = texts(parent?.[i])[0];
      if (p !== undefined && p !== os && known.has(p)) add(out.operating_systems, p, 'children', [os, texts(chunk.cols.get('name')?.[i])[0] ?? os]);
    });
  }
  for (const [os, { first, count }] of systemServers) {
    if (!known.has(os) || count === 0) continue;
    const refs: Ref[] = first.filter((id) => serverName.has(id)).slice(0, LINKS_KEPT).map((id) => [id, serverName.get(id)!]);
    if (count > refs.length) counted.set(refs, count);
    (out.operating_systems.get(os) ?? out.operating_systems.set(os, new Map()).get(os)!).set('servers', refs);
  }
}

/** The links of one bucket's records, split from all of them. */
export function bucketLinks(links: Links, buckets: number): Links[] {
  const out = Array.from({ length: buckets }, (): Links => new Map());
  for (const [id, kinds] of links) out[bucketOf(id, buckets)]!.set(id, kinds);
  return out;
}

/**
 * One bucket's script: arrays and strings only, so no id or kind can set a prototype. Records
 * sorted by id: byte-stable. A kind is `[kind, refs]`, or `[kind, first LINKS_KEPT refs, count]`.
 */
export function linksScript(resource: ResourceName, bucket: number, links: Links): string {
  const kind = ([k, refs]: [string, Ref[]]): [string, Ref[]] | [string, Ref[], number] => {
    const count = counted.get(refs) ?? refs.length;
    return count > LINKS_KEPT || count > refs.length ? [k, refs.slice(0, LINKS_KEPT), count] : [k, refs];
  };
  const rows = [...links].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([id, kinds]) => [id, [...kinds].map(kind)]);
  return `IM_LINKS(${JSON.stringify(resource)},${bucket},${JSON.stringify(rows)});\n`;
}
