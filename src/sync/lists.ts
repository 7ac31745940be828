/**
 * The first step of a pull: the five lists. Each body is streamed as it arrives, item by item,
 * into its staged file in the published form (redacted, re-encoded), never held whole: what the
 * later steps need is kept per record (its id, and the few fields the views and the cross-checks
 * use). A list the service answers 304 for is taken from the summary the previous run kept of it
 * (list-cache.ts), else read the same way from the published file.
 */
import { HttpStatusError, ValidationError } from '../errors.js';
import type { Client } from '../fetch/client.js';
import { Reindenter } from '../json/reindent.js';
import { forEachItem, ScanError } from '../json/scan.js';
import type { NextSnapshot, NextStream } from '../publish/next.js';
import type { CachedList } from '../snapshot/http-cache.js';
import { listFile } from '../snapshot/paths.js';
import { DamagedFileError, type PublishedSnapshot } from '../snapshot/published.js';
import { fetchConditional, sendable } from './conditional.js';
import { stageEnvelope } from './envelope.js';
import { decodeListCache } from './list-cache.js';
import { ItemDigests, ItemPlaces, KEPT, Summarizer, type ListSummary } from './list-summary.js';
import type { RedactPolicy } from '../redact/policy.js';
import { redactRecord, redacts } from '../redact/redact.js';
import { leakedPaths, type RedactionLeaks } from '../redact/leaks.js';
import { listPath, type ResourceName } from '../spec/resources.js';
import { decodingFindings } from '../validate/decode.js';

export type { ListSummary } from './list-summary.js';

interface ListContext {
  client: Client;
  /** The snapshot being replaced, only read. */
  previous: PublishedSnapshot | undefined;
  next: NextSnapshot;
  redact: RedactPolicy | undefined;
  /** Counts the records whose redacted value still appears elsewhere in them. */
  leaks?: RedactionLeaks;
  maxRecords: number;
  /** The list summaries the previous run kept in its run metadata, by resource (list-cache.ts); each is taken out as its list is pulled, so its bytes are not held after. */
  cached?: Map<string, CachedList> | undefined;
}

/** Streams a list body into its staged file; one call per attempt (a retry starts afresh). */
async function stageList(resource: ResourceName, body: AsyncIterable<Buffer>, ctx: ListContext): Promise<{ summary: Summarizer; staged: NextStream }> {
  const where = `GET ${listPath(resource)}`;
  const summary = new Summarizer(resource, where, ctx.maxRecords, undefined, new ItemDigests());
  const sent = redacts(resource, ctx.redact) ? undefined : new Reindenter(['id', ...KEPT[resource]]);
  const staged = await stageEnvelope({
    next: ctx.next,
    file: listFile(resource),
    key: resource,
    where,
    body,
    onItem: (element) => {
      // With nothing to redact, an item is published re-encoded from its bytes: nothing it holds
      // needs decoding, so it raises no decoding finding either (json/reindent.ts declines those).
      const text = sent?.run(element.bytes, 2);
      if (text && summary.takeSent(element, sent!)) return text;
      const item = summary.take(element);
      summary.findings.push(...decodingFindings(resource, item.id, element.bytes, item, element.keys));
      const value = redactRecord(resource, item, ctx.redact);
      ctx.leaks?.add(resource, leakedPaths(resource, item, value, ctx.redact), item.id);
      return { value };
    },
    onPublished: (bytes, at, length) => summary.published(bytes, at, length),
  });
  return { summary, staged };
}

/**
 * A resource not mirrored (config `resources`): no records, as if its list were empty and kept as
 * it was, so nothing is planned, fetched or checked against it, and its files leave the snapshot.
 */
export function unchosenList(resource: ResourceName): ListSummary {
  return new Summarizer(resource, listPath(resource), 0, new ItemPlaces()).finish(false);
}

/** Reads a published list file (kept on a 304) into a summary. */
async function summarizeFile(resource: ResourceName, chunks: AsyncIterable<Buffer>, maxRecords: number): Promise<ListSummary> {
  const summary = new Summarizer(resource, `the published ${listFile(resource)}`, maxRecords, new ItemPlaces());
  await forEachItem(chunks, resource, (element) => summary.take(element));
  return summary.finish(false);
}

/**
 * Pulls one list: conditionally when the published one has validators (a 304 keeps it unread by
 * the service and read here from disk), else streamed into staging.
 */
export async function pullList(resource: ResourceName, ctx: ListContext): Promise<ListSummary> {
  const file = listFile(resource);
  const path = listPath(resource);
  const { previous, next } = ctx;
  const validators = previous?.validators(file);
  let staged: NextStream | undefined;
  const read = async (body: AsyncIterable<Buffer>): Promise<Summarizer> => {
    const result = await stageList(resource, body, ctx);
    staged = result.staged;
    return result.summary;
  };
  const result = await fetchConditional((asked) => ctx.client.get(path, read, asked), sendable(validators), async () => {
    if (!next.keep(file)) return undefined;
    const cached = ctx.cached?.get(resource);
    ctx.cached?.delete(resource);
    const kept = cached === undefined ? undefined : decodeListCache(resource, cached, { where: `the published ${file}`, maxRecords: ctx.maxRecords, fileSize: previous!.table.fileSize(previous!.table.indexOf(file)!) });
    // Its bytes are still checked: a list altered on disk is fetched whole, not kept.
    if (kept) return (await previous!.check(file)) ? kept : undefined;
    try {
      return await summarizeFile(resource, previous!.readChecked(file), ctx.maxRecords);
    } catch (error) {
      // A published list altered on disk: fetch it whole.
      if (error instanceof DamagedFileError || error instanceof ValidationError || error instanceof SyntaxError || error instanceof ScanError) return undefined;
      throw error;
    }
  });
  if (result.status === 304) return result.kept;
  if (result.status === 404) throw new HttpStatusError(path, 404, `GET ${ctx.client.displayUrl}${path} answered 404: is the base URL right? It must be the API root, where /servers.json is the server list`);
  await staged!.finish({ etag: result.validators.etag, lastModified: result.validators.lastModified });
  const j = next.entries.indexOf(file)!;
  const i = previous?.table.indexOf(file);
  const same = i !== undefined && next.entries.sameBytes(j, previous!.table, i);
  return result.value.finish(!same);
}
