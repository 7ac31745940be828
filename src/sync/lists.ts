/**
 * The first step of a pull: the five lists. Each body is streamed as it arrives, item by item,
 * into its staged file in the published form (redacted, re-encoded), never held whole: what the
 * later steps need is kept per record (its id, and the few fields the views and the cross-checks
 * use). A list the service answers 304 for is read the same way from the published file.
 */
import { hash } from 'node:crypto';
import { HttpStatusError, ValidationError } from '../errors.js';
import type { Client } from '../fetch/client.js';
import { Reindenter } from '../json/reindent.js';
import { forEachItem, ScanError, type ScannedElement } from '../json/scan.js';
import type { NextSnapshot, NextStream } from '../publish/next.js';
import { listFile } from '../snapshot/paths.js';
import { DamagedFileError, type PublishedSnapshot } from '../snapshot/published.js';
import { fetchConditional, sendable } from './conditional.js';
import { stageEnvelope } from './envelope.js';
import type { RedactPolicy } from '../redact/policy.js';
import { redactRecord, redacts } from '../redact/redact.js';
import { leakedPaths, type RedactionLeaks } from '../redact/leaks.js';
import { listPath, type ResourceName } from '../spec/resources.js';
import type { RawRecord } from '../spec/schemas.js';
import { decodingFindings } from '../validate/decode.js';
import type { Finding } from '../validate/findings.js';
import { checkRecord } from '../validate/structure.js';
import { HashSet, StringList } from '../util/string-set.js';

/**
 * What the later steps know of a list: its ids and the fields the views and cross-checks use,
 * held compactly (a list of 200 000 servers as strings and maps cost ~60 MB; this a few).
 */
export interface ListSummary {
  resource: ResourceName;
  /** Ids in list order. */
  ids: StringList;
  /** Which ids the list holds. */
  members: HashSet;
  /** Whether the published list changes (so checks against it must be made again). */
  changed: boolean;
  /** Server names (servers), for database server_names. */
  names: HashSet;
  /** Per position, the item's name ('' when it has none), for references by name. */
  nameAt: StringList;
  /** Whether every item carries an `updated_at` string: only then does a list item show its record's changes (see plan.ts). */
  stamped: boolean;
  /** Distinct values of `type` (databases), for the by_type views. */
  types: Set<string>;
  /** Per position, JSON of the value its cross-check looks at (appservers: server_id; databases: server_names). */
  refs: StringList;
  /** Findings about the list's items as sent (decoding), when the body was fetched. */
  findings: Finding[];
  /**
   * Per position, the digest of the item as published (ITEM_DIGEST_BYTES each), when the list was
   * read from the service's body; undefined for a list kept as it was, whose items are the ones
   * the previous snapshot's records were checked against.
   */
  digests: ItemDigests | undefined;
  /**
   * Where each item sits in the published file, when the list is the previous snapshot's, kept
   * as it was (a 304): each record was last checked against that very item, so the records pass
   * reads an item only for a record it must check again.
   */
  places: ItemPlaces | undefined;
}

/** The bytes of a list item's digest: the first 12 of its sha256 (16 base64url characters in the ETag cache). */
export const ITEM_DIGEST_BYTES = 12;

/** The digest of a list item as published, kept with its record's validators (base64url). */
export function itemDigest(bytes: Buffer): string {
  return hash('sha256', bytes, 'base64url').slice(0, 16);
}

/** Digests of a list's items, by position, end to end in one growing buffer. */
export class ItemDigests {
  #bytes = Buffer.alloc(ITEM_DIGEST_BYTES * 1024);
  #count = 0;

