/** `sync --report FILE`: the run's full JSON diff, written atomically (temp file, then rename). */
import { dirname } from 'node:path';
import fs from 'fs-extra';
import { DiskError, describeFsError } from '../errors.js';
import { encodeJson } from '../json/encode.js';
import { replaceFile } from '../util/atomic-write.js';
import type { ChangeSet } from './engine.js';
import { changeSetJson } from './format.js';

/** Writes the change set to `file` (absolute); a reader never sees half a report. */
export async function writeReport(file: string, changes: ChangeSet): Promise<void> {
  try {
    await fs.mkdir(dirname(file), { recursive: true });
    await replaceFile(file, encodeJson(changeSetJson(changes)));
  } catch (error) {
    throw new DiskError(`--report: cannot write it: ${describeFsError(error) ?? String(error)} (the snapshot itself was published)`, { cause: error });
  }
}
