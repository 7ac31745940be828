/**
 * The lists: an item with nothing to redact is published re-encoded from its bytes and summarized
 * from what that walk found, without parsing it; any other item is parsed. Both ways must give the
 * same files, the same summary and the same findings.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../src/fetch/client.js';
import { listFile } from '../../src/snapshot/paths.js';
import { NextSnapshot } from '../../src/publish/next.js';
import type { RedactPolicy } from '../../src/redact/policy.js';
import type { ResourceName } from '../../src/spec/resources.js';
import { forEachItem } from '../../src/json/scan.js';
import { pullList, type ListSummary } from '../../src/sync/lists.js';
import { itemDigest } from '../../src/sync/list-summary.js';
import { tempDir } from '../helpers/tmp.js';

/** Items as a service may write them: plain, spaced, escaped, repeated keys, numbers beyond a double, bytes not UTF-8. */
const BODIES: Partial<Record<ResourceName, Buffer>> = {
  servers: Buffer.concat([
    Buffer.from(
      '{"servers":[ { "id" : "s1", "name" : "plain" } ,{"id":"s2","name":"q\\"uote\\/slash"},{"id":"s\\u0033","name":"esc"},' +
        '{"id":"s4","name":"dup","name":"dup2"},{"id":"s5","name":"big","size":1e400},{"id":"s7","name":7},{"id":"s8\\"x","name":"escaped id"},{"id":"s6","name":"bad',
    ),
    Buffer.from([0xff]),
    Buffer.from('"}],"total":8}'),
  ]),
  databases: Buffer.from(
    '{"databases":[{"id":"d1","type":"mysql","server_names":["plain","q\\"uote/slash"]},{"id":"d2","type":"","server_names":null},{"id":"d3"},' +
      '{"id":"d4","type":"pg\\u0073ql","server_names":[ "a" , "b" ]},{"id":"d5","type":"oracle","server_names":[],"server_names":["x"]}]}',
  ),
  appservers: Buffer.from('{"appservers":[{"id":"a1","server_id":"s1"},{"id":"a2","server_id":{"nested":[1, 2.50]}},{"id":"a3"},{"id":"a4","server_id":"s\\/1"}]}'),
};

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const body = BODIES[(req.url ?? '').replace(/^\/|\.json$/g, '') as ResourceName];
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(body ?? '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Pulls one list into a new folder's staging; its summary (as plain data) and the staged file. */
async function pull(resource: ResourceName, redact: RedactPolicy | undefined): Promise<{ summary: Record<string, unknown>; file: string; names: ListSummary['names'] }> {
  const next = await NextSnapshot.open(tempDir(), undefined);
  const client = new Client({ baseUrl: url, token: 't0ken-for-tests', concurrency: 2, adaptive: false, timeoutMs: 5_000, deadlineMs: 30_000, maxBodyBytes: 1_000_000, retry: { retries: 0, baseMs: 1, maxMs: 5 } });
  try {
    const list = await pullList(resource, { client, previous: undefined, next, redact, maxRecords: 1000 });
    const chunks: Buffer[] = [];
    for await (const chunk of next.readStream(listFile(resource))!) chunks.push(chunk);
    const ids = Array.from({ length: list.ids.length }, (_, n) => list.ids.at(n));
    return {
      summary: {
        ids,
        members: ids.map((id) => list.members.has(id)),
        types: [...list.types].sort(),
        refs: Array.from({ length: list.refs.length }, (_, n) => list.refs.at(n)),
        findings: list.findings,
        names: list.names.size,
        digests: ids.map((_, n) => list.digests!.text(n)),
      },
      file: Buffer.concat(chunks).toString('utf8'),
      names: list.names,
    };
  } finally {
    await next.staging.discard();
    await client.close();
  }
}

describe('a list', () => {
  for (const resource of ['servers', 'databases', 'appservers'] as const) {
    it(`of ${resource} gives the same file, summary and findings whether its items are parsed or re-encoded from their bytes`, async () => {
      // A rule on a field no item has: every item is parsed, and the file is the same.
      const parsed = await pull(resource, { [resource]: { drop: ['no_such_field'], mask: [], maskUrlCredentials: [] } });
      const sent = await pull(resource, undefined);
      expect(sent.file).toBe(parsed.file);
      expect(sent.summary).toEqual(parsed.summary);
    });
  }

  it('keeps the values the cross-checks and views need, escapes decoded', async () => {
    const servers = await pull('servers', undefined);
    expect(servers.summary.ids).toEqual(['s1', 's2', 's3', 's4', 's5', 's7', 's8"x', 's6']);
    for (const name of ['plain', 'q"uote/slash', 'esc', 'dup2', 'big']) expect(servers.names.has(name), name).toBe(true);
    expect(servers.names.has('dup')).toBe(false);
    expect((servers.summary.findings as { id: string; code: string }[]).map((f) => `${f.id}:${f.code}`).sort()).toEqual(['s4:duplicate_key', 's5:out_of_range', 's6:invalid_utf8']);
    const databases = await pull('databases', undefined);
    expect(databases.summary.types).toEqual(['mysql', 'oracle', 'pgsql']);
    expect(databases.summary.refs).toEqual(['["plain","q\\"uote/slash"]', 'null', 'null', '["a","b"]', '["x"]']);
    const appservers = await pull('appservers', undefined);
    expect(appservers.summary.refs).toEqual(['"s1"', '{"nested":[1,2.5]}', 'null', '"s/1"']);
  });

  it('digests each item as it is published, so a record is checked against the item its file holds', async () => {
    for (const resource of ['servers', 'databases', 'appservers'] as const) {
      const { file, summary } = await pull(resource, undefined);
      const published: string[] = [];
      await forEachItem(
        (async function* () {
          yield Buffer.from(file);
        })(),
        resource,
        (element) => published.push(itemDigest(element.bytes)),
      );
      expect(summary.digests, resource).toEqual(published);
    }
  });
});
