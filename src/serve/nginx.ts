/**
 * An nginx configuration that serves a published folder at the service's URLs. nginx decodes
 * the URI before matching, but the files carry percent-encoded names, so the file is chosen from
 * the raw `$request_uri`: a record's encoded id is its file name, and a query with one parameter
 * the resource knows (any others it does not know are ignored, as the service ignores them) is its
 * `_filter` file. Ids and values whose file name is not their `encodeURIComponent` form (`!'()*`,
 * `.`/`..`, over-long hashed names) get an exact entry of their own. The offline page (index.html,
 * _browser/) and the snapshot's _meta files are served at their paths, each with its type.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { join } from 'node:path';
import fs from 'fs-extra';
import { z } from 'zod';
import { NotSnapshotError, UsageError } from '../errors.js';
import { readManifest } from '../snapshot/manifest-read.js';
import { decodeSegment, encodeSegment, FILTER_DIR, FILTER_INDEX_FILE, filterFile, isSnapshotPath, listFile, MANIFEST_FILE, namedFilterFile, namedRecordFile, parseRecordFile, recordFile } from '../snapshot/paths.js';
import { filterPath, RESOURCE_NAMES, RESOURCES, singlePath } from '../spec/resources.js';

/** A request (raw path and query) whose file name cannot be derived from it by nginx. */
interface NginxSpecial {
  /** The request target as clients send it: `encodeURIComponent` of the id or value. */
  target: string;
  /** The file, relative to the folder. */
  file: string;
}

/** What the configuration is made from. */
interface NginxSite {
  /** Absolute path of the published folder. */
  root: string;
  /** What nginx listens on: a port, `address:port` or `[IPv6]:port` (see parseListen). */
  listen: string;
  serverName: string;
  specials: readonly NginxSpecial[];
}

const escapeRegex = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|!'/]/g, (c) => `\\${c}`);

/**
 * Checks a `--listen` value and gives it as nginx's `listen` takes it: `8080`, `127.0.0.1:8080`,
 * `[::1]:8080`, `*:8080` or `host.name:8080`; a UsageError naming the flag otherwise.
 */
export function parseListen(value: string): string {
  const match = /^(?:(\[[^\]]*\]|[^:[\]]+):)?(\d{1,5})$/.exec(value);
  const host = match?.[1];
  const port = Number(match?.[2]);
  const hostOk =
    host === undefined ||
    host === '*' ||
    (host.startsWith('[') ? isIPv6(host.slice(1, -1)) : /^\d+(\.\d+){3}$/.test(host) ? isIPv4(host) : /^(?!-)[A-Za-z0-9-]{1,63}(\.(?!-)[A-Za-z0-9-]{1,63})*$/.test(host));
  if (!match || !hostOk || !(port >= 1 && port <= 65_535)) {
    throw new UsageError(`--listen: ${JSON.stringify(value)} is not PORT, ADDRESS:PORT or [IPv6]:PORT (e.g. 8080, 127.0.0.1:8080, [::1]:8080) with a port from 1 to 65535`);
  }
  return value;
}

/** Regex text for one `name=value` parameter the resource does not know (plain names only: an encoded one may be a known one). */
function unknownParam(known: readonly string[]): string {
  const guard = known.length > 0 ? `(?!(?:${known.join('|')})(?:[=&]|$))` : '';
  return `${guard}[^&=%+]*(?:=[^&]*)?`;
}

