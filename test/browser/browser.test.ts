/**
 * The offline page in a real headless Chromium (playwright-core, the system's /usr/bin/chromium),
 * opened from disk (file://) and through `serve`: tables with paging, sorting, facets, search and
 * export; links between records; history after a change; charts; the data-quality view; a phone-
 * sized screen. Screenshots go to a temporary folder, removed afterwards unless
 * IM_KEEP_SCREENSHOTS=1 keeps it (then named on stderr, to be looked at).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyFolder } from '../../src/verify/verify.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { upstreamGet, useUpstream } from '../helpers/upstream.js';
import { QUALITY_FILE } from '../../src/snapshot/paths.js';
import { parseQuality } from '../../src/validate/quality.js';
import { HISTORY_FILE, parseHistoryScript } from '../../src/browser/history.js';
import { startServe } from '../../src/serve/index.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const upstream = await useUpstream({ scale: 60 });

/**
 * The system's Chromium, headless and without background traffic, with a fresh profile in a
 * temporary folder (launchPersistentContext is playwright's way to pass --user-data-dir). The
 * caller closes it.
 */
async function launchChromium(options: { viewport?: { width: number; height: number } } = {}) {
  const { chromium } = await import('playwright-core');
  return chromium.launchPersistentContext(tempDir('im-chromium-'), {
    executablePath: CHROMIUM,
    headless: true,
    ...options,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}


/** Where this run's screenshots go: removed after the file's tests, or kept and named with IM_KEEP_SCREENSHOTS=1. */
const SHOTS = mkdtempSync(join(tmpdir(), 'im-shots-'));
afterAll(() => {
  if (process.env.IM_KEEP_SCREENSHOTS === '1') process.stderr.write(`browser test screenshots: ${SHOTS}\n`);
  else rmSync(SHOTS, { recursive: true, force: true });
});

/** The ids of a list file of a snapshot (`servers.json`, `servers/_filter/by_virtual/1.json`). */
function listIds(out: string, file: string): string[] {
  const body = JSON.parse(readFileSync(join(out, file), 'utf8')) as Record<string, { id: string }[]>;
  return Object.values(body)[0]!.map((r) => r.id);
}

/** A record of a snapshot as its single view holds it. */
function single(out: string, resource: string, id: string): Record<string, unknown> {
  return Object.values(JSON.parse(readFileSync(join(out, resource, `${id}.json`), 'utf8')) as Record<string, Record<string, unknown>>)[0]!;
}

/** Whether anything on the page is wider than the window (it would scroll sideways). */
const overflows = (page: import('playwright-core').Page): Promise<boolean> => page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth');

describe('the offline browser page', () => {
  it('sync --browser writes byte-stable page files listed in the manifest', async () => {
    const out = tempDir();
    await syncInto(upstream, out, { browser: true });
    const manifest = JSON.parse(readFileSync(join(out, '_meta/manifest.json'), 'utf8')) as { files: Record<string, unknown> };
    for (const file of ['index.html', '_browser/app.js', '_browser/app.css', '_browser/data.js', '_browser/records/servers/0.js']) expect(manifest.files[file]).toBeDefined();
    expect(readFileSync(join(out, 'index.html'), 'utf8')).not.toMatch(/https?:\/\//);
    const again = await syncInto(upstream, out, { browser: true });
    expect(again.files.written).toBe(0);
    expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });
  });

  it('a changed server rewrites its table chunk, its own detail bucket and the history, nothing else of the page', async () => {
    const changing = await useUpstream({ scale: 500, seed: 8 });
    try {
      const out = tempDir();
      await syncInto(changing, out, { browser: true });
      const { body } = (await upstreamGet(changing, '/servers/1000.json')) as { body: { server: Record<string, unknown> & { id: string } } };
      changing.putRecord('servers', { ...body.server, memory_GB: Number(body.server.memory_GB) + 1 });
      const again = await syncInto(changing, out, { browser: true });
      const page = again.files.sample.written.filter((f) => f.startsWith('_browser/') || f === 'index.html').sort();
      expect(page).toEqual(['_browser/history.js', expect.stringMatching(/^_browser\/records\/servers\/[0-3]\.js$/), '_browser/tables/servers/0.js']);
      const history = parseHistoryScript(readFileSync(join(out, HISTORY_FILE)))!;
      expect(history.entries[0]!.resources.servers!.changed).toEqual([['1000', String(body.server.name), [['memory_GB', Number(body.server.memory_GB), Number(body.server.memory_GB) + 1]]]]);
    } finally {
      await changing.close();
    }
  });

  it.skipIf(!hasChromium)('works from file://: search, open a server, follow the link to its appserver (screenshot taken)', async () => {
    const out = tempDir();
    await syncInto(upstream, out, { browser: true });
    const { body } = (await upstreamGet(upstream, '/appservers.json')) as { body: { appservers: { id: string; name: string; server_id: string; server_name: string }[] } };
    const app = body.appservers[0]!;
    const browser = await launchChromium({ viewport: { width: 1100, height: 800 } });
    try {
      const page = await browser.newPage();
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(pathToFileURL(join(out, 'index.html')).href);
      await expect.poll(() => page.locator('nav a').count()).toBe(8);
      expect(await page.locator('nav').innerText()).toMatch(/servers\s*\d+/);
      expect(await page.locator('.change').innerText()).toMatch(/First snapshot/);

      await page.fill('#q', app.server_name);
      await page.locator('ul.results a', { hasText: app.server_name }).first().waitFor();
      await page.locator('ul.results a', { hasText: app.server_name }).first().click();
      await page.locator('h2', { hasText: app.server_name }).waitFor();
      await page.locator('table th', { hasText: 'processor_reference' }).waitFor();
      const appLink = page.locator('section.links a', { hasText: app.name }).first();
      await appLink.waitFor();
      await page.screenshot({ path: join(SHOTS, 'server.png'), fullPage: true });
      await appLink.click();
      await page.locator('h2', { hasText: app.name }).waitFor();
      await page.locator('td', { hasText: app.server_id }).first().waitFor();
      expect(await page.locator('section.links a').first().innerText()).toBe(app.server_name);
      await page.screenshot({ path: join(SHOTS, 'appserver.png'), fullPage: true });
      expect(existsSync(join(SHOTS, 'appserver.png'))).toBe(true);
      expect(errors).toEqual([]);
      expect(requests.every((u) => u.startsWith('file://'))).toBe(true);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it.skipIf(!hasChromium)('a route named like an Object.prototype member is no resource and no record: no script error', async () => {
    const out = tempDir();
    await syncInto(upstream, out, { browser: true });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      const index = pathToFileURL(join(out, 'index.html')).href;
      for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
        await page.goto(`${index}#/${name}`);
        await expect.poll(() => page.locator('nav a').count()).toBe(8);
        await page.goto(`${index}#/servers/${name}`);
        await page.locator('h2', { hasText: `No servers record with id ${name}` }).waitFor();
      }
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it.skipIf(!hasChromium)('the data-quality view lists the findings, largest first, and each opens the records it names', async () => {
    const realistic = await useUpstream({ profile: 'realistic', scale: 80, seed: 2 });
    const out = tempDir();
    await syncInto(realistic, out, { browser: true });
    const quality = parseQuality(readFileSync(join(out, QUALITY_FILE)))!;
    const largest = [...quality.findings].sort((a, b) => b.count - a.count)[0]!;
    expect(largest.code).toBe('null');
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(pathToFileURL(join(out, 'index.html')).href);
      const total = quality.findings.reduce((n, f) => n + f.count, 0);
      expect(await page.locator('#nav-quality').innerText()).toContain(String(total));
      await page.locator('#nav-quality').click();
      await page.locator('h2', { hasText: 'Data quality' }).waitFor();
      const rows = page.locator('table.findings tr');
      expect(await rows.count()).toBe(quality.findings.length + 1);
      const first = rows.nth(1).locator('a');
      expect(await first.innerText()).toBe(`${largest.resource} ${largest.field}: ${largest.code}`);
      expect(await rows.nth(1).locator('td.count').innerText()).toMatch(new RegExp(`^${largest.count} `));

      await first.click();
      await page.locator('h2', { hasText: `${largest.field}: null` }).waitFor();
      const records = page.locator('ul.results li a');
      expect(await records.count()).toBe(largest.ids.length);
      const name = await records.first().innerText();
      await records.first().click();
      await page.locator('h2', { hasText: name }).waitFor();
      expect(await page.locator('h2 small').innerText()).toContain(largest.ids[0]!);
      // The record shows the field the finding is about, as the service sent it: null.
      expect(await page.locator('tr', { has: page.locator('th', { hasText: new RegExp(`^${largest.field}$`) }) }).innerText()).toContain('null');
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
  it.skipIf(!hasChromium)('tables from file:// (spec-exact records: OS and virtual from the filtered views): default columns, paging, sorting, facets combined in the URL, search naming its fields, CSV and JSON export', async () => {
    const out = tempDir();
    const big = await useUpstream({ scale: 120, seed: 4 });
    await syncInto(big, out, { browser: true });
    const all = listIds(out, 'servers.json');
    const browser = await launchChromium({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      const index = pathToFileURL(join(out, 'index.html')).href;
      await page.goto(`${index}#/servers`);
      await page.locator('#view[data-ready=servers]').waitFor();
      expect(await page.locator('table.grid th').allInnerTexts()).toEqual(['name', 'ip', 'OS', 'memory GB', 'CPUs', 'virtual', 'hypervisor']);
      expect(await page.locator('table.grid tbody tr').count()).toBe(50);
      expect(await page.locator('#page').innerText()).toMatch(/^page 1 of 3 · rows 1–50$/);
      await page.screenshot({ path: join(SHOTS, 'servers.png'), fullPage: true });

      // Paging: every record is reachable.
      await page.locator('.pager a[rel=last]').click();
      await expect.poll(() => page.locator('#page').innerText()).toMatch(/^page 3 of 3 · rows 101–120$/);
      expect(await page.locator('table.grid tbody tr').count()).toBe(20);

      // Sorting: memory, largest first, across all pages.
      const memory = all.map((id) => Number(single(out, 'servers', id).memory_GB));
      await page.locator('table.grid th a', { hasText: 'memory GB' }).click();
      await page.locator('table.grid th[aria-sort=ascending]').waitFor();
      await page.locator('table.grid th a', { hasText: 'memory GB' }).click();
      await page.locator('table.grid th[aria-sort=descending]').waitFor();
      const shown = (await page.locator('table.grid tbody tr td:nth-child(4)').allInnerTexts()).map(Number);
      expect(shown[0]).toBe(Math.max(...memory));
      expect(shown).toEqual([...shown].sort((a, b) => b - a));
      expect(await page.locator('#page').innerText()).toMatch(/^page 1 of 3/);

      // Facets: virtual, then an operating system with its descendants; counts as the mirror's filtered views have them.
      await page.goto(`${index}#/servers`);
      await page.locator('.facet[data-facet=virtual] a', { hasText: 'yes' }).click();
      const virtual = new Set(listIds(out, 'servers/_filter/by_virtual/1.json'));
      await expect.poll(() => page.locator('#count').innerText()).toBe(`${virtual.size} of 120 records`);
      const linux = single(out, 'operating_systems', '1');
      const onLinux = listIds(out, 'servers/_filter/by_system/1.json');
      const both = onLinux.filter((id) => virtual.has(id));
      const facetLink = page.locator('.facet[data-facet=operating_system] li', { has: page.locator(`a:text-is("${String(linux.name)}")`) });
      expect(await facetLink.locator('.count').innerText()).toBe(String(both.length));
      await facetLink.locator('a').click();
      await expect.poll(() => page.locator('#count').innerText()).toBe(`${both.length} of 120 records`);
      expect(page.url()).toContain('f.virtual=true');
      expect(page.url()).toContain('f.operating_system=1');
      await page.screenshot({ path: join(SHOTS, 'servers-facets.png'), fullPage: true });
      // The URL is the view: opened afresh, it shows the same records.
      const bookmark = page.url();
      const again = await browser.newPage();
      await again.goto(bookmark);
      await expect.poll(() => again.locator('#count').innerText()).toBe(`${both.length} of 120 records`);
      await again.close();

      // Export what the table shows: the filtered rows, the visible columns.
      const [csv] = await Promise.all([page.waitForEvent('download'), page.locator('#export-csv').click()]);
      const text = readFileSync((await csv.path())!, 'utf8');
      // A byte-order mark by default, so Excel reads the file as UTF-8.
      expect(text.startsWith('\uFEFF')).toBe(true);
      expect(csv.suggestedFilename()).toBe(`servers_virtual=true_operating_system=1.csv`);
      const lines = text.slice(1).trimEnd().split('\r\n');
      expect(lines[0]).toBe('id,name,ip,operating_system,memory_GB,processor_system_count,virtual,hypervisor_name');
      expect(lines.slice(1).map((l) => l.split(',')[0]).sort()).toEqual([...both].sort());
      const [json] = await Promise.all([page.waitForEvent('download'), page.locator('#export-json').click()]);
      const rows = JSON.parse(readFileSync((await json.path())!, 'utf8')) as { id: string; virtual: boolean }[];
      expect(rows).toHaveLength(both.length);
      expect(rows.every((r) => r.virtual === true)).toBe(true);

      // The column chooser adds a column.
      await page.locator('.chooser summary').click();
      await page.locator('.chooser input[value="processor_reference"]').check();
      await page.locator('table.grid th a', { hasText: 'processor reference' }).waitFor();
      expect(page.url()).toContain('cols=');

      // Search: an IP address (single view only) finds its server, and the page says what it searched.
      const target = all.map((id) => single(out, 'servers', id)).find((r) => typeof r.ip === 'string')!;
      await page.goto(`${index}#/servers`);
      await page.locator('#view[data-ready=servers]').waitFor();
      await page.fill('#table-q', String(target.ip));
      await expect.poll(() => page.locator('#count').innerText()).toMatch(/^1 of 120 records$/);
      expect(await page.locator('table.grid tbody tr td').first().innerText()).toBe(String(target.name));
      expect(await page.locator('.searched').innerText()).toBe('searches name, ip, hypervisor_name');
      await page.fill('#q', String(target.ip));
      await page.locator('#view[data-ready=search]').waitFor();
      // The server, and any database listening on its address (instances' listen_address is searched too).
      const heads = await page.locator('section.links h3').allInnerTexts();
      expect(heads.filter((h) => h.startsWith('servers'))).toEqual([expect.stringMatching(/^servers: 1 \(searched name, ip, hypervisor_name\)$/)]);
      for (const h of heads.filter((x) => !x.startsWith('servers'))) expect(h).toMatch(/^databases: \d+ \(searched .*instances\.listen_address/);
      expect(await page.locator('section.links', { has: page.locator('h3', { hasText: /^servers: / }) }).locator('ul.results li').first().innerText()).toContain(`ip ${String(target.ip)}`);
      await page.screenshot({ path: join(SHOTS, 'search.png'), fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      await big.close();
    }
  }, 90_000);

  it.skipIf(!hasChromium)('links between records, history after a change, charts and a phone-sized screen, from file://', async () => {
    const out = tempDir();
    // The realistic profile: single views that name a server's operating system, list items with nulls.
    const changing = await useUpstream({ profile: 'realistic', scale: 80, seed: 6 });
    await syncInto(changing, out, { browser: true });
    changing.mutate({ seed: 3, share: 0.3 });
    await syncInto(changing, out, { browser: true });
    const history = parseHistoryScript(readFileSync(join(out, HISTORY_FILE)))!;
    const servers = history.entries[0]!.resources.servers!;
    const grown = servers.changed.find((c) => c[2].some((f) => f[0] === 'memory_GB'))!;
    const memoryChange = grown[2].find((f) => f[0] === 'memory_GB')!;
    const added = servers.added[0]!;
    const browser = await launchChromium({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      const index = pathToFileURL(join(out, 'index.html')).href;

      // Home: the recent changes, added records linked, a removed one named.
      await page.goto(index);
      await page.locator('#view[data-ready=home]').waitFor();
      const recent = page.locator('#recent .change').first();
      expect(await recent.innerText()).toMatch(new RegExp(`servers: ${servers.counts.added} added, ${servers.counts.removed} removed, ${servers.counts.changed} changed`));
      expect(await recent.innerText()).toContain(servers.removed[0]![1]);
      expect(await page.locator('#recent figure.chart rect').count()).toBe(1);
      await page.screenshot({ path: join(SHOTS, 'home.png'), fullPage: true });
      await recent.locator('a', { hasText: added[1] }).first().click();
      await page.locator('h2', { hasText: added[1] }).waitFor();
      await expect.poll(() => page.locator('section.history').innerText()).toContain(': added');

      // A changed record says when and what: memory_GB before → after, in local time.
      await page.goto(`${index}#/servers/${encodeURIComponent(grown[0])}`);
      await page.locator('#view[data-ready=record]').waitFor();
      const localTime = await page.evaluate((at) => new Date(at).toLocaleString(), history.entries[0]!.at);
      await expect.poll(() => page.locator('section.history').innerText()).toContain(`${localTime}: changed`);
      expect(await page.locator('section.history').innerText()).toContain(`memory_GB ${String(memoryChange[1])} → ${String(memoryChange[2])}`);
      // Nested values read as key/value tables, not JSON.
      expect(await page.locator('table.fields tr', { has: page.locator('th', { hasText: /^extended_attributes$/ }) }).locator('table.kv th').count()).toBeGreaterThan(0);
      expect(await page.locator('table.fields').innerText()).not.toContain('{"');
      await page.screenshot({ path: join(SHOTS, 'server-history.png'), fullPage: true });

      // server → its operating system → the servers on it.
      const record = single(out, 'servers', grown[0]);
      const os = record.operating_system as { id: string; name: string };
      await page.locator('section.links a', { hasText: os.name }).first().click();
      await page.locator('h2', { hasText: os.name }).waitFor();
      const onIt = listIds(out, `servers/_filter/by_system/${os.id}.json`);
      await expect.poll(() => page.locator('section.links h3').first().innerText()).toBe(`Servers on it or on a descendant (${onIt.length})`);
      await page.locator('section.links a', { hasText: String(record.name) }).first().waitFor();

      // database → its servers → the databases on that server; appserver → its server.
      const db = single(out, 'databases', listIds(out, 'databases.json')[0]!);
      const dbServer = (db.servers as { id: string; name: string }[])[0]!;
      await page.goto(`${index}#/databases/${encodeURIComponent(String(db.id))}`);
      await page.locator('#view[data-ready=record]').waitFor();
      await page.locator('section.links a', { hasText: dbServer.name }).first().click();
      await page.locator('h2', { hasText: dbServer.name }).waitFor();
      await page.locator('section.links a', { hasText: String(db.name) }).first().waitFor();
      const app = single(out, 'appservers', listIds(out, 'appservers.json')[0]!);
      await page.goto(`${index}#/appservers?f.server_name=${encodeURIComponent(String(app.server_name))}`);
      await page.locator('#view[data-ready=appservers]').waitFor();
      await page.locator('table.grid a', { hasText: String(app.server_name) }).first().click();
      await page.locator('h2', { hasText: String(app.server_name) }).waitFor();

      // Charts: drawn as SVG, bars linking to the filtered table.
      await page.goto(`${index}#/_charts`);
      await page.locator('#view[data-ready=charts]').waitFor();
      expect(await page.locator('figure.chart figcaption').allInnerTexts()).toEqual(['Servers per operating system (top 15)', 'Memory', 'Processors', 'Records changed per sync (oldest first)']);
      const memoryBars = await page.locator('figure.chart').nth(1).locator('text.val').allTextContents();
      expect(memoryBars.map(Number).reduce((a, b) => a + b, 0)).toBe(listIds(out, 'servers.json').length);
      await page.screenshot({ path: join(SHOTS, 'charts.png'), fullPage: true });
      await page.locator('figure.chart').first().locator('a').first().click();
      await page.locator('#view[data-ready=servers]').waitFor();
      expect(page.url()).toContain('f.operating_system=');

      // 390 px wide: nothing scrolls sideways.
      await page.setViewportSize({ width: 390, height: 800 });
      for (const hash of ['#/', '#/servers', `#/servers/${encodeURIComponent(grown[0])}`, `#/databases/${encodeURIComponent(String(db.id))}`, '#/_charts', '#/_quality']) {
        await page.goto(`${index}${hash}`);
        await page.locator('#view h2').first().waitFor();
        await page.waitForTimeout(50);
        expect(await overflows(page), hash).toBe(false);
      }
      await page.goto(`${index}#/servers`);
      await page.locator('#view[data-ready=servers]').waitFor();
      await page.screenshot({ path: join(SHOTS, 'phone-servers.png'), fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      await changing.close();
    }
  }, 90_000);

  it.skipIf(!hasChromium)('through serve: the same page over HTTP, every request to the server, every view working', async () => {
    const out = tempDir();
    await syncInto(upstream, out, { browser: true });
    const serve = await startServe({ dir: out, quiet: true });
    const browser = await launchChromium({ viewport: { width: 1100, height: 800 } });
    try {
      const page = await browser.newPage();
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`${serve.url}/index.html#/servers?sort=-processor_system_count`);
      await page.locator('#view[data-ready=servers]').waitFor();
      expect(await page.locator('table.grid tbody tr').count()).toBe(50);
      expect(await page.locator('table.grid th[aria-sort=descending]').innerText()).toContain('CPUs');
      await page.locator('.pager a[rel=next]').click();
      await expect.poll(() => page.locator('#page').innerText()).toMatch(/^page 2 of 2/);
      await page.locator('.facet[data-facet=virtual] a', { hasText: 'no' }).click();
      await expect.poll(() => page.locator('#count').innerText()).toBe(`${listIds(out, 'servers/_filter/by_virtual/0.json').length} of 60 records`);
      await page.locator('table.grid tbody a').first().click();
      await page.locator('#view[data-ready=record]').waitFor();
      await page.locator('section.history li').first().waitFor();
      await page.goto(`${serve.url}/index.html#/_charts`);
      await page.locator('#view[data-ready=charts]').waitFor();
      expect(await page.locator('figure.chart svg').count()).toBe(3);
      await page.goto(`${serve.url}/index.html#/databases`);
      await page.locator('#view[data-ready=databases]').waitFor();
      await page.screenshot({ path: join(SHOTS, 'serve-databases.png'), fullPage: true });
      expect(errors).toEqual([]);
      expect(requests.every((u) => u.startsWith(serve.url))).toBe(true);
      expect(requests.some((u) => u.includes('/_browser/tables/servers/'))).toBe(true);
    } finally {
      await browser.close();
      await serve.close();
    }
  }, 60_000);

  it('page files hold no external address', async () => {
    const out = tempDir();
    await syncInto(upstream, out, { browser: true });
    const files = ['index.html', '_browser/app.js', '_browser/app.css', '_browser/data.js', '_browser/history.js', ...readdirSync(join(out, '_browser/tables/servers')).map((f) => `_browser/tables/servers/${f}`)];
    for (const file of files) expect(readFileSync(join(out, file), 'utf8'), file).not.toMatch(/https?:\/\//);
  });
});
