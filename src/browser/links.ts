/**
 * The links a record page shows that point back at it (pure): a server's applications (whose
 * instances name it), appservers (by `server_id`) and databases (by `servers`), an application's
 * and an appserver's servers. Worked out by the sync from the other tables' chunks, and written per
 * detail bucket (`_browser/links/<resource>/<n>.js`), so a record page loads one small file instead
 * of whole tables.
 */
import type { ResourceName } from '../spec/resources.js';
import { BROWSER_DIR, bucketOf } from './data.js';
import type { Cell, Column } from './table.js';

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
  const start = text.indexOf('IM_TABLE(');
  const end = text.lastIndexOf(');');
  if (start < 0 || end < start) return undefined;
  const [, , ids, columns] = JSON.parse(`[${text.slice(start + 'IM_TABLE('.length, end)}]`) as [string, number, string[], Column[]];
  const cols = new Map<string, Cell[]>();
  for (const col of columns) cols.set(col[0], col.length === 3 ? col[1].map((c) => col[2][c] ?? null) : col[1]);
  return { ids, cols };
}

const texts = (cell: Cell | undefined): string[] => (typeof cell === 'string' && cell !== '' ? [cell] : Array.isArray(cell) ? cell : []);

function add(links: Links, id: string, kind: string, ref: Ref): void {
  let kinds = links.get(id);
  if (!kinds) links.set(id, (kinds = new Map()));
  const list = kinds.get(kind);
  if (!list) kinds.set(kind, [ref]);
  else if (!list.some(([other]) => other === ref[0])) list.push(ref);
}

/** What the sync has read: the servers' ids and names (list order), and the other tables' chunks. */
export interface LinkInput {
  servers: readonly Ref[];
  applications: readonly DecodedChunk[];
  appservers: readonly DecodedChunk[];
  databases: readonly DecodedChunk[];
}

/**
 * The links of every server, application and appserver. An application's instances name their
 * servers by name: a name that several servers share links to each of them.
 */
export function backLinks({ servers, applications, appservers, databases }: LinkInput): Record<'servers' | 'applications' | 'appservers', Links> {
  const out = { servers: new Map(), applications: new Map(), appservers: new Map() } as Record<'servers' | 'applications' | 'appservers', Links>;
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
  for (const chunk of databases) {
    const ids = chunk.cols.get('servers.id');
    chunk.ids.forEach((db, i) => {
      for (const server of texts(ids?.[i])) if (serverName.has(server)) add(out.servers, server, 'databases', [db, nameOf(chunk, i)]);
    });
  }
  return out;
}

/** The links of one bucket's records, split from all of them. */
export function bucketLinks(links: Links, buckets: number): Links[] {
  const out = Array.from({ length: buckets }, (): Links => new Map());
  for (const [id, kinds] of links) out[bucketOf(id, buckets)]!.set(id, kinds);
  return out;
}

/** One bucket's script: arrays and strings only, so no id or kind can set a prototype. Records sorted by id: byte-stable. */
export function linksScript(resource: ResourceName, bucket: number, links: Links): string {
  const rows = [...links].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([id, kinds]) => [id, [...kinds]]);
  return `IM_LINKS(${JSON.stringify(resource)},${bucket},${JSON.stringify(rows)});\n`;
}
