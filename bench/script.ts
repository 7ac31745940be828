/**
 * The alternative a user writes by hand: curl each list, pull the ids out with jq, fetch the
 * singles with `xargs -P` curl. It fetches no filtered views, validates nothing, writes in
 * place (a reader can see half a tree) and retries nothing; the bench says so next to its time.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { RESOURCE_NAMES } from '../src/spec/resources.js';

/** What the hand-written script leaves out, printed beside its time. */
export const SCRIPT_CAVEATS = 'no filtered views, no validation, no atomic publish, no retries';

/** The bash script, reading URL, OUT, C and INVENTORY_API_TOKEN from the environment. Pure. */
export function handScript(): string {
  return [
    '#!/usr/bin/env bash',
    'set -euo pipefail',
    `for r in ${RESOURCE_NAMES.join(' ')}; do`,
    '  mkdir -p "$OUT/$r"',
    '  curl -sf -H "X-Api-Token: $INVENTORY_API_TOKEN" -o "$OUT/$r.json" "$URL/$r.json"',
    '  jq -r ".$r[].id" "$OUT/$r.json" | xargs -P "$C" -I{} curl -s -H "X-Api-Token: $INVENTORY_API_TOKEN" -o "$OUT/$r/{}.json" "$URL/$r/{}.json"',
    'done',
    '',
  ].join('\n');
}

/** Whether an executable named `name` is on PATH. */
export function onPath(name: string, path = process.env.PATH ?? ''): boolean {
  return path.split(delimiter).some((dir) => {
    if (!dir) return false;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
