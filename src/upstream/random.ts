/**
 * A small seeded PRNG. The simulator's data and fault draws must be byte-identical across runs,
 * processes and platforms, so nothing here touches Math.random or the clock.
 */

/** A deterministic random source; every helper consumes the same underlying stream. */
export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
  /** `count` distinct items in their original order. */
  sample<T>(items: readonly T[], count: number): T[];
}

/** mulberry32: 32 bits of state, good enough spread for test data, identical on every engine. */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError('pick from an empty list');
      return items[int(0, items.length - 1)]!;
    },
    chance: (probability) => next() < probability,
    sample: <T>(items: readonly T[], count: number): T[] => {
      const wanted = Math.min(count, items.length);
      const chosen = new Set<number>();
      // Few out of many: draw indices until distinct, so sampling stays O(count), not O(items).
      if (wanted * 4 <= items.length) {
        while (chosen.size < wanted) chosen.add(int(0, items.length - 1));
      } else {
        const indices = items.map((_, i) => i);
        for (let i = indices.length - 1; i > 0; i--) {
          const j = int(0, i);
          [indices[i], indices[j]] = [indices[j]!, indices[i]!];
        }
        indices.slice(0, wanted).forEach((i) => chosen.add(i));
      }
      return [...chosen].sort((a, b) => a - b).map((i) => items[i]!);
    },
  };
}

/** FNV-1a over UTF-16 code units: a stable 32-bit seed derived from a string. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * An independent stream for one record and one purpose. The realistic profile draws from these
 * so that its choices depend on the record alone, never on how many records came before; the
 * dataset's own stream, and with it the exact profile's data, stays untouched.
 */
export function recordRng(seed: number, resource: string, id: string, purpose: string): Rng {
  return createRng(hashString(`${seed}\u0000${resource}\u0000${id}\u0000${purpose}`));
}
