/** `s3://BUCKET[/PREFIX]` as push and verify take it, and the keys of a snapshot's files under it. Pure. */
import { UsageError } from '../errors.js';
import { isSafeRelative } from '../util/relative-path.js';

/** A bucket and the key prefix the snapshot lives under ('' or ending in `/`). */
export interface Location {
  bucket: string;
  prefix: string;
}

/** S3's bucket naming rule (3-63 lowercase letters, digits, dots and hyphens), loose enough for other stores. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Parses `s3://BUCKET[/PREFIX]`; a UsageError naming `what` (the flag or setting) when it is not one. */
export function parseLocation(url: string, what: string): Location {
  const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(url);
  if (!match) throw new UsageError(`${what}: expected s3://BUCKET or s3://BUCKET/PREFIX, got ${JSON.stringify(url)}`);
  const bucket = match[1]!;
  if (!BUCKET.test(bucket)) throw new UsageError(`${what}: ${JSON.stringify(bucket)} is not a bucket name (3 to 63 lowercase letters, digits, dots and hyphens)`);
  const prefix = (match[2] ?? '').replace(/\/+$/, '');
  if (prefix !== '' && !isSafeRelative(prefix)) throw new UsageError(`${what}: the prefix ${JSON.stringify(prefix)} must be a relative path without empty, "." or ".." segments`);
  return { bucket, prefix: prefix === '' ? '' : `${prefix}/` };
}

/** `s3://bucket/prefix/path`, for messages. */
export function describeKey(location: Location, path = ''): string {
  return `s3://${location.bucket}/${location.prefix}${path}`;
}
