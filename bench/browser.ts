/**
 * The offline page's load time: `sync --browser` writes the page into a synced folder, then a
 * headless Chromium (the system's /usr/bin/chromium, through playwright-core) opens
 * `index.html#/servers` from disk in a fresh page, several times, and two times are read inside
 * the page (performance.now(), from the start of the navigation): until the first rows show, and
 * until the table is usable with every server loaded (sorting, facets, paging). Runs alone too:
 *
 *     node dist-bench/bench/browser.js [--scale N]... [--runs R] [--seed S]
 *
 * starts the simulated service at each scale, syncs it with --browser into a temporary folder
 * and prints one line per scale.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { runChild, stopAllChildren } from './children.js';
import { median } from './lib/median.js';
import { startUpstreamChild } from './upstream-child.js';

const CHROMIUM = '/usr/bin/chromium';
const HERE = dirname(fileURLToPath(import.meta.url));
const CLI = join(HERE, '..', '..', 'dist', 'cli.js');

/** How long the page took, or why it was not measured. */
export type PageLoad = { servers: number; pageBuildMs: number; usableMs: number[]; medianMs: number; bestMs: number; firstRowsMedianMs: number } | { skipped: string };

/** Notes, from the start of the navigation, when #view first shows rows and when the table is whole. */
const SEEN = `window.__seen = {};
new MutationObserver(function () {
  var v = document.getElementById('view');
  if (!v) return;
  if (v.getAttribute('data-preview') === 'servers' && window.__seen.preview === undefined) window.__seen.preview = performance.now();
  if (v.getAttribute('data-ready') === 'servers' && window.__seen.ready === undefined) window.__seen.ready = performance.now();
}).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-preview', 'data-ready'] });`;


interface PageOptions {
  cli: string;
  url: string;
  dir: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  servers: number;
  runs?: number;
  timeoutMs: number;
}

/** Writes the page into `dir` (a sync of `url` with --browser) and times the servers table in Chromium. */
export async function measurePage(options: PageOptions): Promise<PageLoad> {
  if (!existsSync(CHROMIUM)) return { skipped: `no ${CHROMIUM}` };
  const started = Date.now();
  const child = await runChild(process.execPath, [options.cli, 'sync', '--base-url', options.url, '--out', options.dir, '--browser', '--quiet'], { env: options.env, cwd: options.cwd, timeoutMs: options.timeoutMs });
  if (child.timedOut) return { skipped: 'sync --browser ran out of time' };
  if (child.code !== 0) return { skipped: `sync --browser exited with ${child.code}: ${child.stderr.trim().split('\n').pop() ?? ''}` };
  const pageBuildMs = Date.now() - started;
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'] });
  const usableMs: number[] = [];
  const firstRowsMs: number[] = [];
  try {
    const url = `${pathToFileURL(join(options.dir, 'index.html')).href}#/servers`;
    for (let run = 0; run < (options.runs ?? 3); run++) {
      // A fresh page each time: nothing parsed or cached by a previous run is reused.
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      // When the first rows show (a preview from the first part loaded) and when the table is whole.
      await page.addInitScript(SEEN);
      await page.goto(url);
      await page.locator('#view[data-ready=servers] table.grid tbody tr').first().waitFor({ timeout: Math.max(1000, options.timeoutMs - (Date.now() - started)) });
      const seen = await page.evaluate<{ preview?: number; ready?: number }>('window.__seen');
      usableMs.push(Math.round(seen.ready ?? (await page.evaluate<number>('performance.now()'))));
      firstRowsMs.push(Math.round(seen.preview ?? seen.ready ?? 0));
      await page.close();
    }
  } finally {
    await browser.close();
  }
  return { servers: options.servers, pageBuildMs, usableMs, medianMs: median(usableMs), bestMs: Math.min(...usableMs), firstRowsMedianMs: median(firstRowsMs) };
}

/** One line for the report. */
export function describePage(load: PageLoad): string {
  if ('skipped' in load) return `offline page: not measured (${load.skipped})`;
  return `offline page at ${load.servers} servers: servers table usable in ${load.medianMs} ms (every server loaded; median of ${load.usableMs.length}, best ${load.bestMs} ms), first rows in ${load.firstRowsMedianMs} ms, from file:// in headless Chromium; sync --browser of the synced folder took ${load.pageBuildMs} ms`;
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { scale: { type: 'string', multiple: true }, runs: { type: 'string' }, seed: { type: 'string' } } });
  const scales = (values.scale ?? ['20000']).map(Number);
  const token = randomBytes(18).toString('base64url');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LANG: 'C', INVENTORY_API_TOKEN: token };
  const tmp = await mkdtemp(join(tmpdir(), 'im-bench-browser-'));
  try {
    for (const scale of scales) {
      const upstream = await startUpstreamChild({ scale, seed: Number(values.seed ?? 1), profile: undefined, token, env, timeoutMs: 600_000 });
      try {
        const dir = join(tmp, `mirror-${scale}`);
        // A plain sync first, as the bench's rows have it; the measured step adds the page.
        const first = await runChild(process.execPath, [CLI, 'sync', '--base-url', upstream.url, '--out', dir, '--quiet'], { env, cwd: tmp, timeoutMs: 3_600_000 });
        if (first.code !== 0) throw new Error(`sync at scale ${scale} exited with ${first.code}: ${first.stderr.trim().split('\n').pop() ?? ''}`);
        const load = await measurePage({ cli: CLI, url: upstream.url, dir, env, cwd: tmp, servers: upstream.counts.servers, runs: Number(values.runs ?? 3), timeoutMs: 3_600_000 });
        process.stdout.write(`${describePage(load)}\n`);
      } finally {
        await upstream.stop();
      }
    }
    return 0;
  } finally {
    stopAllChildren();
    await rm(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