  push(item: string | Buffer): void {
    if ((this.#count + 1) * ITEM_DIGEST_BYTES > this.#bytes.length) {
      const grown = Buffer.alloc(this.#bytes.length * 2);
      this.#bytes.copy(grown);
      this.#bytes = grown;
    }
    hash('sha256', item, 'buffer').copy(this.#bytes, this.#count++ * ITEM_DIGEST_BYTES, 0, ITEM_DIGEST_BYTES);
  }

  /** The digest of item `n` (a view into the buffer). */
  at(n: number): Buffer {
    return this.#bytes.subarray(n * ITEM_DIGEST_BYTES, (n + 1) * ITEM_DIGEST_BYTES);
  }

  /** The digest of item `n` as the ETag cache keeps it. */
  text(n: number): string {
    return this.at(n).toString('base64url');
  }
}

/** Byte ranges of a list's items, by position. */
class ItemPlaces {
  /** Each item's start and length, in turn. */
  #pairs: Float64Array = new Float64Array(2048);
  #count = 0;

  push(at: number, length: number): void {
    if (2 * this.#count === this.#pairs.length) {
      const grown = new Float64Array(this.#pairs.length * 2);
      grown.set(this.#pairs);
      this.#pairs = grown;
    }
    this.#pairs[2 * this.#count] = at;
    this.#pairs[2 * this.#count++ + 1] = length;
  }

  at(n: number): { at: number; length: number } {
    return { at: this.#pairs[2 * n]!, length: this.#pairs[2 * n + 1]! };
  }
}

/** The fields of an item the summary keeps besides its id: server names, database types and the references the cross-checks follow; last, whether it has `updated_at`. */
const KEPT: Record<ResourceName, readonly string[]> = {
  applications: ['name', 'updated_at'],
  databases: ['type', 'server_names', 'name', 'updated_at'],
  operating_systems: ['name', 'updated_at'],
  servers: ['name', 'updated_at'],
  appservers: ['server_id', 'name', 'updated_at'],
};

interface ListContext {
  client: Client;
  /** The snapshot being replaced, only read. */
  previous: PublishedSnapshot | undefined;
  next: NextSnapshot;
  redact: RedactPolicy | undefined;
  /** Counts the records whose redacted value still appears elsewhere in them. */
  leaks?: RedactionLeaks;
  maxRecords: number;
}

/** Builds a ListSummary item by item. */
class Summarizer {
  readonly ids = new StringList();
  readonly #members = HashSet.builder();
  readonly #names = HashSet.builder();
  readonly types = new Set<string>();
  readonly refs = new StringList();
  readonly nameAt = new StringList();
  #stamped = true;
  readonly findings: Finding[] = [];

  constructor(
    readonly resource: ResourceName,
    /** Names the list in messages (`GET /servers.json`). */
    readonly where: string,
    readonly maxRecords: number,
    /** Set for a published list kept as it was: where its items sit. */
    readonly places?: ItemPlaces,
    /** Set for a list read from the service's body: its items' digests. */
    readonly digests?: ItemDigests,
  ) {}

  /** Reads one item; returns it (checked: an object with a usable id). */
  take(element: ScannedElement): RawRecord {
    const item: unknown = JSON.parse(element.bytes.toString('utf8'));
    checkRecord(item, `${this.where}: ${this.resource}[${this.ids.length}]`);
    const fields = KEPT[this.resource];
    this.#note(item.id, (k) => item[fields[k]!], element);
    return item;
  }

  /**
   * Takes an item from what re-encoding it found (`sent` finds the id and KEPT's fields, and has
   * just run on it), without parsing it; false when its id is not a plain string, and it must be.
   */
  takeSent(element: ScannedElement, sent: Reindenter): boolean {
    const id = sent.text(element.bytes, 0);
    if (!id) return false;
    this.#note(
      id,
      (k) => {
        const text = sent.field(element.bytes, k + 1);
        return text && (sent.text(element.bytes, k + 1) ?? (JSON.parse(text.toString('utf8')) as unknown));
      },
      element,
    );
    return true;
  }

  /** Keeps what the later steps need of an item: its id, and field `k` of KEPT[resource] as `field(k)` gives it. */
  #note(id: string, field: (k: number) => unknown, element: ScannedElement): void {
    if (this.ids.length >= this.maxRecords) throw new ValidationError(`${this.where} lists more than ${this.maxRecords} records (sync.maxRecords); raise it if the inventory really is that large`);
    this.ids.push(id);
    this.#members.add(id);
    const kept = KEPT[this.resource];
    const name = field(kept.length - 2);
    this.nameAt.push(typeof name === 'string' ? name : '');
    if (this.resource === 'servers' && typeof name === 'string') this.#names.add(name);
    if (typeof field(kept.length - 1) !== 'string') this.#stamped = false;
    if (this.resource === 'databases') {
      const type = field(0);
      if (typeof type === 'string' && type.length > 0) this.types.add(type);
      this.refs.push(JSON.stringify(field(1) ?? null));
    }
    if (this.resource === 'appservers') this.refs.push(JSON.stringify(field(0) ?? null));
    this.places?.push(element.at, element.bytes.length);
  }

  /** Notes the digest of the item as it is published (its bytes in the staged list). */
  published(bytes: string | Buffer): void {
    this.digests?.push(bytes);
  }

  /** The summary; a ValidationError naming both places when an id is listed twice. */
  finish(changed: boolean): ListSummary {
    const members = this.#members.build();
    if (members.hasRepeats()) {
      // Equal hashes: a repeated id, or (rarely) two ids that hash alike. Only the first fails.
      const first = new Map<string, number>();
      for (let n = 0; n < this.ids.length; n++) {
        const id = this.ids.at(n);
        const earlier = first.get(id);
        if (earlier !== undefined) throw new ValidationError(`${this.where}: duplicate id ${JSON.stringify(id)} at ${this.resource}[${earlier}] and ${this.resource}[${n}]`);
        first.set(id, n);
      }
    }
    return { resource: this.resource, ids: this.ids, members, changed, names: this.#names.build(), nameAt: this.nameAt, stamped: this.#stamped, types: this.types, refs: this.refs, findings: this.findings, places: this.places, digests: this.digests };
  }
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
    onPublished: (bytes) => summary.published(bytes),
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
