/**
 * config/mirror.example.json is the settings reference: it must parse, hold every setting, and
 * show each at its default, so copying it changes nothing.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';

const example = JSON.parse(readFileSync(new URL('../../config/mirror.example.json', import.meta.url), 'utf8')) as Record<string, unknown>;

/** Every leaf key path of an object, `$comment` keys left out. */
function keyPaths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix];
  const entries = Object.entries(value).filter(([k]) => k !== '$comment');
  if (entries.length === 0) return [prefix];
  return entries.flatMap(([k, v]) => keyPaths(v, prefix ? `${prefix}.${k}` : k));
}

describe('config/mirror.example.json', () => {
  it('parses and equals the built-in defaults', () => {
    expect(parseConfig(example, 'example')).toEqual(parseConfig({}, 'defaults'));
  });

  it('shows every setting that has a default, and explains every section', () => {
    expect(keyPaths(example).sort()).toEqual(keyPaths(parseConfig({}, 'defaults')).sort());
    for (const [key, section] of Object.entries(example)) {
      if (section !== null && typeof section === 'object' && !Array.isArray(section)) expect(section, key).toHaveProperty('$comment');
    }
  });

  it('names an unknown key and a wrong type', () => {
    expect(() => parseConfig({ sync: { concurency: 4 } }, 'f.json')).toThrow('f.json: unknown key sync.concurency');
    expect(() => parseConfig({ serve: { port: 'http' } }, 'f.json')).toThrow(/f\.json: serve\.port: expected number/);
    expect(() => parseConfig({ baseUrl: 'ftp://x' }, 'f.json')).toThrow(/baseUrl: expected an http/);
  });
});
