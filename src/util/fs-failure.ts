/**
 * File-system refusals (a full disk, no permission, a file where a folder must be) as one line with
 * the usual remedy: they come from the machine, not from a bug, so they must never reach the CLI
 * as an "internal error".
 */
import { OutputError } from '../errors.js';

const MEANINGS: Record<string, string> = {
  ENOSPC: 'no space left on the disk; free some or choose a folder on another disk',
  EDQUOT: 'the disk quota is used up; free some space or choose another folder',
  EACCES: 'permission denied; choose a folder you may write to, or change its permissions',
  EPERM: 'operation not permitted; choose a folder you may write to, or change its permissions',
  EROFS: 'the file system is read-only; choose a folder on a writable disk',
  ENOTDIR: 'a part of the path is a file, not a folder; choose another path',
  EEXIST: 'something is already there; choose another path',
  EISDIR: 'a folder is where a file must go; choose another path',
  ENAMETOOLONG: 'a name on the path is too long for the file system; choose a shorter one',
  ENOENT: 'a folder on the path is missing (removed meanwhile?); check the path',
  EMFILE: 'too many open files; raise the limit (ulimit -n) or run fewer jobs at once',
  EIO: 'the disk reported an input/output error; check the disk',
};

/**
 * `error` as an OutputError (exit 1) that says what was being done, the call and path that failed,
 * and what to do, when it is a file-system error; undefined for anything else.
 */
export function fsFailure(error: unknown, doing: string): OutputError | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, syscall, path } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string' || typeof syscall !== 'string') return undefined;
  const meaning = Object.hasOwn(MEANINGS, code) ? MEANINGS[code] : 'the file system refused it';
  return new OutputError('E_FS', `${doing}: ${syscall}${path ? ` ${path}` : ''}: ${code}, ${meaning}`, { cause: error });
}
