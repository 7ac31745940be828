/**
 * The second step of a pull: every filtered view, then every single record, each fetched as the
 * plan says, checked as it arrives and handed to the snapshot writer, which stages it at once.
 * Records are read from the list files one at a time, through a few workers, so only the records
 * in flight are in memory, whatever the size of the inventory.
 */
import { HttpStatusError } from '../errors.js';
import type { Client, Fetched } from '../fetch/client.js';
import { viewLabel, type ViewKey } from '../index/views.js';
import { Reindenter } from '../json/reindent.js';
import { EnvelopeScanner, forEachItem, type ScannedElement } from '../json/scan.js';
import { filterFile, listFile, recordFile } from '../snapshot/paths.js';
import { DamagedFileError, type SnapshotWriter } from '../publish/writer.js';
import type { RedactPolicy } from '../redact/policy.js';
import { redactRecord, redacts } from '../redact/redact.js';
import { filterPath, RESOURCE_NAMES, singlePath, type ResourceName } from '../spec/resources.js';
import type { RawRecord } from '../spec/schemas.js';
import { forEachConcurrent, roundRobin } from '../util/concurrent.js';
import { notInListFinding } from '../validate/crosscheck.js';
import type { Finding } from '../validate/findings.js';
import type { Shape } from '../validate/record.js';
import { checkRecord } from '../validate/structure.js';
import { dropItems, stageEnvelope } from './envelope.js';
import type { ListSummary } from './lists.js';
import type { RecordChecker } from './record-checker.js';
import { itemDigest, planRecord, planView } from './plan.js';

interface PullContext {
  client: Client;
  writer: SnapshotWriter;
  /** Checks single records on their thread; the caller closes it. */
  records: RecordChecker;
  redact: RedactPolicy | undefined;
  lists: Record<ResourceName, ListSummary>;
  /** Whether the previous snapshot's findings can be carried over for what is kept unread. */
  carry: boolean;
  /** Requests (jobs) started ahead of the client's cap, so file writes overlap the wait for the service. */
  width: number;
  /** Takes each finding as it is made. */
  report(finding: Finding): void;
}

/** What the pull found beyond the files it staged. */
interface Pulled {
  /** Records this run read and checked (their earlier findings are not carried over). */
  reread: Record<ResourceName, Set<string>>;
  /** Views kept unread (their earlier findings are carried over). */
  keptViews: Set<string>;
  /** Records listed but answering 404 as single records: left out of the snapshot. */
  gone: Record<ResourceName, string[]>;
  /** Fields only one rendering carries, from the records read. */
  shapes: Map<ResourceName, Shape>;
}

const perResource = <T>(make: () => T): Record<ResourceName, T> => Object.fromEntries(RESOURCE_NAMES.map((r) => [r, make()])) as Record<ResourceName, T>;

/**
 * A record's list item, which the record's single view is checked against: its digest when known
 * without reading it, and its bytes (needed only when the record is read).
 */
interface ListItem {
  digest: string | undefined;
  bytes(): Buffer | Promise<Buffer>;
}

/** Fetches every view, then every record, and leaves records that answered 404 out of lists and views. */
export async function pullRecords(views: readonly ViewKey[], ctx: PullContext): Promise<Pulled> {
  const { records } = ctx;
  const pulled: Pulled = { reread: perResource(() => new Set()), keptViews: new Set(), gone: perResource(() => []), shapes: new Map() };
  // Views first (fewer, larger), then every record in list order, the five lists in turn: the
  // record thread's code then meets every resource's record shape from the start. One list after
  // another made V8 optimize it again as each new shape arrived (see README, How the sync got there).
  async function* recordJobs(resource: ResourceName): AsyncGenerator<() => Promise<void>> {
    const list = ctx.lists[resource];
    const file = listFile(resource);
    if (list.places && ctx.carry) {
      // A list kept as it was: each record was last checked against its item there, whose digest
      // the previous snapshot holds, so the list is not read a second time.
      const places = list.places;
      for (let n = 0; n < list.ids.length; n++) {
        const { at, length } = places.at(n);
        let bytes: Promise<Buffer> | undefined;
        const item: ListItem = { digest: undefined, bytes: () => (bytes ??= ctx.writer.readRange(file, at, length)) };
        yield () => pullRecord(resource, list.ids.at(n), item, ctx, records, pulled);
      }
      return;
    }
    const scanner = new EnvelopeScanner(resource);
    let n = 0;
    for await (const chunk of ctx.writer.readStream(file)!) {
      for (const element of scanner.push(chunk)) {
        const item: ListItem = { digest: itemDigest(element.bytes), bytes: () => element.bytes };
        yield () => pullRecord(resource, list.ids.at(n++), item, ctx, records, pulled);
      }
    }
    scanner.end();
  }
  async function* jobs(): AsyncGenerator<() => Promise<void>> {
    for (const view of views) yield () => pullView(view, ctx, pulled);
    yield* roundRobin(RESOURCE_NAMES.map(recordJobs));
  }
  await forEachConcurrent(jobs(), ctx.width, (job) => job());
  for (const resource of RESOURCE_NAMES) {
    const gone = pulled.gone[resource];
    if (gone.length === 0) continue;
    for (const id of gone) ctx.report({ resource, id, field: '', code: 'gone' });
    // The published list and views lack these records, so they are not the service's bodies.
    const drop = new Set(gone);
    await dropItems(ctx.writer, listFile(resource), resource, drop);
    for (const view of views) if (view.resource === resource) await dropItems(ctx.writer, filterFile(resource, view.param, view.value), resource, drop);
  }
  return pulled;
}

