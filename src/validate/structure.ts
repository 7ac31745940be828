/**
 * Structural checks: what must hold for a snapshot to be built at all. A wrong envelope is a
 * fault of the request (BodyFault, retried: a proxy or a half-deployed service may send one);
 * a record that is not an object, a bad id or a duplicate is a ValidationError.
 */
import { ValidationError } from '../errors.js';
import { BodyFault } from '../fetch/client.js';
import type { RawRecord } from '../spec/schemas.js';
import { isPlainObject } from '../util/json-value.js';
import { preview } from './warnings.js';

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/** The records of a list body `{ "<key>": [ ... ] }`, with ids checked and unique. */
export function listRecords(body: unknown, key: string, path: string): RawRecord[] {
  if (!isPlainObject(body)) throw new BodyFault(`GET ${path}: expected a JSON object with key "${key}", got ${describe(body)}`);
  const records = body[key];
  if (!Array.isArray(records)) {
    const keys = Object.keys(body).slice(0, 5).map((k) => JSON.stringify(k)).join(', ');
    throw new BodyFault(records === undefined ? `GET ${path}: envelope key "${key}" is missing (keys: ${keys || 'none'})` : `GET ${path}: "${key}" is ${describe(records)}, expected an array`);
  }
  const seen = new Map<string, number>();
  records.forEach((record: unknown, index) => {
    checkRecord(record, `GET ${path}: ${key}[${index}]`);
    const first = seen.get(record.id);
    if (first !== undefined) throw new ValidationError(`GET ${path}: duplicate id ${JSON.stringify(record.id)} at ${key}[${first}] and ${key}[${index}]`);
    seen.set(record.id, index);
  });
  return records as RawRecord[];
}

/** The record of a single-record body `{ "<key>": { ... } }`, whose id must be the one asked. */
export function singleRecord(body: unknown, key: string, id: string, path: string): RawRecord {
  if (!isPlainObject(body)) throw new BodyFault(`GET ${path}: expected a JSON object with key "${key}", got ${describe(body)}`);
  const record = body[key];
  if (record === undefined) throw new BodyFault(`GET ${path}: envelope key "${key}" is missing (keys: ${Object.keys(body).slice(0, 5).map((k) => JSON.stringify(k)).join(', ') || 'none'})`);
  checkRecord(record, `GET ${path}: ${key}`);
  if (record.id !== id) throw new ValidationError(`GET ${path}: the record's id is ${preview(record.id)}, not the ${JSON.stringify(id)} that was asked for`);
  return record;
}

function checkRecord(record: unknown, where: string): asserts record is RawRecord {
  if (!isPlainObject(record)) throw new ValidationError(`${where} is ${describe(record)}, expected an object`);
  if (!('id' in record)) throw new ValidationError(`${where} has no id`);
  if (typeof record.id !== 'string') throw new ValidationError(`${where}: id is ${describe(record.id)} ${preview(record.id)}, expected a string`);
  if (record.id.length === 0) throw new ValidationError(`${where}: id is an empty string`);
}
