/**
 * The operating-system tree (pure): children by parent id. Maps, not objects, so an id such as
 * `constructor` or `__proto__` is an id like any other.
 */
import type { Table } from './types.js';

export interface OsTree {
  children: Map<string, string[]>;
  roots: string[];
}

/** The tree the systems' `parent.id` column describes; a parent not in the table makes a root. */
export function osTree(T: Table | undefined): OsTree {
  const children = new Map<string, string[]>();
  const roots: string[] = [];
  if (!T) return { children, roots };
  const parent = T.cols.get('parent.id');
  T.ids.forEach((id, i) => {
    const cell = parent?.[i];
    const p = Array.isArray(cell) ? cell[0] : undefined;
    if (p !== undefined && p !== id && T.pos.has(p)) {
      const list = children.get(p);
      if (list) list.push(id);
      else children.set(p, [id]);
    } else roots.push(id);
  });
  return { children, roots };
}

/** A system and every system below it (a cycle in the data stops at a system already seen). */
export function descendants(tree: OsTree, id: string): Set<string> {
  const out = new Set<string>();
  const stack = [id];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (out.has(x)) continue;
    out.add(x);
    for (const c of tree.children.get(x) ?? []) stack.push(c);
  }
  return out;
}
