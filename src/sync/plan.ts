/**
 * What to ask the service for each body, from what the previous snapshot knows of it (its
 * validators, the digest of the list item a record was checked against) and what changed since.
 * Pure: the pull step only carries these decisions out.
 */
import { hash } from 'node:crypto';
import type { RequestValidators } from '../fetch/client.js';
import type { Validators } from '../snapshot/table.js';

/** The digest of a list item as published, kept with its record's validators. */
export function itemDigest(bytes: Buffer): string {
  return hash('sha256', bytes, 'base64url').slice(0, 16);
}

const asked = (previous: Validators | undefined): RequestValidators | undefined =>
  previous?.etag || previous?.lastModified ? { etag: previous.etag, lastModified: previous.lastModified } : undefined;

/** A list: "changed since?" whenever the published one has validators (a 304 is then read from disk). */
export function planList(previous: Validators | undefined): RequestValidators | undefined {
  return asked(previous);
}

/**
 * A record: "changed since?" only when a 304 lets it be kept unread, that is when its findings
 * can be carried over (`carry`: the previous snapshot's quality report is there) and its list
 * item is the one it was checked against; otherwise the body is fetched and checked again.
 */
export function planRecord(previous: Validators | undefined, item: string, carry: boolean): RequestValidators | undefined {
  return carry && previous?.item === item ? asked(previous) : undefined;
}

/**
 * A filtered view: always "changed since?" when it has validators. On a 304 it is kept; it is
 * also read again (`recheck`) when its membership must be checked anew: its list changed, or the
 * view's earlier findings cannot be carried over.
 */
export function planView(previous: Validators | undefined, listChanged: boolean, carry: boolean): { validators: RequestValidators | undefined; recheck: boolean } {
  return { validators: asked(previous), recheck: listChanged || !carry };
}
