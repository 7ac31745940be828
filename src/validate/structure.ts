/**
 * Structural checks: what must hold for a snapshot to be built at all. A wrong envelope is a
 * fault of the request (BodyFault, retried: a proxy or a half-deployed service may send one); a
 * record that is not an object, a bad id or a duplicate is a ValidationError.
 */
import { BodyFault, ValidationError } from '../errors.js';
import type { RawRecord } from '../spec/schemas.js';
import { isPlainObject } from '../util/json-value.js';
import { preview } from './findings.js';

export function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/** The record of a single-record body `{ "<key>": { ... } }`, whose id must be the one asked. */
export function singleRecord(body: unknown, key: string, id: string, path: string): RawRecord {
  if (!isPlainObject(body)) throw new BodyFault(`GET ${path}: expected a JSON object with key "${key}", got ${describe(body)}`);
  if (!Object.hasOwn(body, key)) throw new BodyFault(`GET ${path}: envelope key "${key}" is missing (keys: ${Object.keys(body).slice(0, 5).map((k) => JSON.stringify(k)).join(', ') || 'none'})`);
  const record = body[key];
  checkRecord(record, `GET ${path}: ${key}`);
  if (record.id !== id) throw new ValidationError(`GET ${path}: the record's id is ${preview(record.id)}, not the ${JSON.stringify(id)} that was asked for`);
  return record;
}

/** A record must be an object with a non-empty, well-formed string id (it names the record's file). */
export function checkRecord(record: unknown, where: string): asserts record is RawRecord {
  if (!isPlainObject(record)) throw new ValidationError(`${where} is ${describe(record)}, expected an object`);
  if (!Object.hasOwn(record, 'id')) throw new ValidationError(`${where} has no id`);
  if (typeof record.id !== 'string') throw new ValidationError(`${where}: id is ${describe(record.id)} ${preview(record.id)}, expected a string`);
  if (record.id.length === 0) throw new ValidationError(`${where}: id is an empty string`);
  if (!record.id.isWellFormed()) throw new ValidationError(`${where}: id ${preview(record.id)} holds a lone UTF-16 surrogate, which no file name or URL can carry`);
}
