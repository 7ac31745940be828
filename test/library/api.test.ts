/**
 * The library's public surface: its option and config types equal what the schemas accept and
 * produce (checked by the type checker, which runs before any test), and the package's
 * declarations carry no schema library's types.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { MassRemovalError, sync } from '../../src/index.js';
import { tempDir } from '../helpers/tmp.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';
import type { z } from 'zod';
import type { FilterValuesInput, MirrorConfig, RedactionInput, SyncSettings, SyncSettingsInput } from '../../src/config/public.js';
import type { configSchema, filtersSchema, syncSchema } from '../../src/config/schema.js';
import type { redactSchema } from '../../src/redact/policy.js';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

describe('the public types', () => {
  it('are what the schemas accept and produce', () => {
    // Each a subtype of the other: equal up to how optional members are spelled.
    expectTypeOf<SyncSettingsInput>().toEqualTypeOf<z.input<typeof syncSchema>>();
    expectTypeOf<SyncSettings>().toExtend<z.output<typeof syncSchema>>();
    expectTypeOf<z.output<typeof syncSchema>>().toExtend<SyncSettings>();
    expectTypeOf<FilterValuesInput>().toEqualTypeOf<z.input<typeof filtersSchema>>();
    expectTypeOf<RedactionInput>().toExtend<z.input<typeof redactSchema>>();
    expectTypeOf<z.input<typeof redactSchema>>().toExtend<RedactionInput>();
    expectTypeOf<MirrorConfig>().toExtend<z.output<typeof configSchema>>();
    expectTypeOf<z.output<typeof configSchema>>().toExtend<MirrorConfig>();
  });

  it('reach no declaration that imports zod', () => {
    const seen = new Set<string>();
    const offenders: string[] = [];
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      if (/from ['"]zod['"]|import\(['"]zod['"]\)/.test(text)) offenders.push(file.slice(DIST.length));
      for (const match of text.matchAll(/from ['"](\.{1,2}\/[^'"]+)\.js['"]/g)) visit(join(dirname(file), `${match[1]}.d.ts`));
    };
    visit(join(DIST, 'index.d.ts'));
    expect(seen.size).toBeGreaterThan(1);
    expect(offenders).toEqual([]);
  });
});

describe('the errors', () => {
  it('carry a stable code and their facts as fields, in words a library caller can act on (no command-line flags)', async () => {
    const upstream = await useUpstream({ scale: 40 });
    const out = tempDir();
    await sync({ baseUrl: upstream.url, token: TOKEN, out });
    const list = await (await fetch(`${upstream.url}/appservers.json`, { headers: { 'x-api-token': TOKEN } })).json() as { appservers: { id: string }[] };
    for (const { id } of list.appservers.slice(0, 12)) upstream.removeRecord('appservers', id);
    const error = await sync({ baseUrl: upstream.url, token: TOKEN, out }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MassRemovalError);
    expect(error).toMatchObject({ code: 'E_MASS_REMOVAL', resource: 'appservers', lost: 12, before: 20, maxShare: 0.5 });
    expect((error as Error).message).not.toMatch(/--/);
    await expect(sync({ baseUrl: upstream.url, token: TOKEN, out, allowMassRemoval: true })).resolves.toMatchObject({ status: 'published', files: { removed: 12 } });
  });
});
