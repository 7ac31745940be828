/** Code-unit order: the same on every machine and locale (localeCompare is neither). */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
