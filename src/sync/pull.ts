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
import { leakedPaths, type RedactionLeaks } from '../redact/leaks.js';
import { filterPath, RESOURCE_NAMES, singlePath, type ResourceName } from '../spec/resources.js';
import type { RawRecord } from '../spec/schemas.js';
import { forEachInBatches, inTurns } from '../util/concurrent.js';
import { notInListFinding } from '../validate/crosscheck.js';
import type { Finding } from '../validate/findings.js';
import type { Shape } from '../validate/record.js';
import { checkRecord } from '../validate/structure.js';
import { fetchConditional } from './conditional.js';
import { stageEnvelope } from './envelope.js';
import { itemDigest, type ListSummary } from './list-summary.js';
import { resolveReferences } from '../index/references.js';
import { markCascades, Reason, recordValidators, type Plan, type Position, type ViewPlan } from './plan.js';
import type { CheckedRecord } from './record.js';
import type { RecordChecker } from './record-checker.js';

interface PullContext {
  client: Client;
  previous: PublishedSnapshot | undefined;
  next: NextSnapshot;
  /** Checks single records on their thread; the caller closes it. */
  records: RecordChecker;
  redact: RedactPolicy | undefined;
  /** Counts the records whose redacted value still appears elsewhere in them. */
  leaks?: RedactionLeaks;
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
  /** Records listed but answering 404 as single records: left out of the snapshot, and of its lists and views (assemble.ts finalLists). */
  gone: Record<ResourceName, string[]>;
  /** Fields only one rendering carries, from the records read. */
  shapes: Map<ResourceName, Shape>;
  /** Record files fetched again whose bodies changed while their list items did not (an incremental sync's cascades follow them). */
  changedUnlisted: Set<string>;
}

/** What one record came to. */
type RecordOutcome = { kind: 'kept' /* in the new snapshot already */ } | { kind: 'gone' } | { kind: 'checked'; checked: CheckedRecord; validators: Validators };

const perResource = <T>(make: () => T): Record<ResourceName, T> => Object.fromEntries(RESOURCE_NAMES.map((r) => [r, make()])) as Record<ResourceName, T>;

/** A record's list item as published: its bytes are read only when the record is. */
type ItemBytes = () => Buffer | Promise<Buffer>;

/** One view or record to pull. */
type Job = () => Promise<void>;

/** Positions of a list kept as it was handed to the workers at a time. */
const JOB_BATCH = 64;

