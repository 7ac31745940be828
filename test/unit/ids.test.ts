/** sortIds: the order of record ids (compareIds), by numbers where every id is one. */
import { describe, expect, it } from 'vitest';
import { compareIds, sortIds } from '../../src/spec/ids.js';
import { createRng } from '../../src/upstream/random.js';

describe('sortIds', () => {
  it('sorts as compareIds does, numbers or not, duplicates kept', () => {
    const next = createRng(7).next;
    const numbers = Array.from({ length: 5000 }, () => String(Math.floor(next() * 1e6)));
    const cases = [
      numbers,
      [...numbers].sort(compareIds),
      ['10', '9', '0', '9', '100000000000000', '99999999999999'],
      // 16 digits, a leading zero, a name: not numbers to sort as doubles.
      ['9007199254740993', '9007199254740992', '10'],
      ['10', '010', '9', 'a', '-1', 'B', '9'],
      [],
    ];
    for (const ids of cases) expect(sortIds([...ids])).toEqual([...ids].sort(compareIds));
  });
});
