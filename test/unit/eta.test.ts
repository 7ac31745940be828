import { describe, expect, it } from 'vitest';
import { formatEta } from '../../src/cli/output.js';

describe('formatEta', () => {
  it('reads as a person would say it, never "0 s" while work is left', () => {
    expect(formatEta(0.2)).toBe('1 s');
    expect(formatEta(42.4)).toBe('42 s');
    expect(formatEta(185)).toBe('3 min');
    expect(formatEta(3 * 3600 + 5 * 60)).toBe('3 h 5 min');
  });
});
