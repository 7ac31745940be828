/**
 * The second step of a pull: every filtered view, then every single record, each fetched as the
 * plan says and checked as it arrives; what each came to (kept, staged, gone, and its findings) is
 * recorded in the new snapshot. Records are read from the list files one at a time, through a few
 * workers, so only the records in flight are in memory, whatever the size of the inventory.
 */
import { HttpStatusError } from '../errors.js';
import type { Client } from '../fetch/client.js';
import { viewLabel } from '../index/views.js';
import { Reindenter } from '../json/reindent.js';
import { EnvelopeScanner, forEachItem, type ScannedElement } from '../json/scan.js';
import type { NextSnapshot } from '../publish/next.js';
import { filterFile, listFile, recordFile } from '../snapshot/paths.js';
import { DamagedFileError, type PublishedSnapshot } from '../snapshot/published.js';
import type { Validators } from '../snapshot/table.js';
import type { RedactPolicy } from '../redact/policy.js';
import { redactRecord, redacts } from '../redact/redact.js';
import { filterPath, RESOURCE_NAMES, singlePath, type ResourceName } from '../spec/resources.js';
import type { RawRecord } from '../spec/schemas.js';
import { forEachConcurrent, roundRobin } from '../util/concurrent.js';
import { notInListFinding } from '../validate/crosscheck.js';
import type { Finding } from '../validate/findings.js';
import type { Shape } from '../validate/record.js';
import { checkRecord } from '../validate/structure.js';
import { fetchConditional } from './conditional.js';
import { dropItems, stageEnvelope } from './envelope.js';
import { itemDigest, type ListSummary } from './lists.js';
import { recordValidators, type Plan, type ViewPlan } from './plan.js';
import type { CheckedRecord } from './record.js';
import type { RecordChecker } from './record-checker.js';

interface PullContext {
  client: Client;
  previous: PublishedSnapshot | undefined;
  next: NextSnapshot;
  /** Checks single records on their thread; the caller closes it. */
  records: RecordChecker;
  redact: RedactPolicy | undefined;
  lists: Record<ResourceName, ListSummary>;
  /** Requests (jobs) started ahead of the client's cap, so file writes overlap the wait for the service. */
  width: number;
  /** Takes each finding as it is made. */
  report(finding: Finding): void;
}

/** What the pull found beyond the files it recorded. */
export interface Pulled {
  /** Records this run read and checked (their earlier findings are not carried over). */
  reread: Record<ResourceName, Set<string>>;
  /** Views kept unread (their earlier findings are carried over), as `resource\0label`. */
  keptViews: Set<string>;
  /** Records listed but answering 404 as single records: left out of the snapshot. */
  gone: Record<ResourceName, string[]>;
  /** Fields only one rendering carries, from the records read. */
  shapes: Map<ResourceName, Shape>;
}

/** What one record came to. */
type RecordOutcome = { kind: 'kept' /* in the new snapshot already */ } | { kind: 'gone' } | { kind: 'checked'; checked: CheckedRecord; validators: Validators };

const perResource = <T>(make: () => T): Record<ResourceName, T> => Object.fromEntries(RESOURCE_NAMES.map((r) => [r, make()])) as Record<ResourceName, T>;

/** A record's list item as published: its bytes are read only when the record is. */
type ItemBytes = () => Buffer | Promise<Buffer>;

