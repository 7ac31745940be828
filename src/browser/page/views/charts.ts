/** Charts drawn as SVG here, no library and no network; bars link to the filtered table. */
import { isCurrent, loading, ready, type Ctx } from '../context.js';
import { clear, el, svg, view } from '../dom.js';
import { cells } from '../table-data.js';
import type { Cell, History } from '../types.js';

type Bar = [label: string, count: number, link: string | null];

/**
 * A horizontal bar chart. Each bar is a link (keyboard-reachable, named by its text) when it has
 * a target; the SVG is a group of links then, not an image.
 */
export function barChart(title: string, bars: readonly Bar[]): HTMLElement {
  const fig = el('figure', null, { class: 'chart' });
  fig.appendChild(el('figcaption', title));
  const max = bars.reduce((m, b) => Math.max(m, b[1]), 0) || 1;
  const row = 22;
  const labelW = 150;
  const w = 560;
  const h = bars.length * row + 4;
  const linked = bars.some((b) => b[2] !== null);
  const s = fig.appendChild(svg('svg', linked ? { viewBox: `0 0 ${w} ${h}`, role: 'group', 'aria-label': title } : { viewBox: `0 0 ${w} ${h}`, role: 'img', 'aria-label': `${title}: ${bars.map((b) => `${b[0]} ${b[1]}`).join(', ')}` }));
  bars.forEach((b, k) => {
    const y = k * row + 2;
    const bw = Math.max(1, ((w - labelW - 60) * b[1]) / max);
    const g = s.appendChild(svg('g'));
    // A link is named by its visible texts (label and count); an unlinked bar keeps a tooltip.
    const holder = b[2] ? g.appendChild(svg('a', { href: b[2] })) : g;
    holder.appendChild(svg('text', { x: labelW - 6, y: y + 15, 'text-anchor': 'end', class: 'lbl' }, b[0].length > 22 ? `${b[0].slice(0, 21)}…` : b[0]));
    const rect = holder.appendChild(svg('rect', { x: labelW, y: y + 3, width: bw, height: row - 6, rx: 3, class: 'bar' }));
    if (!b[2]) rect.appendChild(svg('title', {}, `${b[0]}: ${b[1]}`));
    holder.appendChild(svg('text', { x: labelW + bw + 6, y: y + 15, class: 'val' }, b[1]));
  });
  return fig;
}

function counted<T>(values: Iterable<T | null | undefined>): Map<T, number> {
  const m = new Map<T, number>();
  for (const v of values) if (v !== null && v !== undefined) m.set(v, (m.get(v) ?? 0) + 1);
  return m;
}

/** Records changed per sync, oldest first; each bar opens that sync on the changes page. */
export function changesChart(h: History): HTMLElement {
  const bars: Bar[] = [];
  h.entries.forEach((e, n) => {
    if (e.initial) return;
    let count = 0;
    for (const c of Object.values(e.resources)) count += c.counts.added + c.counts.removed + c.counts.changed;
    const d = new Date(e.at);
    const text = Number.isNaN(d.getTime()) ? e.at : `${d.toLocaleDateString()} ${d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}`;
    bars.push([text, count, `#/_changes?sync=${n}`]);
  });
  const shown = bars.slice(0, 20).reverse();
  return shown.length ? barChart('Records changed per sync (oldest first)', shown) : el('p', 'No change between syncs yet: the chart of changes appears after the second sync that changes something.', { class: 'muted' });
}

export function chartsView(ctx: Ctx): void {
  const { store } = ctx;
  loading();
  store.withTables(['servers', 'operating_systems'], () => {
    store.withHistory((h) => {
      if (!isCurrent(ctx)) return;
      clear();
      const S = store.tables.get('servers')!;
      const v = view();
      v.appendChild(el('h2', 'Charts')).appendChild(el('small', `${S.n} servers`));
      const grid = v.appendChild(el('div', null, { class: 'charts' }));
      const byOs = counted(cells(S, 'operating_system.id').map((x) => (Array.isArray(x) ? x[0] : null)));
      const osBars: Bar[] = [...byOs].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([id, n]) => [store.nameOf('operating_systems', id), n, `#/servers?f.operating_system=${encodeURIComponent(id)}`]);
      grid.appendChild(barChart('Servers per operating system (top 15)', osBars));
      const mem = cells(S, 'memory_GB');
      const bands: [number, number][] = [[0, 4], [4, 8], [8, 16], [16, 32], [32, 64], [64, 128], [128, 256], [256, 512], [512, Infinity]];
      const memBars: Bar[] = bands
        .map(([lo, hi]): Bar => {
          let n = 0;
          for (const x of mem) if (typeof x === 'number' && x >= lo && x < hi) n++;
          const filter = new URLSearchParams([['o.memory_GB', `ge:${lo}`], ...(hi === Infinity ? [] : [['o.memory_GB', `lt:${hi}`]])]);
          return [hi === Infinity ? `${lo} GB and more` : `${lo}–${hi} GB`, n, `#/servers?${filter.toString()}`];
        })
        .filter((b) => b[1] > 0);
      grid.appendChild(barChart('Memory', memBars));
      const cpu = counted<Cell>(cells(S, 'processor_system_count'));
      const cpuBars: Bar[] = [...cpu].sort((a, b) => Number(a[0]) - Number(b[0])).map(([c, n]) => [`${String(c)} ${c === 1 ? 'CPU' : 'CPUs'}`, n, `#/servers?f.processor_system_count=${encodeURIComponent(String(c))}`]);
      grid.appendChild(barChart('Processors', cpuBars));
      grid.appendChild(changesChart(h));
      ready('charts', 'Charts');
    });
  });
}
