/**
 * One single record's body as the service sent it: parsed, checked against its list item,
 * redacted and encoded as it will be published. Pure; the pull runs it on the record thread.
 */
import { referencesOf } from '../index/references.js';
import { encodeJson } from '../json/encode.js';
import { Reindenter } from '../json/reindent.js';
import { keyCount, MAX_DEPTH, nestsDeeper, TooDeepError } from '../json/scan.js';
import { sha256 } from '../snapshot/manifest.js';
import type { RedactPolicy } from '../redact/policy.js';
import { isRedacted, redactBody, redactRecord, redacts } from '../redact/redact.js';
import { leakedPaths } from '../redact/leaks.js';
import { RESOURCES, type ResourceName } from '../spec/resources.js';
import type { RawRecord } from '../spec/schemas.js';
import { decodingFindings } from '../validate/decode.js';
import type { Finding } from '../validate/findings.js';
import { checkRecord } from '../validate/record.js';
import { singleRecord } from '../validate/structure.js';

export interface RecordJob {
  resource: ResourceName;
  id: string;
  /** The request (`/servers/7.json`), for messages. */
  path: string;
  /** The single view's body as received. */
  body: Buffer;
  /** The record's list item as published. */
  item: Buffer;
}

export interface CheckedRecord {
  findings: Finding[];
  /** Fields only the list item carries, and only the single view. */
  listOnly: string[];
  singleOnly: string[];
  /** The redaction rules whose value still appears elsewhere in the published record (see redact/leaks.ts). */
  leaks: string[];
  /** The records its body refers to, unresolved (see index/references.ts). */
  refs: string[];
  /** The file to publish, and its sha256. */
  bytes: Buffer;
  sha256: string;
}

/**
 * Checks one record. A body that is not the record asked for (not JSON, no envelope) throws what
 * the client retries (SyntaxError, BodyFault); one that can never be right a ValidationError.
 */
export function checkPulledRecord(job: RecordJob, redact: RedactPolicy | undefined): CheckedRecord {
  const { resource, id, path, body: received } = job;
  const { singular } = RESOURCES[resource];
  if (nestsDeeper(received, MAX_DEPTH)) throw new TooDeepError(MAX_DEPTH);
  const body: unknown = JSON.parse(received.toString('utf8'));
  const record = singleRecord(body, singular, id, path);
  const item = JSON.parse(job.item.toString('utf8')) as RawRecord;
  const published = redactRecord(resource, record, redact) as RawRecord;
  const { findings, shape } = checkRecord(resource, item, record, published, { redacted: (field) => isRedacted(resource, field, redact) });
  findings.push(...decodingFindings(resource, id, received, body, keyCount(received), singular));
  const bytes = (redacts(resource, redact) ? undefined : asSent(received)) ?? encodeJson(redactBody(resource, body, redact));
  return { findings, listOnly: [...shape.listOnly], singleOnly: [...shape.singleOnly], leaks: leakedPaths(resource, record, published, redact), refs: referencesOf(resource, record), bytes, sha256: sha256(bytes) };
}

/** One per thread: its buffer is reused from one record to the next. */
const reindenter = new Reindenter();

/**
 * encodeJson's bytes of a body nothing is redacted from, re-indented from the bytes as sent: a
 * third cheaper than encoding the parsed body again. Undefined where the reindenter declines (an
 * escape to decode, a repeated key, ...): the caller encodes the parse, which gives the same bytes.
 */
function asSent(received: Buffer): Buffer | undefined {
  const text = reindenter.run(received, 0);
  if (!text) return undefined;
  const bytes = Buffer.allocUnsafe(text.length + 1);
  text.copy(bytes);
  bytes[text.length] = 0x0a;
  return bytes;
}
