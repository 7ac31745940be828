/**
 * Filtered views: their items are the list's records, published in the same form, each checked
 * against the list (an item the list lacks is a finding).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { encodeJson } from '../../src/json/encode.js';
import { filterFile } from '../../src/snapshot/paths.js';
import { redactRecord } from '../../src/redact/redact.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { upstreamGet, useUpstream } from '../helpers/upstream.js';

describe('filtered views', () => {
  it('publish every item as the list would, whether sent as in the list, differently, or not in the list at all', async () => {
    const upstream = await useUpstream({ scale: 30 });
    const path = '/servers.json?by_virtual=1';
    const view = (await upstreamGet(upstream, path)).body as { servers: Record<string, unknown>[] };
    expect(view.servers.length).toBeGreaterThan(3);
    const ghost = { ...view.servers[1], id: 'ghost-1', name: 'not-in-the-list' };
    const sent = { servers: [{ ...view.servers[0], name: 'renamed-in-the-view' }, ...view.servers.slice(1), ghost] };
    upstream.override(path, { status: 200, body: JSON.stringify(sent) });
    const redact = { servers: { mask: ['ip'] } };
    const result = await syncInto(upstream, tempDir(), { redact });

    const policy = parseConfig({ redact }, 'test').redact;
    const published = readFileSync(join(result.out, filterFile('servers', 'by_virtual', '1')));
    expect(published.toString()).toBe(encodeJson({ servers: sent.servers.map((s) => redactRecord('servers', s, policy)) }).toString());
    expect(published.toString()).not.toContain(String(view.servers[2]!.ip));
    expect(result.findings.groups).toContainEqual(expect.objectContaining({ resource: 'servers', code: 'not_in_list', count: 1, examples: [expect.objectContaining({ id: 'ghost-1' })] }));
  });

  it('with nothing to redact, publish items re-encoded from their bytes exactly as parsed ones, however they were written', async () => {
    const upstream = await useUpstream({ scale: 30 });
    const path = '/servers.json?by_virtual=1';
    const view = (await upstreamGet(upstream, path)).body as { servers: Record<string, unknown>[] };
    const [a, b, c, d] = view.servers as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
    // Re-encoded from the bytes: spaced out, a number JavaScript writes otherwise, an unknown id.
    // Parsed: a \u escape, a repeated key, an unknown id with an escape.
    const items = [
      JSON.stringify(a, null, 3),
      JSON.stringify({ ...b, memory_GB: 'MEM' }).replace('"MEM"', '16.50'),
      JSON.stringify({ ...c, id: 'ghost-fast' }),
      JSON.stringify({ ...d, name: 'MÜNCHEN' }).replace('Ü', '\\u00dc'),
      JSON.stringify(a).replace('{', '{"name":"first",'),
      JSON.stringify({ ...b, id: 'ghost-\\slow' }),
    ];
    const body = `{"servers": [${items.join(', ')}]}`;
    upstream.override(path, { status: 200, body });
    const result = await syncInto(upstream, tempDir());

    const published = readFileSync(join(result.out, filterFile('servers', 'by_virtual', '1')));
    expect(published.toString()).toBe(encodeJson(JSON.parse(body)).toString());
    const ghosts = result.findings.groups.find((g) => g.resource === 'servers' && g.code === 'not_in_list');
    expect(ghosts?.examples.map((e) => e.id).sort()).toEqual(['ghost-\\slow', 'ghost-fast']);
  });
});
