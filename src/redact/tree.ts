/** Redaction at the tree stage: single records kept as bytes, and the policy file of the snapshot. */
import { encodeJson } from '../publish/json.js';
import type { ResourceName } from '../spec/resources.js';
import { describePolicy, hasRules, type RedactPolicy } from './policy.js';
import { redactBody } from './redact.js';

/** A single record's published bytes with the policy applied (the same bytes when nothing applies). */
export function redactSingleBytes(resource: ResourceName, bytes: Buffer, policy: RedactPolicy | undefined): Buffer {
  if (!hasRules(policy?.[resource])) return bytes;
  return encodeJson(redactBody(resource, JSON.parse(bytes.toString('utf8')), policy));
}

/** `_meta/redaction.json`: what was removed or masked (never the values), so a reader knows the copy is redacted. */
export function encodeRedaction(policy: RedactPolicy): Buffer {
  return encodeJson({ format: 1, redacted: describePolicy(policy) });
}
