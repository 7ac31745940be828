/**
 * axe-core (the accessibility engine behind most audit tools) on the offline page in Chromium:
 * no violation on the home page, a table, a record page and the changes page, in light and dark.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chromiumForTest, hasChromium, pageWithErrors } from '../helpers/chromium.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { useUpstream } from '../helpers/upstream.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  help: string;
  nodes: { target: string[] }[];
}

describe.skipIf(!hasChromium)('accessibility', () => {
  it('axe-core finds no violation on home, a table, a record and the changes page, light and dark', async () => {
    const upstream = await useUpstream({ profile: 'realistic', scale: 40, seed: 6 });
    const out = tempDir();
    await syncInto(upstream, out, { browser: true });
    upstream.mutate({ seed: 3, share: 0.3 });
    await syncInto(upstream, out, { browser: true });
    const index = pathToFileURL(join(out, 'index.html')).href;
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      const browser = await chromiumForTest({ viewport: { width: 1280, height: 900 }, colorScheme });
      const { page, errors } = await pageWithErrors(browser);
      // Every view in light; in dark, the two with the most kinds of element.
      const views = [['#/', 'home'], ['#/servers?f.virtual=true', 'servers'], ['#/servers/1000', 'record'], ['#/_changes', 'changes'], ['#/_charts', 'charts']] as const;
      for (const [hash, ready] of colorScheme === 'light' ? views : views.slice(0, 2)) {
        await page.goto(`${index}${hash}`);
        await page.locator(`#view[data-ready=${ready}]`).waitFor();
        // The facets are counted just after the rows: wait for them too.
        if (ready === 'servers') await page.locator('.facet').first().waitFor();
        await page.addScriptTag({ content: AXE });
        const violations = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)')) as Violation[];
        for (const v of violations) found.push(`${colorScheme} ${hash}: ${v.id} (${v.help}) at ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
      }
      expect(errors).toEqual([]);
    }
    expect(found).toEqual([]);
  }, 90_000);
});
