/**
 * Relative paths read back from disk (a journal, a manifest) before any of them is joined to a
 * folder: `/`-separated, no empty, `.` or `..` segment, not absolute, no backslash or NUL. What a
 * run writes always has this form; anything else is damage or an attack, never a path to follow.
 */
export function isSafeRelative(path: string): boolean {
  if (path.length === 0 || path.length > 4096 || path.includes('\\') || path.includes('\0')) return false;
  for (const segment of path.split('/')) if (segment === '' || segment === '.' || segment === '..') return false;
  return true;
}
