/**
 * The everyday tasks of a CMDB team (issue 34's table), each in Chromium from file:// on a
 * snapshot of the simulated service with a few records of known shape put in: site, maintainer
 * and model exist only as configured views, as at the real service. Finding a server by IP and
 * servers on a system and its descendants are in browser.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Upstream } from '../../src/upstream/index.js';
import { HISTORY_FILE, parseHistoryScript } from '../../src/browser/history.js';
import { chromiumForTest, hasChromium, pageWithErrors } from '../helpers/chromium.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { upstreamGet, useUpstream } from '../helpers/upstream.js';

const server = (id: string, name: string, memory: number) => ({
  id,
  name,
  hypervisor_name: null,
  ip: `10.99.0.${Number(id) % 250}`,
  memory_GB: memory,
  processor_system_count: 2,
  processor_reference: 'test cpu',
  processor_frequency_GHz: 2.5,
  extended_attributes: {},
});

/** Servers at site `lab` (virtual 4 GB, virtual 16 GB, physical 4 GB) and maintainer M7's physical ones, one named like a formula. */
function putLabServers(upstream: Upstream): void {
  upstream.putRecord('servers', server('9001', 'lab-small-vm', 4), { virtual: true, siteId: 'lab', maintainerId: 'M1' });
  upstream.putRecord('servers', server('9002', 'lab-big-vm', 16), { virtual: true, siteId: 'lab', maintainerId: 'M1' });
  upstream.putRecord('servers', server('9003', 'lab-metal', 4), { virtual: false, siteId: 'lab', maintainerId: 'M7' });
  upstream.putRecord('servers', server('9004', '=HYPERLINK("http://x.example","click")', 64), { virtual: false, siteId: 'far', maintainerId: 'M7' });
  upstream.putRecord('servers', server('9005', 'm7-vm', 8), { virtual: true, siteId: 'far', maintainerId: 'M7' });
  // Operating systems named like Object.prototype members, one the other's parent, with a server.
  upstream.putRecord('operating_systems', { id: 'constructor', name: 'Proto OS', codename: 'proto' });
  upstream.putRecord('operating_systems', { id: '__proto__', name: 'Proto OS 2', codename: 'proto2' }, { parentId: 'constructor' });
  upstream.putRecord('servers', server('9006', 'proto-host', 8), { virtual: false, siteId: 'far', maintainerId: 'M1', osId: '__proto__' });
  upstream.putRecord('servers', server('9007', 'constructor-host', 8), { virtual: false, siteId: 'far', maintainerId: 'M1', osId: 'constructor' });
}

const FILTERS = { servers: { by_location: ['site:lab', 'site:far'], by_maintainer: ['M1', 'M7'], by_serial_number: [], by_arch: [], by_fullmodel: [] } };

