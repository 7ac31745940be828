/**
 * The commit message of a big change: every resource that changed has its line before any detail,
 * and a cascade in one resource leaves the others their share of the body.
 */
import { describe, expect, it } from 'vitest';
import { emptyChangeSet } from '../../src/diff/engine.js';
import { commitMessage, shareLines } from '../../src/git/message.js';

describe('commitMessage', () => {
  it('652 changed servers and 3 added appservers: both resources named first, the appservers listed, the servers cut with a count', () => {
    const changes = emptyChangeSet();
    for (let i = 0; i < 652; i++) {
      const id = String(1000 + i);
      changes.servers.changed.push(id);
      changes.servers.fields[id] = [{ path: 'memory_GB', before: 8, after: 16 }] as never;
    }
    changes.appservers.added.push('1', '2', '3');
    const message = commitMessage(changes, { prefix: 'inventory:', initial: false });
    const lines = message.trimEnd().split('\n');
    expect(lines[0]).toBe('inventory: servers ~652, appservers +3');
    expect(lines.slice(2, 4)).toEqual(['servers ~652', 'appservers +3']);
    expect(lines.filter((l) => l.startsWith('+ appservers '))).toHaveLength(3);
    expect(lines).toContain(`… and ${652 - 197} more servers`);
    expect(lines.filter((l) => l.startsWith('~ servers '))).toHaveLength(197);
  });

  it('shares the lines: small groups whole, the rest evenly, never more than the total', () => {
    expect(shareLines([652, 3], 200)).toEqual([197, 3]);
    expect(shareLines([300, 300, 5], 200)).toEqual([98, 97, 5]);
    expect(shareLines([2, 3], 200)).toEqual([2, 3]);
    expect(shareLines([50, 50, 50], 10)).toEqual([4, 3, 3]);
  });
});
