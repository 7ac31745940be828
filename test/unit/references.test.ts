/** References found in record bodies (index/references.ts): by key name, by id and by name, never hard-coded. */
import { describe, expect, it } from 'vitest';
import { parseReference, referencesOf, resolveReferences } from '../../src/index/references.js';

describe('references of a record', () => {
  it('finds embedded records by id, names by key, and nested objects under keys that name no resource', () => {
    const refs = referencesOf('servers', { id: '7', name: 'web-1', operating_system: { id: '3', name: 'Debian 12', codename: 'bookworm' }, maintainer: { id: '101', name: 'Ops Team' }, location: { site: 'x' } });
    expect(refs).toEqual(['2/3', '3?101/Ops%20Team']);
    expect(referencesOf('appservers', { id: '1', server_id: '12', server_name: 'db 1', server: { id: '12', name: 'db 1' } })).toEqual(['3/12', '3~db%201']);
    expect(referencesOf('applications', { id: '1', application_instances: [{ name: 'x-prd', servers: ['a', 'b/c'] }] })).toEqual(['3~a', '3~b%2Fc']);
  });

  it('resolves names to ids, keeps a tentative id only where that record has that name, and reads every form back', () => {
    const names = new Map([['servers\u0000db 1', '12'], ['operating_systems\u0000Debian', '2']]);
    const idOfName = (resource: string, name: string) => names.get(`${resource}\u0000${name}`);
    expect(resolveReferences(['3~db%201', '3~gone', '3?101/Ops%20Team', '2?2/Debian', '3/12'], idOfName)).toBe('2/2 3/12 3~gone');
    expect(resolveReferences([], idOfName)).toBeUndefined();
    expect(parseReference('3?101/Ops%20Team')).toEqual({ resource: 'servers', kind: 'tentative', value: '101', segment: '101', name: 'Ops Team' });
    expect(parseReference('9/1')).toBeUndefined();
    expect(parseReference('3/a/b')).toBeUndefined();
  });
});
