/** The offline page (`sync --browser`) written into the new snapshot beside its data. */
import { browserFiles } from '../browser/index.js';
import type { ChangeSet } from '../diff/engine.js';
import type { NextSnapshot } from '../publish/next.js';
import type { ResourceName } from '../spec/resources.js';
import type { Quality } from '../validate/quality.js';

interface PageInput {
  /** The resources mirrored: the page shows only them. */
  resources: readonly ResourceName[];
  quality: Quality;
  changes: ChangeSet;
  records: Partial<Record<ResourceName, number>>;
  initial: boolean;
  at: Date;
}

/** Builds the page's files from the new snapshot and adds them to it. */
export async function writePage(next: NextSnapshot, input: PageInput): Promise<void> {
  await browserFiles({ writer: next, ...input });
}
