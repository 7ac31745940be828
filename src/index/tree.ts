/** What the snapshot holds besides the service's bodies, and what its files count. Pure. */
import { encodeJson } from '../json/encode.js';
import { CHANGES_FILE, FILTER_INDEX_FILE, GITATTRIBUTES_FILE, GITIGNORE_FILE, HTTP_CACHE_FILE, LAST_SYNC_FILE, MANIFEST_FILE, REDACTION_FILE, WORK_DIR, filterFile, recordResourceIn } from '../snapshot/paths.js';
import type { Spans } from '../util/string-set.js';
import { filterPath, RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import type { ViewKey } from './views.js';
import { encodeRedaction, isRedacting, type RedactPolicy } from '../redact/policy.js';

/** The tree's own .gitignore: run metadata and work files stay out of git. */
const GITIGNORE = `# Written by inventory-mirror: run metadata, caches and work files, not part of the snapshot.\n/${LAST_SYNC_FILE}\n/${HTTP_CACHE_FILE}\n/${WORK_DIR}/\n`;

/**
 * The tree's .gitattributes: files that are ours rather than the service's, and that churn with
 * every change, are marked generated (collapsed in review tools) and, where a line diff says
 * nothing a person reads (the manifest's hashes, the page's data scripts), shown without a diff.
 */
const GITATTRIBUTES = `# Written by inventory-mirror: generated files, folded away in diffs and reviews.\n/${MANIFEST_FILE} -diff linguist-generated\n/${FILTER_INDEX_FILE} linguist-generated\n/${CHANGES_FILE} -diff linguist-generated\n/_browser/** -diff linguist-generated\n/index.html linguist-generated\n`;

/**
 * The files that index the snapshot rather than mirror the service: `_meta/filters.json` (the
 * views it holds), the tree's `.gitignore`, and `_meta/redaction.json` when a policy applies.
 */
export function indexFiles(views: readonly ViewKey[], redact?: RedactPolicy): Map<string, Buffer> {
  const filters = views.map((view) => ({ resource: view.resource, param: view.param, value: view.value, path: filterPath(view.resource, view.param, view.value), file: filterFile(view.resource, view.param, view.value) }));
  const files = new Map<string, Buffer>([
    [FILTER_INDEX_FILE, encodeJson({ filters })],
    [GITIGNORE_FILE, Buffer.from(GITIGNORE)],
    [GITATTRIBUTES_FILE, Buffer.from(GITATTRIBUTES)],
  ]);
  if (isRedacting(redact)) files.set(REDACTION_FILE, encodeRedaction(redact));
  return files;
}

/** Record counts per resource in a snapshot's manifest (its single-record files). */
export function countRecords(paths: Spans): Record<ResourceName, number> {
  const counts = Object.fromEntries(RESOURCE_NAMES.map((r) => [r, 0])) as Record<ResourceName, number>;
  paths((text, start, end) => {
    const resource = recordResourceIn(text, start, end);
    if (resource) counts[resource]++;
  });
  return counts;
}
