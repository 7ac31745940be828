/**
 * The offline page against hostile data (issue 29, breaks 7 and 10), in a real headless Chromium:
 * operating-system ids that are Object.prototype's names, and text cells a spreadsheet would run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { upstreamGet, useUpstream } from '../helpers/upstream.js';

const CHROMIUM = '/usr/bin/chromium';

const FORMULAS = ['=HYPERLINK("http://evil.example","x")', "=cmd|' /C calc'!A0", '+1+1', '-2+3', '@SUM(A1)'];

describe.skipIf(!existsSync(CHROMIUM))('the offline page with hostile data', () => {
  it('works with operating systems "constructor" and "__proto__", and exports formula-like cells neutralised', { timeout: 120_000 }, async () => {
    const upstream = await useUpstream({ scale: 20 });
    const os = ((await upstreamGet(upstream, '/operating_systems/1.json')).body as { operating_system: Record<string, unknown> }).operating_system;
    for (const id of ['constructor', '__proto__']) upstream.putRecord('operating_systems', { ...os, id, name: `os-${id}` });
    const list = (await upstreamGet(upstream, '/servers.json')).body as { servers: { id: string }[] };
    const server = ((await upstreamGet(upstream, `/servers/${encodeURIComponent(list.servers[0]!.id)}.json`)).body as { server: Record<string, unknown> }).server;
    FORMULAS.forEach((name, n) => upstream.putRecord('servers', { ...server, id: `formula-${n}`, name }));
    const out = tempDir();
    await syncInto(upstream, out, { browser: true });
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launchPersistentContext(tempDir('im-chromium-'), {
      executablePath: CHROMIUM,
      headless: true,
      acceptDownloads: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      const index = pathToFileURL(join(out, 'index.html')).href;
      await page.goto(`${index}#/servers`);
      await page.locator('#view[data-ready=servers]').waitFor();
      expect(await page.locator('.facet[data-facet=operating_system] li').count()).toBeGreaterThan(0);
      await page.goto(`${index}#/operating_systems/constructor`);
      await expect.poll(() => page.locator('#view').innerText()).toContain('os-constructor');
      await page.goto(`${index}#/operating_systems/__proto__`);
      await expect.poll(() => page.locator('#view').innerText()).toContain('os-__proto__');
      expect(errors).toEqual([]);

      await page.goto(`${index}#/servers`);
      await page.locator('#view[data-ready=servers]').waitFor();
      const [csv] = await Promise.all([page.waitForEvent('download'), page.locator('#export-csv').click()]);
      const text = readFileSync((await csv.path())!, 'utf8');
      for (const name of FORMULAS) {
        const cell = name.includes('"') || name.includes(',') ? `"'${name.replaceAll('"', '""')}"` : `'${name}`;
        expect(text, name).toContain(`,${cell},`);
      }
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
