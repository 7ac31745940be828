/**
 * The first step of a pull: the five lists. Each body is streamed as it arrives, item by item,
 * into its staged file in the published form (redacted, re-encoded), never held whole: what the
 * later steps need is kept per record (its id, and the few fields the views and the cross-checks
 * use). A list the service answers 304 for is read the same way from the published file.
 */
import { HttpStatusError, ValidationError } from '../errors.js';
import type { Client } from '../fetch/client.js';
import { ScanError, type ScannedElement } from '../json/scan.js';
import { listFile } from '../publish/paths.js';
import { DamagedFileError, type SnapshotWriter, type StagedStream } from '../publish/writer.js';
import { forEachItem, stageEnvelope } from './envelope.js';
import { planList } from './plan.js';
import type { RedactPolicy } from '../redact/policy.js';
import { redactRecord } from '../redact/redact.js';
import { listPath, type ResourceName } from '../spec/resources.js';
import type { RawRecord } from '../spec/schemas.js';
import { decodingFindings } from '../validate/decode.js';
import type { Finding } from '../validate/findings.js';
import { checkRecord } from '../validate/structure.js';

/** What the later steps know of a list: its ids and the fields the views and cross-checks use. */
export interface ListSummary {
  resource: ResourceName;
  /** Ids in list order. */
  ids: string[];
  /** Id → position in the list. */
  index: Map<string, number>;
  /** Whether the published list changes (so checks against it must be made again). */
  changed: boolean;
  /** Server names (servers), for database server_names. */
  names: Set<string>;
  /** Distinct values of `type` (databases), for the by_type views. */
  types: Set<string>;
  /** Record id → the value its cross-check looks at (appservers: server_id; databases: server_names). */
  refs: Map<string, unknown>;
  /** Findings about the list's items as sent (decoding), when the body was fetched. */
  findings: Finding[];
}

export interface ListContext {
  client: Client;
  writer: SnapshotWriter;
  redact: RedactPolicy | undefined;
  maxRecords: number;
}

function emptySummary(resource: ResourceName): ListSummary {
  return { resource, ids: [], index: new Map(), changed: true, names: new Set(), types: new Set(), refs: new Map(), findings: [] };
}

/** Reads one item into the summary; returns it (checked: an object with a unique, usable id). `where` names the list. */
function takeItem(summary: ListSummary, element: ScannedElement, where: string, maxRecords: number): RawRecord {
  const item: unknown = JSON.parse(element.bytes.toString('utf8'));
  const n = summary.ids.length;
  const key = summary.resource;
  checkRecord(item, `${where}: ${key}[${n}]`);
  const first = summary.index.get(item.id);
  if (first !== undefined) throw new ValidationError(`${where}: duplicate id ${JSON.stringify(item.id)} at ${key}[${first}] and ${key}[${n}]`);
  if (n >= maxRecords) throw new ValidationError(`${where} lists more than ${maxRecords} records (sync.maxRecords); raise it if the inventory really is that large`);
  summary.ids.push(item.id);
  summary.index.set(item.id, n);
  if (summary.resource === 'servers' && typeof item.name === 'string') summary.names.add(item.name);
  if (summary.resource === 'databases') {
    if (typeof item.type === 'string' && item.type.length > 0) summary.types.add(item.type);
    summary.refs.set(item.id, item.server_names);
  }
  if (summary.resource === 'appservers') summary.refs.set(item.id, item.server_id);
  return item;
}

/** Streams a list body into its staged file; one call per attempt (a retry starts afresh). */
async function stageList(resource: ResourceName, body: AsyncIterable<Buffer>, ctx: ListContext): Promise<{ summary: ListSummary; staged: StagedStream }> {
  const where = `GET ${listPath(resource)}`;
  const summary = emptySummary(resource);
  const staged = await stageEnvelope({
    writer: ctx.writer,
    file: listFile(resource),
    key: resource,
    where,
    body,
    onItem: (element) => {
      const item = takeItem(summary, element, where, ctx.maxRecords);
      summary.findings.push(...decodingFindings(resource, item.id, element.bytes, item, element.keys));
      return { value: redactRecord(resource, item, ctx.redact) };
    },
  });
  return { summary, staged };
}

/** Reads a published list file (kept on a 304) into a summary. */
export async function summarizeFile(resource: ResourceName, chunks: AsyncIterable<Buffer>, maxRecords: number): Promise<ListSummary> {
  const where = `the published ${listFile(resource)}`;
  const summary = emptySummary(resource);
  await forEachItem(chunks, resource, (element) => takeItem(summary, element, where, maxRecords));
  return summary;
}

/**
 * Pulls one list: conditionally when the published one has validators (a 304 keeps it unread by
 * the service and read here from disk), else streamed into staging.
 */
export async function pullList(resource: ResourceName, ctx: ListContext): Promise<ListSummary> {
  const file = listFile(resource);
  const previous = ctx.writer.previous;
  const i = previous?.indexOf(file);
  const validators = i === undefined ? undefined : previous!.validators(i);
  let staged: StagedStream | undefined;
  const read = async (body: AsyncIterable<Buffer>): Promise<ListSummary> => {
    const result = await stageList(resource, body, ctx);
    staged = result.staged;
    return result.summary;
  };
  let result = await ctx.client.get(listPath(resource), read, planList(validators));
  if (result.status === 304) {
    if (ctx.writer.keep(file, validators)) {
      try {
        return { ...(await summarizeFile(resource, ctx.writer.readPublished(file), ctx.maxRecords)), changed: false };
      } catch (error) {
        // A published list altered on disk: fetch it whole.
        if (!(error instanceof DamagedFileError) && !(error instanceof ValidationError) && !(error instanceof SyntaxError) && !(error instanceof ScanError)) throw error;
      }
    }
    result = await ctx.client.get(listPath(resource), read);
  }
  if (result.status !== 200) {
    const status = result.status === 404 ? 404 : 304;
    throw new HttpStatusError(listPath(resource), status, `GET ${ctx.client.displayUrl}${listPath(resource)} answered ${status}${status === 404 ? ': is the base URL right? It must be the API root, where /servers.json is the server list' : ' to a request that was not conditional'}`);
  }
  await staged!.finish({ etag: result.validators.etag, lastModified: result.validators.lastModified });
  const j = ctx.writer.entries.indexOf(file)!;
  const same = i !== undefined && ctx.writer.entries.sameBytes(j, previous!, i);
  return { ...result.value, changed: !same };
}
