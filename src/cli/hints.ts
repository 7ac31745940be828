/**
 * What a command-line user can do about an error, in flags. The domain's messages say what went
 * wrong and what to decide in its own words (library callers set options, not flags); the command
 * line adds the flag that makes the decision.
 */
import type { MirrorError } from '../errors.js';

const HINTS: Partial<Record<string, string>> = {
  E_MASS_REMOVAL: 'if the service really lost them, run again with --allow-mass-removal',
  E_NOT_EMPTY: 'to publish among them, pass --allow-nonempty',
};

/** The error's message with its command-line hint, if it has one. */
export function withHint(error: MirrorError): string {
  const hint = HINTS[error.code];
  return hint ? `${error.message}. ${hint[0]!.toUpperCase()}${hint.slice(1)}` : error.message;
}
