/**
 * What the later steps of a sync know of a list: its ids and the fields the views, cross-checks
 * and references use, held compactly, and where its items sit in the published file; built item
 * by item from a body, a published file or the run metadata (list-cache.ts).
 */
import { hash } from 'node:crypto';
import { ValidationError } from '../errors.js';
import type { ScannedElement } from '../json/scan.js';
import type { Reindenter } from '../json/reindent.js';
import type { ResourceName } from '../spec/resources.js';
import type { RawRecord } from '../spec/schemas.js';
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
  /**
   * Where each item sits in the list file this run publishes (the kept one's places, or the staged
   * copy's), for the run metadata: the next run's 304 then need not read the list (list-cache.ts).
   */
  layout: ItemPlaces | undefined;
  /** The run metadata's text of this summary, when it was read from there: the next run metadata takes it as it is. */
  cachedText?: Iterable<Buffer> | undefined;
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
export class ItemPlaces {
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

  get length(): number {
    return this.#count;
  }
}

/** The fields of an item the summary keeps besides its id: server names, database types and the references the cross-checks follow; last, whether it has `updated_at`. */
export const KEPT: Record<ResourceName, readonly string[]> = {
  applications: ['name', 'updated_at'],
  databases: ['type', 'server_names', 'name', 'updated_at'],
  operating_systems: ['name', 'updated_at'],
  servers: ['name', 'updated_at'],
  appservers: ['server_id', 'name', 'updated_at'],
};

/** What the summary keeps of one item besides its id (KEPT's fields by what they are for). */
export interface KeptFields {
  name: unknown;
  updatedAt: unknown;
  /** databases: `type`. */
  type?: unknown;
  /** What its cross-check looks at: databases' `server_names`, appservers' `server_id`. */
  ref?: unknown;
}

/** KEPT's fields of an item of `resource`, field `k` of KEPT[resource] as `field(k)` gives it. */
function keptFields(resource: ResourceName, field: (k: number) => unknown): KeptFields {
  const count = KEPT[resource].length;
  const kept: KeptFields = { name: field(count - 2), updatedAt: field(count - 1) };
  if (resource === 'databases') return { ...kept, type: field(0), ref: field(1) };
  if (resource === 'appservers') return { ...kept, ref: field(0) };
  return kept;
}

/** A chunk of items as a list cache holds them (see Summarizer.takeCachedChunk), checked by its reader. */
export interface CachedItems {
  /** The ids joined, each `idLengths[k]` characters. */
  ids: string;
  idLengths: readonly number[];
  /** The names joined, each `nameLengths[k]` characters; -1: the item has no name (none, or not a string). */
  names: string;
  nameLengths: readonly number[];
  /** References (databases, appservers): the value each item's cross-check looks at. */
  refs: readonly unknown[];
  /** Where each item sits in the published file: the bytes since the previous item's end (since `from` for the first), and its length. */
  gaps: readonly number[];
  lengths: readonly number[];
  /** Where the previous chunk's last item ends. */
  from: number;
  /** Whether every item carries `updated_at`. */
  stamped: boolean;
}

/** Builds a ListSummary item by item. */
export class Summarizer {
  readonly ids = new StringList();
  readonly #members = HashSet.builder();
  readonly #names = HashSet.builder();
  readonly types = new Set<string>();
  readonly refs = new StringList();
  readonly nameAt = new StringList();
  #stamped = true;
  readonly findings: Finding[] = [];
  /** Set for a list staged in this run: where its items sit in the staged file. */
  readonly #layout: ItemPlaces | undefined;

  constructor(
    readonly resource: ResourceName,
    /** Names the list in messages (`GET /servers.json`). */
    readonly where: string,
    readonly maxRecords: number,
    /** Set for a published list kept as it was: where its items sit. */
    readonly places?: ItemPlaces,
    /** Set for a list read from the service's body: its items' digests. */
    readonly digests?: ItemDigests,
  ) {
    this.#layout = digests ? new ItemPlaces() : undefined;
  }

