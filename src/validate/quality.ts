/**
 * `_meta/quality.json`, the inventory's data quality as part of the snapshot: per resource, field
 * and code, the count, the share of the resource's records, the sorted ids concerned and (for the
 * codes that carry one) each id's value; and the fields only one rendering carries. Deterministic
 * and rewritten only when it changes, so git shows data quality moving over time. Pure.
 */
import { z } from 'zod';
import { decodeJsonAs, encodeJsonPieces } from '../json/encode.js';
import { EnvelopeScanner, ScanError } from '../json/scan.js';
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import { compareCodeUnits } from '../util/order.js';
import { FINDING_CODES, type FindingGroup, type ShapeFacts } from './findings.js';
import type { Shape } from './record.js';

/**
 * An array of strings, checked in one loop and taken as it is: z.array(z.string()) checks each
 * element through the schema machinery and copies the array, and a report of 200 000 servers
 * holds 400 000 ids and names (a fifth of a second of every sync's reading).
 */
const strings = z.custom<string[]>((value) => Array.isArray(value) && value.every((item) => typeof item === 'string'), 'expected an array of strings');

const groupSchema = z.strictObject({
  resource: z.enum(RESOURCE_NAMES),
  field: z.string(),
  code: z.enum(FINDING_CODES),
  count: z.int().min(1),
  share: z.number(),
  ids: strings,
  /** Beside `ids`, each record's name ('' for one without); absent when none has one. */
  names: strings.optional(),
  values: z.record(z.string(), z.unknown()).optional(),
});

const shapeSchema = z.strictObject({ listOnly: z.array(z.string()), singleOnly: z.array(z.string()) });

const qualitySchema = z.strictObject({
  format: z.literal(1),
  records: z.record(z.string(), z.int()),
  shape: z.record(z.string(), shapeSchema),
  findings: z.array(groupSchema),
});

export type Quality = z.infer<typeof qualitySchema>;

/** The file's members other than its findings. */
const headSchema = qualitySchema.omit({ findings: true });

/** Codes whose findings are not part of the snapshot's data (a record that is not in it). */
const RUN_ONLY = new Set(['gone']);

/** The share of `count` in `total`, to four places. */
export function shareOf(count: number, total: number): number {
  return total > 0 ? Math.round((count / total) * 10_000) / 10_000 : 0;
}

/** The shape facts in a stable form: resources that have any, paths sorted. */
export function shapeFacts(shapes: ReadonlyMap<ResourceName, Shape>): ShapeFacts {
  const out: ShapeFacts = {};
  for (const resource of RESOURCE_NAMES) {
    const shape = shapes.get(resource);
    if (!shape || shape.listOnly.size + shape.singleOnly.size === 0) continue;
    out[resource] = { listOnly: [...shape.listOnly].sort(compareCodeUnits), singleOnly: [...shape.singleOnly].sort(compareCodeUnits) };
  }
  return out;
}

/** The file's content for these findings. */
export function qualityReport(groups: readonly FindingGroup[], records: Partial<Record<ResourceName, number>>, shape: ShapeFacts): Quality {
  return {
    format: 1,
    records: { ...records },
    shape,
    findings: groups
      .filter((g) => !RUN_ONLY.has(g.code))
      .map((g) => {
        const values = g.ids.filter((id) => g.values.get(id) !== undefined);
        const names = g.ids.map((id) => g.names?.get(id) ?? '');
        return {
          resource: g.resource,
          field: g.field,
          code: g.code,
          count: g.ids.length,
          share: shareOf(g.ids.length, records[g.resource] ?? 0),
          ids: g.ids,
          ...(names.some((name) => name !== '') ? { names } : {}),
          ...(values.length ? { values: Object.fromEntries(values.map((id) => [id, g.values.get(id)])) } : {}),
        };
      }),
  };
}

/** The file's bytes, in pieces made as they are iterated (a report of megabytes is never joined, nor held whole). */
export function encodeQuality(quality: Quality): Iterable<Buffer> {
  return encodeJsonPieces(quality, 'findings');
}

/** Parses the file's bytes or text; undefined when absent or not ours. */
export function parseQuality(bytes: Buffer | string | undefined): Quality | undefined {
  return bytes === undefined ? undefined : decodeJsonAs(bytes, qualitySchema);
}

/**
 * Reads the file from its pieces a finding group at a time, each without its records' names
 * unless `names`: parsed whole, the report of a 200 000-server snapshot was a 17 MB string and a
 * quarter of a million names at once, on top of the tables a sync has just read. Undefined when
 * it is not ours; every piece is read all the same (the caller may be checking them as they pass).
 */
export async function readQuality(pieces: AsyncIterable<Buffer>, options: { names: boolean }): Promise<Quality | undefined> {
  const scanner = new EnvelopeScanner('findings');
  const findings: Quality['findings'] = [];
  let ours = true;
  /** Runs `step`; false when it found the bytes not to be a report of ours. */
  const attempt = (step: () => boolean | void): boolean => {
    try {
      return step() !== false;
    } catch (error) {
      if (error instanceof ScanError || error instanceof SyntaxError) return false;
      throw error;
    }
  };
  const take = (piece: Buffer): boolean => {
    for (const { bytes } of scanner.push(piece)) {
      const group = groupSchema.safeParse(JSON.parse(bytes.toString('utf8')));
      if (!group.success) return false;
      if (!options.names) delete group.data.names;
      findings.push(group.data);
    }
    return true;
  };
  for await (const piece of pieces) ours &&= attempt(() => take(piece));
  if (!ours || !attempt(() => scanner.end()) || !scanner.found) return undefined;
  const members: Record<string, unknown> = {};
  const readMembers = (): void => {
    for (const { key, bytes } of scanner.members) members[key] = JSON.parse(bytes.toString('utf8'));
  };
  if (!attempt(readMembers)) return undefined;
  const head = headSchema.safeParse(members);
  return head.success ? { ...head.data, findings } : undefined;
}
