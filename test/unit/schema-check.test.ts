/** The compiled schema checks find exactly the issues zod's safeParse finds, on records shaped like the simulator's and on damaged ones. */
import { describe, expect, it } from 'vitest';
import { compileCheck, schemaIssues, type IssuePath } from '../../src/spec/check.js';
import { RESOURCE_NAMES } from '../../src/spec/resources.js';
import { SCHEMAS } from '../../src/spec/schemas.js';
import { generateDataset } from '../../src/upstream/data.js';
import { realizeRecord } from '../../src/upstream/realize.js';
import { z } from 'zod';

const key = (paths: readonly IssuePath[]): string[] => paths.map((path) => JSON.stringify(path.map((part) => (typeof part === 'number' ? `#${part}` : part)))).sort();

function zodIssues(schema: z.ZodType, value: unknown): IssuePath[] {
  const result = schema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => issue.path);
}

/** A small deterministic generator (mulberry32), so a failure names a seed that replays it. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ODD_VALUES: unknown[] = [null, undefined, '', 'x', '10.0.0.1', '::1', '999.1.1.1', 0, -1, 1.5, 2 ** 60, Number.POSITIVE_INFINITY, Number.NaN, true, false, [], [1], {}, { a: 1 }, { a: 'x' }, [{}]];

/** Replaces one value somewhere in `value` (a fresh copy) by an odd one, or deletes it. */
function damage(value: unknown, next: () => number): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  let target: Record<string, unknown> | unknown[] = copy;
  // Walk down a few levels at random, then change one key or element.
  for (let depth = 0; depth < 3; depth++) {
    const keys = Object.keys(target);
    if (keys.length === 0) break;
    const k = keys[Math.floor(next() * keys.length)]!;
    const inner = (target as Record<string, unknown>)[k];
    if (next() < 0.5 || inner === null || typeof inner !== 'object') {
      const odd = ODD_VALUES[Math.floor(next() * ODD_VALUES.length)];
      if (odd === undefined && !Array.isArray(target)) delete (target as Record<string, unknown>)[k];
      else (target as Record<string, unknown>)[k] = odd;
      return copy;
    }
    target = inner as Record<string, unknown>;
  }
  return copy;
}

describe('compiled schema checks', () => {
  const dataset = generateDataset(7, 200);

  it('agree with zod on every simulated record, as generated and with its realistic quirks', () => {
    let withIssues = 0;
    for (const resource of RESOURCE_NAMES) {
      for (const view of dataset.views[resource].values()) {
        const realized = realizeRecord(7, resource, structuredClone(view));
        for (const record of [view, realized]) {
          for (const which of ['list', 'single'] as const) {
            const expected = zodIssues(SCHEMAS[resource][which], record);
            expect(key(schemaIssues(resource, which, record)), `${resource} ${record.id} (${which})`).toEqual(key(expected));
            if (expected.length > 0) withIssues++;
          }
        }
      }
    }
    // The quirks make some records fail: the comparison covered both answers.
    expect(withIssues).toBeGreaterThan(20);
  });

  it('agree with zod on damaged records: nulls, absent fields, wrong types at any depth', () => {
    const next = random(42);
    let compared = 0;
    for (const resource of RESOURCE_NAMES) {
      const views = [...dataset.views[resource].values()].slice(0, 40);
      for (const view of views) {
        for (let round = 0; round < 25; round++) {
          const record = damage(view, next);
          for (const which of ['list', 'single'] as const) {
            expect(key(schemaIssues(resource, which, record)), `${resource} ${JSON.stringify(record)} (${which})`).toEqual(key(zodIssues(SCHEMAS[resource][which], record)));
            compared++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it('agree with zod on values that are not objects at all', () => {
    for (const resource of RESOURCE_NAMES) {
      for (const value of ODD_VALUES) expect(key(schemaIssues(resource, 'single', value))).toEqual(key(zodIssues(SCHEMAS[resource].single, value)));
    }
  });

  it('hand kinds they do not compile to zod, with the same answers', () => {
    const schema = z.looseObject({ tags: z.array(z.string().min(2)), when: z.iso.date(), code: z.enum(['a', 'b']), n: z.number().positive(), strict: z.strictObject({ a: z.string() }) });
    const check = compileCheck(schema);
    const run = (value: unknown): IssuePath[] => {
      const out: IssuePath[] = [];
      check(value, [], out);
      return out;
    };
    const good = { tags: ['ab'], when: '2026-01-01', code: 'a', n: 1, strict: { a: 'x' } };
    expect(run(good)).toEqual([]);
    const bad = { tags: ['a', 'bc', 3], when: 'soon', code: 'c', n: -1, strict: { a: 'x', b: 1 } };
    expect(key(run(bad))).toEqual(key(zodIssues(schema, bad)));
    expect(run(bad).length).toBeGreaterThanOrEqual(5);
  });
});
