/**
 * The offline page in a real headless Chromium (playwright-core, the system's /usr/bin/chromium),
 * opened from disk (file://): search a name, open a server, follow a link to its appserver; open
 * the data-quality view and follow a finding to a record it names.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { verifyFolder } from '../../src/verify/verify.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { upstreamGet, useUpstream, withUpstream } from '../helpers/upstream.js';
import { QUALITY_FILE } from '../../src/publish/paths.js';
import { parseQuality } from '../../src/validate/quality.js';

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

describe('the offline browser page', () => {
  it('sync --browser writes byte-stable page files listed in the manifest', async () => {
    const out = tempDir();
    await syncInto(upstream, out, { browser: true });
    const manifest = JSON.parse(readFileSync(join(out, '_meta/manifest.json'), 'utf8')) as { files: Record<string, unknown> };
    for (const file of ['index.html', '_browser/app.js', '_browser/app.css', '_browser/data.js', '_browser/records/servers/0.js']) expect(manifest.files[file]).toBeDefined();
    expect(readFileSync(join(out, 'index.html'), 'utf8')).not.toMatch(/https?:\/\//);
    const again = await syncInto(upstream, out, { browser: true });
    expect(again.written).toEqual([]);
    expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });
  });

  it.skipIf(!hasChromium)('works from file://: search, open a server, follow the link to its appserver (screenshot taken)', async () => {
    const out = tempDir();
    await syncInto(upstream, out, { browser: true });
    const { body } = (await upstreamGet(upstream, '/appservers.json')) as { body: { appservers: { id: string; name: string; server_id: string; server_name: string }[] } };
    const app = body.appservers[0]!;
    const shots = mkdtempSync(join(tmpdir(), 'im-shots-'));
    const browser = await launchChromium({ viewport: { width: 1100, height: 800 } });
    try {
      const page = await browser.newPage();
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(pathToFileURL(join(out, 'index.html')).href);
      await expect.poll(() => page.locator('nav a').count()).toBe(7);
      expect(await page.locator('nav').innerText()).toMatch(/servers\s*\d+/);
      expect(await page.locator('.change').innerText()).toMatch(/First snapshot/);

      await page.fill('#q', app.server_name);
      await page.locator('ul.results a', { hasText: app.server_name }).first().waitFor();
      await page.locator('ul.results a', { hasText: app.server_name }).first().click();
      await page.locator('h2', { hasText: app.server_name }).waitFor();
      await page.locator('table th', { hasText: 'processor_reference' }).waitFor();
      const appLink = page.locator('section.links a', { hasText: app.name }).first();
      await appLink.waitFor();
      await page.screenshot({ path: join(shots, 'server.png'), fullPage: true });
      await appLink.click();
      await page.locator('h2', { hasText: app.name }).waitFor();
      await page.locator('td', { hasText: app.server_id }).first().waitFor();
      expect(await page.locator('section.links a').first().innerText()).toBe(app.server_name);
      await page.screenshot({ path: join(shots, 'appserver.png'), fullPage: true });
      expect(existsSync(join(shots, 'appserver.png'))).toBe(true);
      expect(errors).toEqual([]);
      expect(requests.every((u) => u.startsWith('file://'))).toBe(true);
      process.stderr.write(`browser test screenshots: ${shots}\n`);
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
        await expect.poll(() => page.locator('nav a').count()).toBe(7);
        await page.goto(`${index}#/servers/${name}`);
        await page.locator('h2', { hasText: `No servers record with id ${name}` }).waitFor();
      }
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it.skipIf(!hasChromium)('the data-quality view lists the findings, largest first, and each opens the records it names', async () => {
    const realistic = await withUpstream({ profile: 'realistic', scale: 80, seed: 2 });
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
});
