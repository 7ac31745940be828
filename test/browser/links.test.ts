/**
 * Record pages and the search at any inventory size: a server's page lists the applications whose
 * instances run on it (the realistic service names those servers by name, in the application's
 * single view), an application's page links its instances' servers, a database's and an operating
 * system's pages list their servers, and none of these pages nor the global search load a whole
 * table: only the record's own files, its links bucket, (for a server) one table chunk, and the
 * search index.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chromiumForTest, hasChromium, pageWithErrors } from '../helpers/chromium.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { useUpstream } from '../helpers/upstream.js';

const readJson = (out: string, path: string): Record<string, unknown> => JSON.parse(readFileSync(join(out, path), 'utf8')) as Record<string, unknown>;

/** The data scripts the page has loaded so far (it adds a <script> per file and keeps it). */
const loadedScripts = (page: { evaluate: <T>(f: string) => Promise<T> }): Promise<string[]> => page.evaluate<string[]>("[...document.querySelectorAll('script[src]')].map((s) => s.getAttribute('src')).filter((s) => s.startsWith('_browser/') && s !== '_browser/app.js' && s !== '_browser/data.js')");

describe.skipIf(!hasChromium)('links to and from applications, without whole tables', () => {
  it('a server page lists its applications, an application page links its servers, the search reads the index only', async () => {
    const upstream = await useUpstream({ profile: 'realistic', scale: 80, seed: 2 });
    const out = tempDir();
    await syncInto(upstream, out, { browser: true });
    // An application whose instance runs on a server with a name no other server has.
    const servers = (readJson(out, 'servers.json').servers as { id: string; name: string }[]).filter((s, _, all) => all.filter((o) => o.name === s.name).length === 1);
    const apps = readJson(out, 'applications.json').applications as { id: string }[];
    const [app, host] = apps
      .map((a) => (readJson(out, `applications/${a.id}.json`).application as { id: string; name: string; application_instances: { servers: string[] }[] }))
      .flatMap((a) => a.application_instances.flatMap((i) => i.servers).flatMap((name) => servers.filter((s) => s.name === name).map((s) => [a, s] as const)))[0]!;
    expect(app).toBeDefined();

    const browser = await chromiumForTest({ viewport: { width: 1280, height: 900 } });
    const { page, errors } = await pageWithErrors(browser);
    const index = pathToFileURL(join(out, 'index.html')).href;
    await page.goto(`${index}#/servers/${encodeURIComponent(host.id)}`);
    await page.locator('#view[data-ready=record]').waitFor();
    const section = page.locator('section.links', { has: page.locator('h3', { hasText: 'Applications on this server' }) });
    expect(await section.locator('a').allInnerTexts()).toContain(app.name);
    // One table chunk (the server's own row), its bucket and its links: no appserver, database or application table.
    const onServer = await loadedScripts(page);
    expect(onServer.filter((s) => s.startsWith('_browser/tables/'))).toEqual([expect.stringMatching(/^_browser\/tables\/servers\/\d+\.js$/)]);
    expect(onServer.some((s) => s.startsWith('_browser/links/servers/'))).toBe(true);

    await section.locator('a', { hasText: app.name }).first().click();
    await page.locator('h2', { hasText: app.name }).waitFor();
    await page.locator('#view[data-ready=record]').waitFor();
    const back = page.locator('section.links', { has: page.locator('h3', { hasText: 'Servers of its instances' }) }).locator('a', { hasText: host.name });
    expect(await back.getAttribute('href')).toBe(`#/servers/${encodeURIComponent(host.id)}`);

    // A database's and an operating system's pages: their bucket and their links bucket, no table at all.
    const dbId = (readJson(out, 'databases.json').databases as { id: string }[])[0]!.id;
    const db = readJson(out, `databases/${dbId}.json`).database as { name: string; servers: { id: string; name: string }[] };
    await page.goto(`${index}#/databases/${encodeURIComponent(dbId)}`);
    await page.reload();
    await page.locator('#view[data-ready=record]').waitFor();
    expect(await page.locator('section.links h3').allInnerTexts()).toEqual([`Servers (${db.servers.length})`, expect.stringMatching(/^Appservers that connect to it \(\d+\)$/), expect.stringMatching(/^Servers of those appservers \(\d+\)$/)]);
    expect((await loadedScripts(page)).filter((s) => !s.startsWith('_browser/history'))).toEqual([expect.stringMatching(/^_browser\/records\/databases\/\d+\.js$/), expect.stringMatching(/^_browser\/links\/databases\/\d+\.js$/)]);
    const os = readJson(out, `servers/${host.id}.json`).server as { operating_system: { id: string; name: string } };
    const onIt = readJson(out, `servers/_filter/by_system/${os.operating_system.id}.json`).servers as { id: string }[];
    await page.goto(`${index}#/operating_systems/${encodeURIComponent(os.operating_system.id)}`);
    await page.reload();
    await page.locator('#view[data-ready=record]').waitFor();
    expect(await page.locator('section.links h3').first().innerText()).toBe(`Servers on it or on a descendant (${onIt.length})`);
    expect(await page.locator('section.links').first().locator('a', { hasText: host.name }).count()).toBeGreaterThan(0);
    expect((await loadedScripts(page)).filter((s) => !s.startsWith('_browser/history'))).toEqual([expect.stringMatching(/^_browser\/records\/operating_systems\/\d+\.js$/), expect.stringMatching(/^_browser\/links\/operating_systems\/\d+\.js$/)]);

    // The search: hits from the index, which field matched, and still no whole table.
    await page.goto(`${index}#/_search?q=${encodeURIComponent(host.name)}`);
    await page.reload();
    await page.locator('#view[data-ready=search]').waitFor();
    expect(await page.locator('section.links a', { hasText: host.name }).first().getAttribute('href')).toBe(`#/servers/${encodeURIComponent(host.id)}`);
    const onSearch = await loadedScripts(page);
    expect(onSearch.filter((s) => s.startsWith('_browser/tables/'))).toEqual([]);
    expect(onSearch.filter((s) => s.startsWith('_browser/search/')).length).toBeGreaterThanOrEqual(5);
    expect(errors).toEqual([]);
  }, 60_000);
});