/** The `map`s (for the http block) and the server block. Pure. */
export function renderNginxConf(site: NginxSite): string {
  // Map variables are global to nginx: named after the listen address, two sites do not clash.
  const prefix = /^\d+$/.test(site.listen) ? `im${site.listen}_` : `im_${site.listen.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}_`;
  const v = (name: string): string => `${prefix}${name}`;
  const resources = RESOURCE_NAMES.join('|');
  const file = `$${v('file')}`;
  const json = (text: string): string => `'${JSON.stringify({ error: text })}\\n'`;
  const listRules = RESOURCE_NAMES.flatMap((resource) => {
    const known = RESOURCES[resource].filters.map((f) => f.param);
    const viewed = RESOURCES[resource].filters.filter((f) => f.values.kind !== 'substring').map((f) => f.param);
    const other = unknownParam(known);
    const rules = [`    "~^/${resource}\\.json(?:\\?(?:${other}(?:&${other})*)?)?$" "/${listFile(resource)}";`];
    if (viewed.length > 0) {
      rules.push(`    "~^/${resource}\\.json\\?(?:${other}&)*(?<${v('p')}>${viewed.join('|')})=(?<${v('x')}>[^&/]+)(?:&${other})*$" "/${namedFilterFile(resource, `$${v('p')}`, `$${v('x')}`)}";`);
    }
    return rules;
  });
  return `# inventory-mirror: serves ${site.root} at the inventory service's URLs.
# Put this file inside the http { } block (the maps must be there), e.g. include it from nginx.conf.
# Lists, single records and queries with one parameter that has a precomputed _filter file are
# answered (parameters a resource does not know are ignored, as the service ignores them); other
# queries need \`inventory-mirror serve\`. Regenerate after a sync adds ids or filter values with
# unusual characters (they are listed below by name). nginx does not check X-Api-Token here.

map $request_uri ${file} {
    default "";
${[...site.specials.map((s) => `    "~^${escapeRegex(s.target)}${s.target.includes('?') ? '$' : '(\\?|$)'}" "/${s.file}";`), ...listRules].join('\n')}
    "~^/(?<${v('r')}>${resources})/(?<${v('x')}>[^/?]+)\\.json(\\?|$)" "/${namedRecordFile(`$${v('r')}`, `$${v('x')}`)}";
    "~^/(?<${v('r')}>${resources})/${FILTER_DIR}/(?<${v('p')}>[a-z_]+)/(?<${v('x')}>[^/?]+)\\.json(\\?|$)" "/${namedFilterFile(`$${v('r')}`, `$${v('p')}`, `$${v('x')}`)}";
    "~^/_meta/(?<${v('x')}>manifest|filters|quality|changes|redaction)\\.json(\\?|$)" "/_meta/$${v('x')}.json";
    "~^/(index\\.html)?(\\?|$)" "/index.html";
    "~^/(?<${v('x')}>_browser(?:/[A-Za-z0-9_-][A-Za-z0-9._-]*)+)(\\?|$)" "/$${v('x')}";
}

# A list with a query that has no file: the query needs \`serve\` (400), not a silently wrong list.
map $request_uri $${v('query')} {
    default 0;
    "~^/(${resources})\\.json\\?." 1;
}

server {
    listen ${site.listen};
    server_name ${site.serverName};
    root ${site.root};

    types {
        application/json json;
        text/html html;
        text/css css;
        text/javascript js;
    }
    default_type application/json;
    charset utf-8;
    # text/html is always among them: naming it again makes nginx -t warn of a duplicate.
    charset_types application/json text/css text/javascript;
    etag on;
    gzip on;
    gzip_types application/json text/css text/javascript;
    gzip_vary on;
    gzip_min_length 256;

    # Work files, run metadata and dot files are not part of the snapshot. (Deeper names may
    # start with a dot: a record's id can; the map only ever names snapshot files there.)
    location ~ ^/\\. {
        return 404 ${json('not found')};
    }
    location = /_meta/last-sync.json {
        return 404 ${json('not found')};
    }

    location / {
        if ($request_method !~ ^(GET|HEAD)$) {
            add_header Allow "GET, HEAD" always;
            return 405 ${json('method not allowed: this mirror is read-only')};
        }
        # An empty name (no map entry) is the root folder, not a file: it falls through to the miss.
        try_files ${file} @${v('miss')};
    }

    location @${v('miss')} {
        if ($${v('query')}) {
            return 400 ${json('this query has no precomputed file (see /_meta/filters.json); run `inventory-mirror serve` for combined and substring queries')};
        }
        return 404 ${json('not found')};
    }
}
`;
}

/** Characters a query value may carry unescaped (RFC 3986 sub-delims and `:` `@`, less `&` `=` `+`), as the API document writes `site:5418`. */
const RAW_IN_QUERY = new Set([':', '@', ',', ';', '$', '!', "'", '(', ')', '*', '/', '?']);

/**
 * The ways a client may write `value` in a query that the service and serve read as it: its
 * `encodeURIComponent` form, lower-case escapes (`%3a`), `+` for a space (form encoding), and the
 * characters a query allows left unescaped (`site:5418`). nginx compares the raw request, so each
 * needs an entry. Pure.
 */
export function querySpellings(value: string): string[] {
  const encoded = encodeURIComponent(value);
  const raw = encoded.replace(/%[0-9A-F]{2}/g, (escape) => {
    const char = decodeURIComponent(escape);
    return RAW_IN_QUERY.has(char) ? char : escape;
  });
  const spellings = new Set<string>();
  for (const form of [encoded, raw]) {
    spellings.add(form);
    spellings.add(form.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()));
    spellings.add(form.replace(/%20/g, '+'));
    spellings.add(form.replace(/%20/g, '+').replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()));
  }
  return [...spellings];
}

