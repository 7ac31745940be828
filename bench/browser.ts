/**
 * The offline page's load time: `sync --browser` writes the page into a synced folder, then a
 * headless Chromium (the system's /usr/bin/chromium, through playwright-core) opens it from disk,
 * in a fresh page each time, several times per figure, and reads the times inside the page
 * (performance.now()):
 * - the servers table (`index.html#/servers`, from the start of the navigation): until the first
 *   rows show, and until it is usable with every server loaded (sorting, facets, paging);
 * - record pages of a server, a database and the operating system with the most servers (from the
 *   start of the navigation until the page and its links are drawn);
 * - the global search: from typing a server's name in the header's box (the input event) until
 *   every index file is searched and the counts are whole, and until the first hits show.
 * Runs alone too:
 *
 *     node dist-bench/bench/browser.js [--scale N]... [--runs R] [--seed S]
 *
 * starts the simulated service at each scale, syncs it with --browser into a temporary folder
 * and prints one line per scale.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
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

/** The times of one kind of page (ms): each run, their median and the best. */
export interface Timed {
  runsMs: number[];
  medianMs: number;
  bestMs: number;
}

/** How long the page took, or why it was not measured. */
export type PageLoad =
  | {
      servers: number;
      pageBuildMs: number;
      usableMs: number[];
      medianMs: number;
      bestMs: number;
      firstRowsMedianMs: number;
      /** Record pages until drawn with their links, by kind (`server`, `database`, `operating system`). */
      records: Record<string, Timed>;
      /** The search, from typing to whole counts, and to the first hits. */
      search: Timed & { term: string; firstHitsMedianMs: number };
    }
  | { skipped: string };

/**
 * Notes, from the start of the navigation, when #view is first marked as showing a preview and as
 * ready (per view name: `servers`, `record`, `search`), and when the header's search box last got
 * an input event.
 */
const SEEN = `window.__seen = { preview: {}, ready: {} };
new MutationObserver(function () {
  var v = document.getElementById('view');
  if (!v) return;
  var p = v.getAttribute('data-preview'), r = v.getAttribute('data-ready');
  if (p && window.__seen.preview[p] === undefined) window.__seen.preview[p] = performance.now();
  if (r && window.__seen.ready[r] === undefined) window.__seen.ready[r] = performance.now();
}).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-preview', 'data-ready'] });
document.addEventListener('input', function (e) { if (e.target && e.target.id === 'q') window.__seen.typed = performance.now(); }, true);`;

type Seen = { preview: Record<string, number>; ready: Record<string, number>; typed?: number };

const timed = (runsMs: number[]): Timed => ({ runsMs, medianMs: median(runsMs), bestMs: Math.min(...runsMs) });

/** Ids to open: a server (the first of the largest system's view), the first database, that system. */
function pickRecords(dir: string): { server: { id: string; name: string }; database?: string; system?: string } {
  const list = <T>(file: string, key: string): T[] => (existsSync(join(dir, file)) ? ((JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, T[]>)[key] ?? []) : []);
  const systems = list<{ id: string }>('operating_systems.json', 'operating_systems');
  let system: string | undefined;
  let most = -1;
  for (const os of systems) {
    const file = join(dir, 'servers', '_filter', 'by_system', `${encodeURIComponent(os.id)}.json`);
    const size = existsSync(file) ? statSync(file).size : -1;
    if (size > most) [system, most] = [os.id, size];
  }
  const onIt = system === undefined ? [] : list<{ id: string; name: string }>(`servers/_filter/by_system/${encodeURIComponent(system)}.json`, 'servers');
  const server = onIt[0] ?? list<{ id: string; name: string }>('servers.json', 'servers')[0]!;
  return { server, database: list<{ id: string }>('databases.json', 'databases')[0]?.id, system };
}


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
  const records: Record<string, Timed> = {};
  const searchMs: number[] = [];
  const firstHitsMs: number[] = [];
  const picked = pickRecords(options.dir);
  const index = pathToFileURL(join(options.dir, 'index.html')).href;
  const timeout = (): number => Math.max(1000, options.timeoutMs - (Date.now() - started));
  const runs = options.runs ?? 3;
  // A fresh page each time: nothing parsed or cached by a previous run is reused.
  const fresh = async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.addInitScript(SEEN);
    return page;
  };
  try {
    for (let run = 0; run < runs; run++) {
      const page = await fresh();
      // When the first rows show (a preview from the first part loaded) and when the table is whole.
      await page.goto(`${index}#/servers`);
      await page.locator('#view[data-ready=servers] table.grid tbody tr').first().waitFor({ timeout: timeout() });
      const seen = await page.evaluate<Seen>('window.__seen');
      usableMs.push(Math.round(seen.ready.servers ?? (await page.evaluate<number>('performance.now()'))));
      firstRowsMs.push(Math.round(seen.preview.servers ?? seen.ready.servers ?? 0));
      await page.close();
    }
    const pages: [string, string, string | undefined][] = [
      ['server', 'servers', picked.server.id],
      ['database', 'databases', picked.database],
      ['operating system', 'operating_systems', picked.system],
    ];
    for (const [kind, resource, id] of pages) {
      if (id === undefined) continue;
      const ms: number[] = [];
      for (let run = 0; run < runs; run++) {
        const page = await fresh();
        await page.goto(`${index}#/${resource}/${encodeURIComponent(id)}`);
        await page.locator('#view[data-ready=record]').waitFor({ timeout: timeout() });
        ms.push(Math.round((await page.evaluate<Seen>('window.__seen')).ready.record!));
        await page.close();
      }
      records[kind] = timed(ms);
    }
    for (let run = 0; run < runs; run++) {
      const page = await fresh();
      await page.goto(index);
      await page.locator('#view[data-ready=home]').waitFor({ timeout: timeout() });
      // As a person types it: the whole name in one input event, then the page's own debounce.
      await page.fill('#q', picked.server.name);
      await page.locator('#view[data-ready=search]').waitFor({ timeout: timeout() });
      const seen = await page.evaluate<Seen>('window.__seen');
      searchMs.push(Math.round(seen.ready.search! - seen.typed!));
      firstHitsMs.push(Math.round((seen.preview.search ?? seen.ready.search!) - seen.typed!));
      await page.close();
    }
  } finally {
    await browser.close();
  }
  return {
    servers: options.servers,
    pageBuildMs,
    usableMs,
    medianMs: median(usableMs),
    bestMs: Math.min(...usableMs),
    firstRowsMedianMs: median(firstRowsMs),
    records,
    search: { ...timed(searchMs), term: picked.server.name, firstHitsMedianMs: median(firstHitsMs) },
  };
}

/** One line for the report. */
export function describePage(load: PageLoad): string {
  if ('skipped' in load) return `offline page: not measured (${load.skipped})`;
  const records = Object.entries(load.records).map(([kind, t]) => `${kind} ${t.medianMs} ms (best ${t.bestMs})`);
  return [
    `offline page at ${load.servers} servers, from file:// in headless Chromium, medians of ${load.usableMs.length} fresh pages:`,
    `servers table usable in ${load.medianMs} ms (every server loaded; best ${load.bestMs} ms), first rows in ${load.firstRowsMedianMs} ms;`,
    `record page usable (drawn with its links): ${records.join(', ')};`,
    `search answered (typing a server's name to whole counts, the page's 250 ms debounce included) in ${load.search.medianMs} ms (best ${load.search.bestMs} ms), first hits in ${load.search.firstHitsMedianMs} ms;`,
    `sync --browser of the synced folder took ${load.pageBuildMs} ms`,
  ].join(' ');
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
