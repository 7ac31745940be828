/**
 * Takes the README's screenshots of the offline page (docs/browser.png on a desktop,
 * docs/browser-phone.png on a phone) from a realistic 200-server mirror of the simulated service,
 * synced twice so the history has a change, with site, room, maintainer and arch views
 * configured. Needs `npm run build` and Debian's chromium: `node scripts/screenshots.mjs`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { startUpstream } from '../dist/upstream/index.js';
import { runSync } from '../dist/sync/index.js';

const TOKEN = 'screenshot-token';
const work = mkdtempSync(join(tmpdir(), 'im-shots-'));
const upstream = await startUpstream({ token: TOKEN, scale: 200, seed: 3, profile: 'realistic' });
try {
  const out = join(work, 'out');
  const filters = {
    servers: {
      by_location: ['site:1', 'site:2', 'site:3', 'site:4', ...['1', '2', '3', '4'].flatMap((s) => ['1', '2', '3'].map((r) => `room:${s}${r}`))],
      by_maintainer: Array.from({ length: 25 }, (_, i) => String(101 + i)),
      by_arch: ['x86_64', 'aarch64', 'ppc64le', 's390x'],
      by_serial_number: [],
      by_fullmodel: [],
    },
  };
  const sync = () => runSync({ baseUrl: upstream.url, token: TOKEN, out, browser: true, filters });
  await sync();
  upstream.mutate({ seed: 4, share: 0.1 });
  await sync();
  const index = pathToFileURL(join(out, 'index.html')).href;
  const browser = await chromium.launchPersistentContext(join(work, 'profile'), {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.goto(`${index}#/servers?f.virtual=true&f.site=2&o.memory_GB=lt%3A64`);
    await page.locator('#view[data-ready=servers]').waitFor();
    await page.locator('.facet').first().waitFor();
    await page.screenshot({ path: 'docs/browser.png' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${index}#/servers?f.site=3&f.virtual=false`);
    await page.locator('#view[data-ready=servers]').waitFor();
    await page.screenshot({ path: 'docs/browser-phone.png' });
  } finally {
    await browser.close();
  }
} finally {
  await upstream.close();
  rmSync(work, { recursive: true, force: true });
}