/** An entry of `_meta/filters.json` as the snapshot writes it; anything else is refused. */
const filterEntrySchema = z.object({ resource: z.enum(RESOURCE_NAMES), param: z.string(), value: z.string(), file: z.string() });
const filterIndexSchema = z.object({ filters: z.array(z.unknown()) });

/**
 * What may stand between the quotes of the configuration: the characters of an encoded URI and of
 * the snapshot's file names. No quote, backslash, `$`, `;`, brace, space or control character, so
 * nothing read from a folder can end a string, expand a variable or add a directive.
 */
const CONF_SAFE = /^[A-Za-z0-9._~%/?=&!'()*:@,+-]+$/;

/** `special` when both its parts are plain (they are made by the snapshot's own rules); a NotSnapshotError naming `where` otherwise. */
function checked(special: NginxSpecial, where: string): NginxSpecial {
  if (!CONF_SAFE.test(special.target) || !CONF_SAFE.test(special.file) || !isSnapshotPath(special.file)) {
    throw new NotSnapshotError(`${where}: ${JSON.stringify(special.file)} is not a file name this snapshot could have made; the folder was altered (run sync into it again, then verify)`);
  }
  return special;
}

/** The ids and filter values of a folder whose file names nginx cannot derive from the request. */
export async function findSpecials(dir: string): Promise<NginxSpecial[]> {
  const manifest = (await readManifest(dir))?.table;
  if (!manifest) throw new NotSnapshotError(`${dir} has no valid ${MANIFEST_FILE}; it is not a published snapshot (run sync into it first)`);
  const specials: NginxSpecial[] = [];
  for (const path of manifest.paths()) {
    const record = parseRecordFile(path);
    if (!record) continue;
    const { resource, name } = record;
    let id = decodeSegment(name);
    if (id === undefined || encodeSegment(id) !== name) {
      // A hashed over-long name: the record itself says which id it is, and must be filed under it.
      const body = JSON.parse(await fs.readFile(join(dir, path), 'utf8')) as Record<string, { id?: unknown } | undefined>;
      const recordId = body[RESOURCES[resource].singular]?.id;
      if (typeof recordId !== 'string' || recordFile(resource, recordId) !== path) continue;
      id = recordId;
    }
    if (encodeURIComponent(id) !== name) specials.push(checked({ target: singlePath(resource, id), file: path }, `${MANIFEST_FILE}`));
  }
  const where = join(dir, FILTER_INDEX_FILE);
  const text = await fs.readFile(where, 'utf8').catch(() => '{"filters":[]}');
  let entries: unknown[];
  try {
    entries = filterIndexSchema.parse(JSON.parse(text)).filters;
  } catch {
    throw new NotSnapshotError(`${where} is not a filter index of inventory-mirror; run sync into the folder again`);
  }
  for (const [n, entry] of entries.entries()) {
    const view = filterEntrySchema.safeParse(entry);
    const at = `${where} filters.${n}`;
    if (!view.success) throw new NotSnapshotError(`${at}: not {resource, param, value, file}; run sync into the folder again`);
    const { resource, param, value, file } = view.data;
    // The file must be the one the snapshot's naming rule gives the view, and a file of the snapshot.
    if (!RESOURCES[resource].filters.some((f) => f.param === param) || file !== filterFile(resource, param, value) || !manifest.has(file)) {
      throw new NotSnapshotError(`${at}: ${JSON.stringify(file)} is not the file of ${resource} ${JSON.stringify(param)}=${JSON.stringify(value)} in this snapshot; the folder was altered (run sync into it again, then verify)`);
    }
    const target = filterPath(resource, param, value);
    if (namedFilterFile(resource, encodeURIComponent(param), encodeURIComponent(value)) !== file) specials.push(checked({ target, file }, at));
    // nginx compares the raw request: each way a query may spell the value that is not the file's own name needs an entry (one nginx could not quote safely is left to serve).
    const prefix = target.slice(0, target.indexOf('=') + 1);
    for (const spelling of querySpellings(value)) {
      if (namedFilterFile(resource, param, spelling) !== file && CONF_SAFE.test(prefix + spelling)) specials.push(checked({ target: prefix + spelling, file }, at));
    }
  }
  const unique = new Map(specials.map((s) => [s.target, s]));
  return [...unique.values()].sort((a, b) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
}
