/**
 * The system's Chromium (Debian's /usr/bin/chromium) through playwright-core, for the offline
 * page's tests; they skip when it is not installed (.ci/run installs it).
 */
import { existsSync } from 'node:fs';
import { atTeardown } from './teardown.js';
import { tempDir } from './tmp.js';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

/**
 * Chromium, headless and without background traffic, with a fresh profile in a temporary folder
 * (launchPersistentContext is playwright's way to pass --user-data-dir); closed when the test
 * finishes, pass or fail, and only then its profile removed: the folder is asked for first, so
 * its removal comes after the browser's close (Chromium writes there until it exits).
 */
export async function chromiumForTest(options: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' } = {}) {
  const { chromium } = await import('playwright-core');
  const profile = tempDir('im-chromium-');
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    acceptDownloads: true,
    ...options,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  atTeardown(() => browser.close());
  return browser;
}

/** A new page of `browser` that collects the page's script errors into `errors`. */
export async function pageWithErrors(browser: Awaited<ReturnType<typeof chromiumForTest>>) {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  return { page, errors };
}
