/**
 * Finds the first repeated key in a JSON text. JSON.parse keeps the last of two equal keys without
 * a word; the scanner's key count tells that it happened, and this (slow, only then) says where.
 */

/** The path of the first object key that appears twice (`extended_attributes.owner`), or undefined. */
export function firstDuplicateKey(text: string): string | undefined {
  let i = 0;
  const space = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const string = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);
  // Returns the duplicate's path, or undefined after skipping the value.
  const value = (path: string): string | undefined => {
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      space();
      if (text[i] === '}') {
        i++;
        return undefined;
      }
      for (;;) {
        space();
        const key = string();
        if (seen.has(key)) return join(path, key);
        seen.add(key);
        space();
        i++; // ':'
        const found = value(join(path, key));
        if (found !== undefined) return found;
        space();
        if (text[i++] === '}') return undefined;
      }
    }
    if (c === '[') {
      i++;
      space();
      if (text[i] === ']') {
        i++;
        return undefined;
      }
      for (;;) {
        const found = value(`${path}[]`);
        if (found !== undefined) return found;
        space();
        if (text[i++] === ']') return undefined;
      }
    }
    if (c === '"') {
      string();
      return undefined;
    }
    while (i < text.length && !',}] \t\n\r'.includes(text[i]!)) i++;
    return undefined;
  };
  return value('');
}