/** One record: kept unread on a 304 the plan allows, else fetched, checked against its list item (on the record thread) and staged. */
async function pullRecord(resource: ResourceName, id: string, item: ListItem, ctx: PullContext, records: RecordChecker, pulled: Pulled): Promise<void> {
  const { client, writer } = ctx;
  const path = singlePath(resource, id);
  const file = recordFile(resource, id);
  const previous = writer.previous;
  const i = previous?.indexOf(file);
  const validators = i === undefined ? undefined : previous!.validators(i);
  // An item not read here is the one the record was last checked against (see ListSummary.places).
  const known = item.digest ?? validators?.item;
  let checkedItem: Buffer | undefined;
  const check = async (body: Buffer) => records.check({ resource, id, path, body, item: (checkedItem = await item.bytes()) });
  let result = await client.getWhole(path, check, known === undefined ? undefined : planRecord(validators, known, ctx.carry));
  if (result.status === 304) {
    // Unchanged record, unchanged list item: every finding of it still holds, no need to read it.
    // Its validators stay as they are: it was asked for only with the item it was checked against.
    if (writer.keep(file)) return;
    result = await client.getWhole(path, check);
  }
  if (result.status === 404) {
    pulled.gone[resource].push(id);
    return;
  }
  if (result.status !== 200) throw new HttpStatusError(path, 304, `GET ${path} answered 304 to a request that was not conditional`);
  const checked = result.value;
  // Only what a later step carries findings over for needs remembering.
  if (ctx.carry) pulled.reread[resource].add(id);
  for (const finding of checked.findings) ctx.report(finding);
  mergeShape(pulled.shapes, resource, checked);
  await writer.put(file, checked.bytes, { validators: { ...result.validators, item: item.digest ?? itemDigest(checkedItem!) }, sha256: checked.sha256 });
}

function mergeShape(shapes: Map<ResourceName, Shape>, resource: ResourceName, shape: { listOnly: Iterable<string>; singleOnly: Iterable<string> }): void {
  let into = shapes.get(resource);
  if (!into) {
    into = { listOnly: new Set(), singleOnly: new Set() };
    shapes.set(resource, into);
  }
  for (const field of shape.listOnly) into.listOnly.add(field);
  for (const field of shape.singleOnly) into.singleOnly.add(field);
}

/**
 * One filtered view: its records are records of the list, judged there; only membership is new.
 * Kept unread on a 304 while its list is unchanged; read from disk to check membership when the
 * list changed; else streamed into staging, redacted like the list.
 */
async function pullView(view: ViewKey, ctx: PullContext, pulled: Pulled): Promise<void> {
  const { client, writer } = ctx;
  const { resource } = view;
  const path = filterPath(resource, view.param, view.value);
  const file = filterFile(resource, view.param, view.value);
  const label = viewLabel(view);
  const list = ctx.lists[resource];
  const previous = writer.previous;
  const i = previous?.indexOf(file);
  const validators = i === undefined ? undefined : previous!.validators(i);
  const plan = planView(validators, list.changed, ctx.carry);
  const member = (element: ScannedElement, where: string): RawRecord => {
    const record: unknown = JSON.parse(element.bytes.toString('utf8'));
    checkRecord(record, where);
    if (!list.members.has(record.id)) ctx.report(notInListFinding(resource, record.id, label));
    return record;
  };
  const read = (body: AsyncIterable<Buffer>) => {
    // An item with nothing to redact is published as sent, re-encoded from its bytes: only its id
    // is needed here, and parsing it all for that was most of the work on a view.
    const reindenter = redacts(resource, ctx.redact) ? undefined : new Reindenter(['id']);
    return stageEnvelope({
      writer,
      file,
      key: resource,
      where: `GET ${path}`,
      body,
      onItem: (element) => {
        const text = reindenter?.run(element.bytes, 2);
        const id = text && reindenter!.text(element.bytes, 0);
        if (!id) return { value: redactRecord(resource, member(element, `GET ${path}: ${resource}[]`), ctx.redact) };
        if (!list.members.has(id)) ctx.report(notInListFinding(resource, id, label));
        return text;
      },
    });
  };
  let result: Fetched<Awaited<ReturnType<typeof read>>> = await client.get(path, read, plan.validators);
  if (result.status === 304) {
    if (writer.keep(file, validators)) {
      if (!plan.recheck) {
        pulled.keptViews.add(`${resource}\u0000${label}`);
        return;
      }
      try {
        await forEachItem(writer.readPublished(file), resource, (element) => member(element, `${file}: ${resource}[]`));
        return;
      } catch (error) {
        // A published view altered on disk: fetch it whole.
        if (!(error instanceof DamagedFileError)) throw error;
      }
    }
    result = await client.get(path, read);
  }
  if (result.status !== 200) {
    throw new HttpStatusError(path, result.status === 404 ? 404 : 304, `GET ${path} answered ${result.status === 404 ? '404 for a filtered view the mirror expects to exist' : '304 to a request that was not conditional'}`);
  }
  await result.value.finish({ etag: result.validators.etag, lastModified: result.validators.lastModified });
}

