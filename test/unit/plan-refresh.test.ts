/**
 * The rolling refresh of an incremental plan: each run takes the ceil(records / N) kept records
 * fetched longest ago, in list order among those of the same run, the resources in turn.
 */
import { describe, expect, it } from 'vitest';
import { ItemPlaces, Summarizer, type ListSummary } from '../../src/sync/list-summary.js';
import { plan, Reason } from '../../src/sync/plan.js';
import { FileTable } from '../../src/snapshot/table.js';
import { RESOURCE_NAMES, type ResourceName } from '../../src/spec/resources.js';

const item = 'AAAAAAAAAAAAAAAA';

/** A list kept as it was (a 304) of `ids`. */
function listOf(resource: ResourceName, ids: readonly string[]): ListSummary {
  const summary = new Summarizer(resource, 'test', 100_000, new ItemPlaces());
  summary.takeCachedChunk({ ids: ids.join(''), idLengths: ids.map((id) => id.length), names: '', nameLengths: ids.map(() => -1), refs: ids.map(() => null), gaps: ids.map(() => 1), lengths: ids.map(() => 9), from: 0, stamped: true });
  return summary.finish(false);
}

describe('the rolling refresh', () => {
  it('takes the records seen longest ago first, list order and resource order among equals, ceil(records / N) of them', () => {
    // Runs last seen: servers and databases interleaved so ties cross resources; runs before `verified` count as it.
    const servers = Array.from({ length: 50 }, (_, n) => String(n));
    const databases = Array.from({ length: 23 }, (_, n) => `d${n}`);
    const seenOf = (resource: ResourceName, n: number): number => (resource === 'servers' ? [3, 5, 2, 9, 5, 1][n % 6]! : [5, 4, 2][n % 3]!);
    const previous = new FileTable();
    for (const [resource, ids] of [['servers', servers], ['databases', databases]] as const) {
      ids.forEach((id, n) => previous.set(`${resource}/${id}.json`, 'a'.repeat(64), 10, { etag: `"${'0'.repeat(32)}"`, item, seen: seenOf(resource, n) }));
    }
    const lists = Object.fromEntries(RESOURCE_NAMES.map((r) => [r, listOf(r, r === 'servers' ? servers : r === 'databases' ? databases : [])])) as Record<ResourceName, ListSummary>;
    for (const refreshRuns of [1, 4, 7, 100]) {
      const made = plan({ previous, cached: true, quality: true, lists, views: [], run: 9, incremental: { refreshRuns, service: 's', previous: { run: 9, service: 's', verified: 2 } } });
      // What a stable sort by the run each was seen in (at least `verified`) takes first.
      const order = RESOURCE_NAMES.flatMap((resource) => lists[resource].ids.length === 0 ? [] : Array.from({ length: lists[resource].ids.length }, (_, n) => ({ resource, n, seen: Math.max(2, seenOf(resource, n)) })));
      const due = Math.ceil(order.length / refreshRuns);
      const expected = [...order].sort((a, b) => a.seen - b.seen).slice(0, due).map(({ resource, n }) => `${resource}/${n}`).sort();
      const refreshed = RESOURCE_NAMES.flatMap((resource) => [...made.records[resource].reasons].flatMap((reason, n) => (reason === Reason.Refresh ? [`${resource}/${n}`] : []))).sort();
      expect(refreshed, `refreshRuns ${refreshRuns}`).toEqual(expected);
    }
  });
});