describe.skipIf(!hasChromium)('everyday tasks in the offline page', () => {
  it('virtual servers at site X with less than 8 GB: facets, an operator filter, chips in the URL', async () => {
    const upstream = await useUpstream({ scale: 40, seed: 5 });
    putLabServers(upstream);
    const out = tempDir();
    await syncInto(upstream, out, { browser: true, filters: FILTERS });
    const browser = await chromiumForTest({ viewport: { width: 1280, height: 900 } });
    const { page, errors } = await pageWithErrors(browser);
    const index = pathToFileURL(join(out, 'index.html')).href;
    await page.goto(`${index}#/servers`);
    await page.locator('#view[data-ready=servers]').waitFor();
    const total = Number((await page.locator('#count').innerText()).split(' ')[0]);
    await page.locator('.facet[data-facet=virtual] a', { hasText: 'yes' }).click();
    await page.locator('.facet[data-facet=site] a', { hasText: /^lab$/ }).click();
    await expect.poll(() => page.locator('#count').innerText()).toBe(`2 of ${total} records`);
    // After a facet click, focus is on the new view's heading and the count is announced.
    expect(await page.evaluate<string | undefined>('document.activeElement?.tagName')).toBe('H2');
    expect(await page.locator('#status').innerText()).toBe(`2 of ${total} records`);
    await page.selectOption('.opfilter select[name=col]', 'memory_GB');
    await page.selectOption('.opfilter select[name=op]', 'lt');
    await page.fill('.opfilter input[name=value]', '8');
    await page.locator('.opfilter button').click();
    await expect.poll(() => page.locator('#count').innerText()).toBe(`1 of ${total} records`);
    expect(await page.locator('table.grid tbody a').first().innerText()).toBe('lab-small-vm');
    expect(await page.locator('.chip > span').allInnerTexts()).toEqual(['virtual = yes', 'site = lab', 'memory GB < 8']);
    expect(page.url()).toContain('o.memory_GB=lt%3A8');
    // The URL is the view, and each chip removes its filter.
    await page.locator('.chip', { hasText: 'memory GB' }).locator('a').click();
    await expect.poll(() => page.locator('#count').innerText()).toBe(`2 of ${total} records`);
    // Several values of one facet: site lab or far.
    await page.locator('.facet[data-facet=site] a', { hasText: /^far$/ }).click();
    await expect.poll(() => page.locator('#count').innerText()).toBe(`3 of ${total} records`);

    // Systems named constructor and __proto__ are systems like any other.
    await page.goto(`${index}#/servers?f.operating_system=constructor`);
    await expect.poll(() => page.locator('#count').innerText()).toBe(`2 of ${total} records`);
    await page.goto(`${index}#/servers?f.operating_system=__proto__`);
    await expect.poll(() => page.locator('#count').innerText()).toBe(`1 of ${total} records`);
    await page.goto(`${index}#/operating_systems/constructor`);
    await page.locator('#view[data-ready=record]').waitFor();
    expect(await page.locator('section.links h3').first().innerText()).toBe('Servers on it or on a descendant (2)');
    expect(errors).toEqual([]);
  }, 60_000);

  it('the physical servers of maintainer M as CSV a spreadsheet can trust, the filter in its name', async () => {
    const upstream = await useUpstream({ scale: 40, seed: 5 });
    putLabServers(upstream);
    const out = tempDir();
    await syncInto(upstream, out, { browser: true, filters: FILTERS });
    const browser = await chromiumForTest({ viewport: { width: 1280, height: 900 } });
    const { page, errors } = await pageWithErrors(browser);
    await page.goto(`${pathToFileURL(join(out, 'index.html')).href}#/servers`);
    await page.locator('#view[data-ready=servers]').waitFor();
    await page.locator('.facet[data-facet=maintainer] a', { hasText: /^M7$/ }).click();
    await page.locator('.facet[data-facet=virtual] a', { hasText: 'no' }).click();
    await expect.poll(() => page.locator('table.grid tbody tr').count()).toBe(2);
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#export-csv').click()]);
    expect(download.suggestedFilename()).toBe('servers_maintainer=M7_virtual=false.csv');
    const text = readFileSync((await download.path())!, 'utf8');
    expect(text.startsWith('\uFEFFid,name,')).toBe(true);
    const rows = text.slice(1).trimEnd().split('\r\n').slice(1);
    expect(rows.map((r) => r.split(',')[0]).sort()).toEqual(['9003', '9004']);
    // The formula is text: a leading apostrophe, quoted for its comma.
    expect(rows.find((r) => r.startsWith('9004,'))).toContain(`"'=HYPERLINK(""http://x.example"",""click"")"`);
    await page.locator('#csv-bom').uncheck();
    const [plain] = await Promise.all([page.waitForEvent('download'), page.locator('#export-csv').click()]);
    expect(readFileSync((await plain.path())!, 'utf8').startsWith('id,name,')).toBe(true);
    expect(errors).toEqual([]);
  }, 60_000);

  it('which appservers use database Y, on which servers: links both ways, search and chips on dbconn_*', async () => {
    const upstream = await useUpstream({ scale: 40, seed: 5 });
    const { body } = (await upstreamGet(upstream, '/databases.json')) as { body: { databases: { id: string; name: string; instances: { host_alias: string }[] }[] } };
    const db = body.databases[0]!;
    const single = ((await upstreamGet(upstream, `/databases/${db.id}.json`)).body as { database: { instances: { host_alias: string; databases: Record<string, number> }[] } }).database;
    const host = single.instances[0]!;
    const schema = Object.keys(host.databases)[0]!;
    const { body: servers } = (await upstreamGet(upstream, '/servers.json')) as { body: { servers: { id: string; name: string }[] } };
    const on = servers.servers[5]!;
    const app = { id: '7001', name: 'billing-prd-01', vip: 'vip-billing.example.net', dns: 'billing-7001.apps.example.net', directory: '/opt/appserver/instances/billing', appserver_version: '9.0', runtime_version: '21', runtime_xms: '1g', runtime_xmx: '4g', dbconn_url: `dbconn:pgsql://${host.host_alias}:5432/${schema}`, dbconn_server: host.host_alias, dbconn_db: schema, dbconn_user: 'billing_app', dbconn_driver: 'pg.jar', guard: false, guard_csac: false, server_id: on.id, server_name: on.name };
    upstream.putRecord('appservers', app);
    const out = tempDir();
    await syncInto(upstream, out, { browser: true });
    const browser = await chromiumForTest({ viewport: { width: 1280, height: 900 } });
    const { page, errors } = await pageWithErrors(browser);
    const index = pathToFileURL(join(out, 'index.html')).href;

    // Search finds the database host in the appserver's connection and says which field matched.
    await page.goto(index);
    await page.fill('#q', host.host_alias);
    await page.locator('#view[data-ready=search]').waitFor();
    const hit = page.locator('ul.results li', { has: page.locator('a', { hasText: app.name }) });
    expect(await hit.innerText()).toContain(`dbconn_server ${host.host_alias}`);
    // Opening a result leaves no stale term in the header's search box.
    await hit.locator('a').click();
    await page.locator('#view[data-ready=record] h2', { hasText: app.name }).waitFor();
    expect(await page.inputValue('#q')).toBe('');
    // The database page names the appservers connecting to it and their servers.
    await page.goto(`${index}#/databases/${encodeURIComponent(db.id)}`);
    await page.locator('#view[data-ready=record]').waitFor();
    const using = page.locator('section.links', { has: page.locator('h3', { hasText: 'Appservers that connect to it' }) });
    expect(await using.locator('a').allInnerTexts()).toContain(app.name);
    const theirServers = page.locator('section.links', { has: page.locator('h3', { hasText: 'Servers of those appservers' }) });
    expect(await theirServers.locator('a').allInnerTexts()).toContain(on.name);
    // appserver → its server → the appservers on that server.
    await using.locator('a', { hasText: app.name }).click();
    await page.locator('h2', { hasText: app.name }).waitFor();
    await page.locator('section.links a', { hasText: on.name }).first().click();
    await page.locator('#view[data-ready=record] h2', { hasText: on.name }).waitFor();
    expect(await page.locator('section.links', { has: page.locator('h3', { hasText: 'Appservers on this server' }) }).locator('a').allInnerTexts()).toContain(app.name);
    // A hand-typed filter is a chip too, and removable.
    await page.goto(`${index}#/appservers?f.dbconn_server=${encodeURIComponent(host.host_alias)}`);
    await page.locator('#view[data-ready=appservers]').waitFor();
    expect(await page.locator('.chip > span').allInnerTexts()).toEqual([`dbconn server = ${host.host_alias}`]);
    await page.locator('.chip a').click();
    await expect.poll(() => page.locator('.chip').count()).toBe(0);
    expect(errors).toEqual([]);
  }, 60_000);

  it('what changed last night for server Z: from the home page to the changes page, filtered', async () => {
    const upstream = await useUpstream({ scale: 60, seed: 6 });
    const out = tempDir();
    await syncInto(upstream, out, { browser: true });
    upstream.mutate({ seed: 3, share: 0.25 });
    await syncInto(upstream, out, { browser: true });
    const browser = await chromiumForTest({ viewport: { width: 1280, height: 900 } });
    const { page, errors } = await pageWithErrors(browser);
    await page.goto(pathToFileURL(join(out, 'index.html')).href);
    await page.locator('#view[data-ready=home]').waitFor();
    const more = page.locator('#recent .change a', { hasText: /^… and \d+ more$/ }).first();
    await more.click();
    await page.locator('#view[data-ready=changes]').waitFor();
    const listed = Number((await page.locator('#count').innerText()).split(' ')[0]);
    expect(listed).toBeGreaterThan(8);
    const changed = page.locator('table.changes tr.changed').first();
    const name = await changed.locator('td').nth(3).innerText();
    await page.fill('#changes-filter input[name=q]', name);
    await page.locator('#changes-filter button').click();
    await expect.poll(() => page.url()).toContain(`q=${encodeURIComponent(name).replace(/%20/g, '+')}`);
    await page.locator('#view[data-ready=changes]').waitFor();
    expect(await page.locator('table.changes tbody tr').count()).toBeGreaterThanOrEqual(1);
    expect(await page.locator('table.changes tbody tr').first().innerText()).toContain('→');
    await page.locator('table.changes tbody tr a', { hasText: name }).first().click();
    await page.locator('#view[data-ready=record]').waitFor();
    expect(await page.locator('section.history').innerText()).toContain('changed');
    // "Changed in the last sync" is a facet of every table.
    const history = parseHistoryScript(readFileSync(join(out, HISTORY_FILE)))!;
    const servers = history.entries[0]!.resources.servers!;
    await page.goto(`${pathToFileURL(join(out, 'index.html')).href}#/servers`);
    await page.locator('.facet[data-facet=_changed] a', { hasText: 'yes' }).click();
    const total = (JSON.parse(readFileSync(join(out, 'servers.json'), 'utf8')) as { servers: unknown[] }).servers.length;
    const marked = servers.counts.added + servers.counts.changed;
    expect(marked).toBeLessThan(total);
    await expect.poll(() => page.locator('#count').innerText()).toBe(`${marked} of ${total} records`);
    expect(errors).toEqual([]);
  }, 60_000);
});
