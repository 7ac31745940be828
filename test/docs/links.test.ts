/**
 * Every relative link of the manual and its pages leads somewhere: README.md, CONTRIBUTING.md,
 * CHANGELOG.md and docs/*.md link only to files that exist, and an `#anchor` only to a heading of
 * the file it names (as GitHub spells a heading's anchor). Text moves between these files; a
 * link left pointing at where it was fails here.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGES = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

/** The text outside fenced code blocks and inline code: links and headings there are not markdown. */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, '');
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, ... */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = heading[1]!
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
        .replace(/\s/g, '-');
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      out.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const match of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(match[1]!);
  }
  return out;
}

/** Each relative link target of a page, with its line: `[text](target)` and `![alt](target)`. */
function links(markdown: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  prose(markdown).forEach((text, i) => {
    for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) out.push({ line: i + 1, target });
    }
  });
  return out;
}

describe('links in the manual and docs/', () => {
  it('the anchor rule spells headings as GitHub does', () => {
    expect([...anchors('# Object storage (`push`)\n## 7. Every ten minutes, incrementally\n## Errors and their codes\n## A\n## A\n```\n# not a heading\n```')]).toEqual([
      'object-storage-push',
      '7-every-ten-minutes-incrementally',
      'errors-and-their-codes',
      'a',
      'a-1',
    ]);
  });

  it.each(PAGES)('every relative link of %s resolves to an existing file and heading', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    const broken: string[] = [];
    for (const { line, target } of links(text)) {
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? join(ROOT, page) : join(ROOT, dirname(page), decodeURIComponent(path));
      const where = `${page}:${line}: ${target}`;
      if (!existsSync(file)) {
        broken.push(`${where} (no file ${relative(ROOT, file)})`);
        continue;
      }
      if (anchor === undefined) continue;
      if (statSync(file).isDirectory() || !file.endsWith('.md')) broken.push(`${where} (an anchor into a file that is not markdown)`);
      else if (!anchors(readFileSync(file, 'utf8')).has(anchor)) broken.push(`${where} (no heading "#${anchor}" in ${relative(ROOT, file)})`);
    }
    expect(broken).toEqual([]);
  });

  it('every page of docs/ is reachable from the README, directly or through another page', () => {
    const reached = new Set<string>(['README.md']);
    const queue = ['README.md'];
    while (queue.length) {
      const page = queue.shift()!;
      for (const { target } of links(readFileSync(join(ROOT, page), 'utf8'))) {
        const path = target.split('#')[0]!;
        if (!path.endsWith('.md')) continue;
        const next = relative(ROOT, join(ROOT, dirname(page), decodeURIComponent(path)));
        if (PAGES.includes(next) && !reached.has(next)) {
          reached.add(next);
          queue.push(next);
        }
      }
    }
    expect(PAGES.filter((page) => !reached.has(page))).toEqual([]);
  });
});