/** Fetches every view, then every record, as `plan` says; records that answered 404 leave the lists and views. */
export async function pullRecords(plan: Plan, ctx: PullContext): Promise<Pulled> {
  const pulled: Pulled = { reread: perResource(() => new Set()), keptViews: new Set(), gone: perResource(() => []), shapes: new Map() };
  // Views first (fewer, larger), then every record in list order, the five lists in turn: the
  // record thread's code then meets every resource's record shape from the start. One list after
  // another made V8 optimize it again as each new shape arrived (see docs/benchmark.md).
  async function* recordJobs(resource: ResourceName): AsyncGenerator<() => Promise<void>> {
    const list = ctx.lists[resource];
    const job = (n: number, item: ItemBytes) => async () => applyRecord(resource, n, await pullRecord(resource, n, item, plan, ctx), item, plan.carry, ctx, pulled);
    if (list.places) {
      // A list kept as it was: its items are read only for the records that are read.
      const places = list.places;
      const file = listFile(resource);
      for (let n = 0; n < list.ids.length; n++) {
        const { at, length } = places.at(n);
        let bytes: Promise<Buffer> | undefined;
        yield job(n, () => (bytes ??= ctx.previous!.readRange(file, at, length)));
      }
      return;
    }
    const scanner = new EnvelopeScanner(resource);
    let n = 0;
    for await (const chunk of ctx.next.readStream(listFile(resource))!) {
      for (const element of scanner.push(chunk)) yield job(n++, () => element.bytes);
    }
    scanner.end();
  }
  async function* jobs(): AsyncGenerator<() => Promise<void>> {
    for (const view of plan.views) yield () => pullView(view, ctx, pulled);
    yield* roundRobin(RESOURCE_NAMES.map(recordJobs));
  }
  await forEachConcurrent(jobs(), ctx.width, (job) => job());
  for (const resource of RESOURCE_NAMES) {
    const gone = pulled.gone[resource];
    if (gone.length === 0) continue;
    for (const id of gone) ctx.report({ resource, id, field: '', code: 'gone' });
    // The published list and views lack these records, so they are not the service's bodies.
    const drop = new Set(gone);
    await dropItems(ctx.next, listFile(resource), resource, drop);
    for (const { view } of plan.views) if (view.resource === resource) await dropItems(ctx.next, filterFile(resource, view.param, view.value), resource, drop);
  }
  return pulled;
}

/** One record, fetched as the plan says and checked against its list item (on the record thread). */
async function pullRecord(resource: ResourceName, n: number, item: ItemBytes, plan: Plan, ctx: PullContext): Promise<RecordOutcome> {
  const id = ctx.lists[resource].ids.at(n);
  const path = singlePath(resource, id);
  const file = recordFile(resource, id);
  const check = async (body: Buffer) => ctx.records.check({ resource, id, path, body, item: await item() });
  const records = plan.records[resource];
  // A 304 is asked for only with the item the record was checked against: every finding of it still holds.
  const result = await fetchConditional((asked) => ctx.client.getWhole(path, check, asked), recordValidators(records, n, ctx.previous?.table), () => ctx.next.keep(file) || undefined);
  if (result.status === 304) return { kind: 'kept' };
  if (result.status === 404) return { kind: 'gone' };
  const { etag, lastModified } = result.validators;
  return { kind: 'checked', checked: result.value, validators: { etag, lastModified } };
}

/** Records what a record came to in the new snapshot and the pull's findings. */
async function applyRecord(resource: ResourceName, n: number, outcome: RecordOutcome, item: ItemBytes, carry: boolean, ctx: PullContext, pulled: Pulled): Promise<void> {
  const list = ctx.lists[resource];
  const id = list.ids.at(n);
  // Kept with the validators it had: it was asked for only with the item it was checked against.
  if (outcome.kind === 'kept') return;
  if (outcome.kind === 'gone') {
    pulled.gone[resource].push(id);
    return;
  }
  const { checked } = outcome;
  // Only what a later step carries findings over for needs remembering.
  if (carry) pulled.reread[resource].add(id);
  for (const finding of checked.findings) ctx.report(finding);
  mergeShape(pulled.shapes, resource, checked);
  const digest = list.digests ? list.digests.text(n) : itemDigest(await item());
  await ctx.next.put(recordFile(resource, id), checked.bytes, { validators: { ...outcome.validators, item: digest }, sha256: checked.sha256 });
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
async function pullView({ view, validators, recheck }: ViewPlan, ctx: PullContext, pulled: Pulled): Promise<void> {
  const { client, next } = ctx;
  const { resource } = view;
  const path = filterPath(resource, view.param, view.value);
  const file = filterFile(resource, view.param, view.value);
  const label = viewLabel(view);
  const list = ctx.lists[resource];
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
      next,
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
  const kept = async (): Promise<true | undefined> => {
    if (!next.keep(file, ctx.previous!.validators(file))) return undefined;
    if (!recheck) {
      pulled.keptViews.add(`${resource}\u0000${label}`);
      return true;
    }
    try {
      await forEachItem(ctx.previous!.readChecked(file), resource, (element) => member(element, `${file}: ${resource}[]`));
      return true;
    } catch (error) {
      // A published view altered on disk: fetch it whole.
      if (error instanceof DamagedFileError) return undefined;
      throw error;
    }
  };
  const result = await fetchConditional((asked) => client.get(path, read, asked), validators, kept);
  if (result.status === 304) return;
  if (result.status === 404) throw new HttpStatusError(path, 404, `GET ${path} answered 404 for a filtered view the mirror expects to exist`);
  await result.value.finish({ etag: result.validators.etag, lastModified: result.validators.lastModified });
}
