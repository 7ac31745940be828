/**
 * Lays the pulled inventory out as the contract's file tree: path → bytes. Pure.
 */
import { OutputError } from '../errors.js';
import { encodeJson } from '../publish/json.js';
import { FILTER_INDEX_FILE, GITIGNORE_FILE, HTTP_CACHE_FILE, LAST_SYNC_FILE, REDACTION_FILE, WORK_DIR, filterFile, listFile, recordFile } from '../publish/paths.js';
import { filterPath, RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import type { Pulled } from '../sync/pull.js';
import { encodeRedaction, isRedacting, type RedactPolicy } from '../redact/policy.js';

/** The tree's own .gitignore: run metadata and work files stay out of git. */
const GITIGNORE = `# Written by inventory-mirror: run metadata, caches and work files, not part of the snapshot.\n/${LAST_SYNC_FILE}\n/${HTTP_CACHE_FILE}\n/${WORK_DIR}/\n`;

/** Adds a file, refusing two different records (or views) landing on one name. */
function put(files: Map<string, Buffer>, owners: Map<string, string>, path: string, owner: string, bytes: Buffer): void {
  const other = owners.get(path);
  if (other !== undefined) throw new OutputError('E_NAME_COLLISION', `${owner} and ${other} would both be written to ${path}; the service sent ids that cannot be told apart as file names`);
  owners.set(path, owner);
  files.set(path, bytes);
}

/** The whole snapshot as files; `redact` only adds the policy's record (bodies come redacted). */
export function buildTree(pulled: Pulled, redact?: RedactPolicy): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const owners = new Map<string, string>();
  for (const resource of RESOURCE_NAMES) {
    put(files, owners, listFile(resource), `the ${resource} list`, pulled.lists[resource]);
    for (const [id, bytes] of pulled.singles[resource]) put(files, owners, recordFile(resource, id), `${resource} id ${JSON.stringify(id)}`, bytes);
  }
  const index = pulled.views.map((view) => {
    const file = filterFile(view.resource, view.param, view.value);
    put(files, owners, file, `the view ${view.resource}?${view.param}=${JSON.stringify(view.value)}`, view.bytes);
    return { resource: view.resource, param: view.param, value: view.value, path: filterPath(view.resource, view.param, view.value), file };
  });
  files.set(FILTER_INDEX_FILE, encodeJson({ filters: index }));
  files.set(GITIGNORE_FILE, Buffer.from(GITIGNORE));
  if (isRedacting(redact)) files.set(REDACTION_FILE, encodeRedaction(redact));
  return files;
}

/** Record counts per resource in a snapshot's manifest (its single-record files). */
export function countRecords(paths: Iterable<string>): Record<ResourceName, number> {
  const counts = Object.fromEntries(RESOURCE_NAMES.map((r) => [r, 0])) as Record<ResourceName, number>;
  for (const path of paths) {
    const match = /^([a-z_]+)\/[^/]+\.json$/.exec(path);
    if (match && match[1]! in counts) counts[match[1] as ResourceName]++;
  }
  return counts;
}