/** Fetches every view, then every record, as `plan` says; records that answered 404 are returned as `gone`, the files staged as they came. */
export async function pullRecords(plan: Plan, ctx: PullContext): Promise<Pulled> {
  const pulled: Pulled = { reread: perResource(() => new Set()), keptViews: new Set(), gone: perResource(() => []), shapes: new Map(), changedUnlisted: new Set() };
  const names = recordNames(ctx.lists);
  // Views first (fewer, larger), then every record in list order, the five lists in turn: the
  // record thread's code then meets every resource's record shape from the start. One list after
  // another made V8 optimize it again as each new shape arrived (see docs/benchmark.md).
  // `only`: the positions of a later round (records fetched again), else every record. The jobs
  // come in batches (a chunk of the list file, or JOB_BATCH positions), not one generator step each.
  async function* recordJobs(resource: ResourceName, only?: ReadonlySet<number>): AsyncGenerator<Job[]> {
    const list = ctx.lists[resource];
    const { reasons, previous: entries } = plan.records[resource];
    // Nothing shows it changed: kept unread, here rather than in a job of its own, unless the
    // published copy is not whole (its job then fetches it).
    const kept = (n: number): boolean => reasons[n] === Reason.Keep && ctx.next.keepEntry(entries[n]!);
    const round: Round = { plan, ctx, pulled, idOfName: names, again: only !== undefined };
    const job = (n: number, item: ItemBytes): Job => async () => applyRecord(resource, n, await pullRecord(resource, n, item, plan, ctx), item, round);
    if (list.places) {
      // A list kept as it was: its items are read only for the records that are read.
      const places = list.places;
      const file = listFile(resource);
      let batch: Job[] = [];
      for (let n = 0; n < list.ids.length; n++) {
        if ((only && !only.has(n)) || kept(n)) continue;
        const { at, length } = places.at(n);
        let bytes: Promise<Buffer> | undefined;
        batch.push(job(n, () => (bytes ??= ctx.previous!.readRange(file, at, length))));
        if (batch.length === JOB_BATCH) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
      return;
    }
    const scanner = new EnvelopeScanner(resource);
    let n = 0;
    for await (const chunk of ctx.next.readStream(listFile(resource))!) {
      const batch: Job[] = [];
      for (const element of scanner.push(chunk)) {
        if ((!only || only.has(n)) && !kept(n)) batch.push(job(n, () => element.bytes));
        n++;
      }
      if (batch.length > 0) yield batch;
    }
    scanner.end();
  }
  async function* jobs(): AsyncGenerator<Job[]> {
    yield plan.views.map((view) => () => pullView(view, ctx, pulled));
    yield* inTurns(RESOURCE_NAMES.map((resource) => recordJobs(resource)));
  }
  await forEachInBatches(jobs(), ctx.width, (job) => job());
  // A body that changed while its list item did not changes what refers to it: fetch those too,
  // until nothing more changes (each round only fetches records kept so far, so it ends).
  while (plan.incremental && pulled.changedUnlisted.size > 0) {
    const touched = { files: pulled.changedUnlisted, names: new Set<string>() };
    pulled.changedUnlisted = new Set();
    const marked = markCascades(plan, ctx.lists, ctx.previous!.table, touched, false);
    if (marked.length === 0) break;
    const positions = byResource(marked);
    await forEachInBatches(inTurns(RESOURCE_NAMES.map((resource) => recordJobs(resource, positions[resource]))), ctx.width, (job) => job());
  }
  // What the lists and views become without them is the assembly's to decide (finalLists).
  for (const resource of RESOURCE_NAMES) for (const id of pulled.gone[resource]) ctx.report({ resource, id, field: '', code: 'gone' });
  return pulled;
}

/** The positions of records, by resource. */
function byResource(positions: readonly Position[]): Record<ResourceName, Set<number>> {
  const out = perResource(() => new Set<number>());
  for (const { resource, n } of positions) out[resource].add(n);
  return out;
}

/** Names to ids (the first record of a name), per resource, for references by name; each built on first use. */
function recordNames(lists: Record<ResourceName, ListSummary>): (resource: ResourceName, name: string) => string | undefined {
  const maps = new Map<ResourceName, Map<string, string>>();
  return (resource, name) => {
    let map = maps.get(resource);
    if (!map) {
      const list = lists[resource];
      map = new Map();
      for (let n = 0; n < list.ids.length; n++) {
        const at = list.nameAt.at(n);
        if (at && !map.has(at)) map.set(at, list.ids.at(n));
      }
      maps.set(resource, map);
    }
    return map.get(name);
  };
}

/** One record, fetched as the plan says and checked against its list item (on the record thread). */
async function pullRecord(resource: ResourceName, n: number, item: ItemBytes, plan: Plan, ctx: PullContext): Promise<RecordOutcome> {
  const id = ctx.lists[resource].ids.at(n);
  const path = singlePath(resource, id);
  const check = async (body: Buffer) => ctx.records.check({ resource, id, path, body, item: await item() });
  const records = plan.records[resource];
  const reason = records.reasons[n]!;
  // A 304 is asked for only with the item the record was checked against: every finding of it
  // still holds. One asked for by an incremental sync is confirmed in this run (its refresh clock restarts).
  const confirm = reason === Reason.Cascade || reason === Reason.Refresh;
  // Validators are sent only for a record in the previous snapshot: a 304 keeps that entry.
  const keep = (): true | undefined => ctx.next.keepEntry(records.previous[n]!, confirm ? plan.run : undefined) || undefined;
  const asked = reason === Reason.Keep ? undefined : recordValidators(records, n, ctx.previous?.table);
  const result = await fetchConditional((validators) => ctx.client.getWhole(path, check, validators), asked, keep);
  if (result.status === 304) return { kind: 'kept' };
  if (result.status === 404) return { kind: 'gone' };
  const { etag, lastModified } = result.validators;
  return { kind: 'checked', checked: result.value, validators: { etag, lastModified } };
}

/** What applying a record's outcome needs of its round. */
interface Round {
  plan: Plan;
  ctx: PullContext;
  pulled: Pulled;
  idOfName: (resource: ResourceName, name: string) => string | undefined;
  /** A round after the first, over copies the first kept. */
  again: boolean;
}

/** Records what a record came to in the new snapshot and the pull's findings. */
async function applyRecord(resource: ResourceName, n: number, outcome: RecordOutcome, item: ItemBytes, round: Round): Promise<void> {
  const { plan, ctx, pulled } = round;
  // Kept with the validators it had: it was asked for only with the item it was checked against.
  if (outcome.kind === 'kept') return;
  const list = ctx.lists[resource];
  const id = list.ids.at(n);
  if (outcome.kind === 'gone') {
    // A later round's 404 (gone between two requests of one run) leaves the copy the first round
    // kept: the next run's list tells whether the record is really gone.
    if (!round.again) pulled.gone[resource].push(id);
    return;
  }
  const { checked } = outcome;
  // Only what a later step carries findings over for needs remembering.
  if (plan.carry) pulled.reread[resource].add(id);
  for (const finding of checked.findings) ctx.report(finding);
  ctx.leaks?.add(resource, checked.leaks, id);
  mergeShape(pulled.shapes, resource, checked);
  const digest = list.digests ? list.digests.text(n) : itemDigest(await item());
  const file = recordFile(resource, id);
  const reason = plan.records[resource].reasons[n];
  if (plan.incremental && reason !== Reason.New && reason !== Reason.Changed && !ctx.previous!.table.matches(file, checked.sha256, checked.bytes.length)) pulled.changedUnlisted.add(file);
  const refs = resolveReferences(checked.refs, round.idOfName);
  // A later round replaces the copy the first one kept.
  await ctx.next.put(file, checked.bytes, { validators: { etag: outcome.validators.etag, lastModified: outcome.validators.lastModified, item: digest, seen: plan.run, refs }, sha256: checked.sha256, replace: round.again });
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
        if (!id) {
          const record = member(element, `GET ${path}: ${resource}[]`);
          const value = redactRecord(resource, record, ctx.redact);
          ctx.leaks?.add(resource, leakedPaths(resource, record, value, ctx.redact), record.id);
          return { value };
        }
        if (!list.members.has(id)) ctx.report(notInListFinding(resource, id, label));
        return text;
      },
    });
  };
  const kept = async (): Promise<true | undefined> => {
    if (!next.keep(file)) return undefined;
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
