/**
 * The one way a sync asks for a body the previous snapshot may hold: with the validators of the
 * response behind the published copy ("changed since?"); a 304 keeps that copy, unless it turns
 * out not to be whole, and then the body is asked for again without validators.
 */
import type { Fetched, RequestValidators } from '../fetch/client.js';
import type { Validators } from '../snapshot/table.js';

/** What a conditional fetch came to: the body, the published copy kept (with what keeping it gave), or 404. */
export type Conditional<T, K> = { status: 200; value: T; validators: RequestValidators } | { status: 304; kept: K } | { status: 404 };

/** The validators a request can send of what the ETag cache holds; undefined when it holds none. */
export function sendable(validators: Validators | undefined): RequestValidators | undefined {
  return validators?.etag || validators?.lastModified ? { etag: validators.etag, lastModified: validators.lastModified } : undefined;
}

/**
 * GETs through `get`, sending `validators` when given. On a 304, `keep` keeps the published copy
 * and returns what the caller needs of it, or undefined when the copy is not whole: the body is
 * then fetched unconditionally (which the client never answers with a 304).
 */
export async function fetchConditional<T, K>(
  get: (validators: RequestValidators | undefined) => Promise<Fetched<T>>,
  validators: RequestValidators | undefined,
  keep: () => K | undefined | Promise<K | undefined>,
): Promise<Conditional<T, K>> {
  const result = await get(validators);
  if (result.status !== 304) return result;
  const kept = await keep();
  if (kept !== undefined) return { status: 304, kept };
  return (await get(undefined)) as Exclude<Fetched<T>, { status: 304 }>;
}
