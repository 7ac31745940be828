/** Fresh temporary folders for a test, removed afterwards. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atTeardown } from './teardown.js';

/** A new empty folder, removed after the current test, or after the file's tests when asked for at its top level. */
export function tempDir(prefix = 'im-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  atTeardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
