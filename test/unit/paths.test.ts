import { describe, expect, it } from 'vitest';
import { decodeSegment, encodeSegment, filterFile, parseRecordFile, recordFile } from '../../src/snapshot/paths.js';

describe('file names of ids and filter values', () => {
  it('keeps ids made of the safe characters as they are', () => {
    expect(recordFile('servers', '1042')).toBe('servers/1042.json');
    expect(recordFile('servers', 'web-01.prod_A~x')).toBe('servers/web-01.prod_A~x.json');
    expect(recordFile('servers', '.hidden')).toBe('servers/.hidden.json');
  });

  it('percent-encodes everything else, including . and .. and the characters encodeURIComponent leaves', () => {
    expect(encodeSegment('.')).toBe('%2E');
    expect(encodeSegment('..')).toBe('%2E%2E');
    expect(encodeSegment('../x')).toBe('..%2Fx');
    expect(encodeSegment('a/b')).toBe('a%2Fb');
    expect(encodeSegment('%2e%2e')).toBe('%252e%252e');
    expect(encodeSegment('sp ace?;')).toBe('sp%20ace%3F%3B');
    expect(encodeSegment("it's (x)*!")).toBe('it%27s%20%28x%29%2A%21');
    expect(encodeSegment('日本')).toBe('%E6%97%A5%E6%9C%AC');
    expect(filterFile('servers', 'by_location', 'site:1')).toBe('servers/_filter/by_location/site%3A1.json');
  });

  it('never yields a path separator or a dot-only name, so no id leaves its folder', () => {
    for (const id of ['..', '.', '../../etc/passwd', '/abs', 'a\\b', '\0', '%2F', '....']) {
      const name = encodeSegment(id);
      expect(name).not.toMatch(/[/\\\0]/);
      expect(['.', '..']).not.toContain(name);
    }
  });

  it('maps distinct ids to distinct names, case included', () => {
    const ids = ['a', 'A', 'a b', 'a%20b', 'a+b', '%41', 'A.', 'a.', '..', '%2E%2E'];
    expect(new Set(ids.map(encodeSegment)).size).toBe(ids.length);
  });

  it('decodes every name back to its id, except shortened long ones', () => {
    for (const id of ['1042', '../x', '.', '..', 'a/b', '%2e%2e', 'sp ace?;', "it's (x)*!", '日本', '.hidden']) expect(decodeSegment(encodeSegment(id))).toBe(id);
    expect(decodeSegment(encodeSegment('x'.repeat(300)))).toBeUndefined();
  });

  it('shortens over-long ids to a bounded, still unique name', () => {
    const long1 = 'x'.repeat(300);
    const long2 = `${'x'.repeat(299)}y`;
    const n1 = encodeSegment(long1);
    const n2 = encodeSegment(long2);
    expect(Buffer.byteLength(n1)).toBeLessThanOrEqual(200);
    expect(n1).not.toBe(n2);
    expect(encodeSegment('日'.repeat(200))).not.toMatch(/%[0-9A-F]?~/);
  });
});

describe('parseRecordFile', () => {
  it('takes exactly `<resource>/<name>.json` of the five resources', () => {
    const record = ['servers/1.json', 'databases/a.b.json', 'appservers/%2E%2E.json', 'operating_systems/x~0123.json', 'applications/.json.json', 'servers/\n.json'];
    const other = ['servers.json', 'servers/.json', 'servers/1.json/x.json', 'servers/_filter/by_system/1.json', 'widgets/1.json', 'constructor/1.json', '/servers/1.json', 'servers/1.jsonx', 'servers/1.JSON', 'servers//1.json', '_meta/manifest.json', 'servers/1json'];
    for (const path of record) {
      const slash = path.indexOf('/');
      expect(parseRecordFile(path), path).toEqual({ resource: path.slice(0, slash), name: path.slice(slash + 1, -'.json'.length) });
    }
    for (const path of other) expect(parseRecordFile(path), path).toBeUndefined();
  });
});
