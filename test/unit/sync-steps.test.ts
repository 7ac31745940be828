/**
 * The pure steps of a sync, without a network: what the plan asks the service for each body,
 * and the assembly's mass-removal decision.
 */
import { describe, expect, it } from 'vitest';
import { massRemovalProblem } from '../../src/sync/assemble.js';
import { itemDigest, planList, planRecord, planView } from '../../src/sync/plan.js';

const item = itemDigest(Buffer.from('{"id":1,"name":"web01"}'));
const published = { etag: '"e1"', lastModified: 'Mon, 23 Nov 2026 10:00:00 GMT', item };

describe('plan', () => {
  it('asks "changed since?" for a list only when the published one has validators', () => {
    expect(planList(published)).toEqual({ etag: '"e1"', lastModified: 'Mon, 23 Nov 2026 10:00:00 GMT' });
    expect(planList({ item })).toBeUndefined();
    expect(planList(undefined)).toBeUndefined();
  });

  it('asks it for a record only when a 304 may keep it unread: same list item, findings carried over', () => {
    expect(planRecord(published, item, true)).toEqual({ etag: '"e1"', lastModified: 'Mon, 23 Nov 2026 10:00:00 GMT' });
    // The list item changed: the record is fetched whole and checked against the new item.
    expect(planRecord(published, itemDigest(Buffer.from('{"id":1,"name":"web01b"}')), true)).toBeUndefined();
    // No quality report to carry its findings from: fetched and checked again.
    expect(planRecord(published, item, false)).toBeUndefined();
    expect(planRecord(undefined, item, true)).toBeUndefined();
  });

  it('always asks for a view, and re-reads it when its list changed or its findings cannot be carried', () => {
    expect(planView(published, false, true)).toEqual({ validators: { etag: '"e1"', lastModified: 'Mon, 23 Nov 2026 10:00:00 GMT' }, recheck: false });
    expect(planView(published, true, true).recheck).toBe(true);
    expect(planView(published, false, false).recheck).toBe(true);
    expect(planView(undefined, false, true).validators).toBeUndefined();
  });

  it('digests a list item by its bytes', () => {
    expect(itemDigest(Buffer.from('{"id":1,"name":"web01"}'))).toBe(item);
    expect(itemDigest(Buffer.from('{"name":"web01","id":1}'))).not.toBe(item);
  });
});

describe('assemble: the mass-removal guard', () => {
  const counts = (servers: number) => ({ applications: 10, databases: 10, operating_systems: 5, servers, appservers: 10 });
  const settings = { maxShare: 0.5, minPrevious: 100 };

  it('refuses a resource losing more than the share allowed, naming it and the flag that overrides', () => {
    const problem = massRemovalProblem(counts(1000), counts(400), settings);
    expect(problem).toContain('servers would lose 600 of 1000 records (60%, over the 50% allowed');
    expect(problem).toContain('--allow-mass-removal');
  });

  it('lets pass a loss within the share, and any loss of a resource too small to judge', () => {
    expect(massRemovalProblem(counts(1000), counts(500), settings)).toBeUndefined();
    expect(massRemovalProblem(counts(99), counts(0), settings)).toBeUndefined();
  });
});