  /** Reads one item; returns it (checked: an object with a usable id). */
  take(element: ScannedElement): RawRecord {
    const item: unknown = JSON.parse(element.bytes.toString('utf8'));
    checkRecord(item, `${this.where}: ${this.resource}[${this.ids.length}]`);
    const fields = KEPT[this.resource];
    this.#note(item.id, keptFields(this.resource, (k) => item[fields[k]!]), element.at, element.bytes.length);
    return item;
  }

  /**
   * Takes an item from what re-encoding it found (`sent` finds the id and KEPT's fields, and has
   * just run on it), without parsing it; false when its id is not a plain string, and it must be.
   */
  takeSent(element: ScannedElement, sent: Reindenter): boolean {
    const id = sent.text(element.bytes, 0);
    if (!id) return false;
    const fields = keptFields(this.resource, (k) => {
      const text = sent.field(element.bytes, k + 1);
      return text && (sent.text(element.bytes, k + 1) ?? (JSON.parse(text.toString('utf8')) as unknown));
    });
    this.#note(id, fields, element.at, element.bytes.length);
    return true;
  }

  /**
   * Takes items as a list cache holds them (list-cache.ts), a chunk at a time: ids and names
   * joined, kept as the strings they are (see StringList.pushJoined).
   */
  takeCachedChunk(items: CachedItems): void {
    const count = items.idLengths.length;
    this.#room(count);
    if (!items.stamped) this.#stamped = false;
    this.ids.pushJoined(items.ids, items.idLengths);
    this.nameAt.pushJoined(items.names, items.nameLengths.map((length) => Math.max(0, length)));
    const referring = this.resource === 'databases' || this.resource === 'appservers';
    let idAt = 0;
    let nameAt = 0;
    let end = items.from;
    for (let k = 0; k < count; k++) {
      this.#members.addSlice(items.ids, idAt, (idAt += items.idLengths[k]!));
      const nameLength = items.nameLengths[k]!;
      if (nameLength >= 0 && this.resource === 'servers') this.#names.addSlice(items.names, nameAt, nameAt + nameLength);
      nameAt += Math.max(0, nameLength);
      if (referring) this.refs.push(JSON.stringify(items.refs[k] ?? null));
      const at = end + items.gaps[k]!;
      end = at + items.lengths[k]!;
      this.places?.push(at, items.lengths[k]!);
    }
  }

  /** Throws when `count` more items would be more than sync.maxRecords. */
  #room(count: number): void {
    if (this.ids.length + count > this.maxRecords) throw new ValidationError(`${this.where} lists more than ${this.maxRecords} records (sync.maxRecords); raise it if the inventory really is that large`);
  }

  /** Keeps what the later steps need of an item: its id and its KEPT fields; `at`, `length`: where it sits in the file read. */
  #note(id: string, fields: KeptFields, at: number, length: number): void {
    this.#room(1);
    this.ids.push(id);
    this.#members.add(id);
    const { name, type } = fields;
    this.nameAt.push(typeof name === 'string' ? name : '');
    if (this.resource === 'servers' && typeof name === 'string') this.#names.add(name);
    if (typeof fields.updatedAt !== 'string') this.#stamped = false;
    if (typeof type === 'string' && type.length > 0) this.types.add(type);
    if (this.resource === 'databases' || this.resource === 'appservers') this.refs.push(JSON.stringify(fields.ref ?? null));
    this.places?.push(at, length);
  }

  /** Notes the item as it is published: its digest, and where its bytes sit in the staged list. */
  published(bytes: string | Buffer, at: number, length: number): void {
    this.digests?.push(bytes);
    this.#layout?.push(at, length);
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
    const layout = this.#layout ?? this.places;
    return { resource: this.resource, ids: this.ids, members, changed, names: this.#names.build(), nameAt: this.nameAt, stamped: this.#stamped, types: this.types, refs: this.refs, findings: this.findings, places: this.places, digests: this.digests, layout };
  }
}

