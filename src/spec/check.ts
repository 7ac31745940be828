/**
 * The spec's schemas as plain checks: where a value fails a schema, as the paths of the issues
 * zod's safeParse would report, found without zod building its output copy and an Error. A
 * realistic inventory has a null in one record of five, and zod took a sync of 20 000 servers
 * about 2 s of its single thread. The schemas stay the one source: each check is derived from a
 * schema's definition, node kinds not handled here are handed to zod itself, and a test holds
 * the two to the same answers.
 */
import type { z } from 'zod';
import { isPlainObject } from '../util/json-value.js';
import { RESOURCE_NAMES, type ResourceName } from './resources.js';
import { SCHEMAS } from './schemas.js';

/** Where in a value an issue lies: keys and array indexes from the value's root. */
export type IssuePath = readonly PropertyKey[];

/** A finding's field name for a path: `instances[].listen_port` for `['instances', 2, 'listen_port']`. */
export function fieldName(path: IssuePath): string {
  let name = '';
  for (const part of path) name = typeof part === 'number' ? `${name}[]` : name ? `${name}.${String(part)}` : String(part);
  return name;
}

/** Appends to `out` the path (below `path`) of each part of `value` the schema rejects. */
type Check = (value: unknown, path: PropertyKey[], out: IssuePath[]) => void;

/** The definition fields read here; zod's `_zod.def`, narrowed to what each kind carries. */
interface Definition {
  type: string;
  checks?: readonly unknown[];
  check?: string;
  format?: string;
  innerType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
}

const definition = (schema: z.ZodType): Definition => (schema as unknown as { _zod: { def: Definition } })._zod.def;

/** Leaves the value to zod: exact for any kind, at zod's price. */
function byZod(schema: z.ZodType): Check {
  return (value, path, out) => {
    const result = schema.safeParse(value);
    if (!result.success) for (const issue of result.error.issues) out.push([...path, ...issue.path]);
  };
}

const leaf =
  (accepts: (value: unknown) => boolean): Check =>
  (value, path, out) => {
    if (!accepts(value)) out.push([...path]);
  };

/** A check equivalent to `schema.safeParse` in where it finds issues. */
export function compileCheck(schema: z.ZodType): Check {
  const def = definition(schema);
  const plain = (def.checks === undefined || def.checks.length === 0) && def.check === undefined && def.format === undefined;
  switch (def.type) {
    case 'unknown':
    case 'any':
      return () => {};
    case 'string':
      return plain ? leaf((value) => typeof value === 'string') : byZod(schema);
    case 'boolean':
      return leaf((value) => typeof value === 'boolean');
    case 'number':
      if (plain) return leaf((value) => typeof value === 'number' && Number.isFinite(value));
      // z.int(): a finite whole number in the safe range, nothing else checked.
      if (def.format === 'safeint' && (def.checks === undefined || def.checks.length === 0)) return leaf(Number.isSafeInteger);
      return byZod(schema);
    case 'nullable': {
      const inner = compileCheck(def.innerType!);
      return (value, path, out) => {
        if (value !== null) inner(value, path, out);
      };
    }
    case 'array': {
      const element = compileCheck(def.element!);
      return (value, path, out) => {
        if (!Array.isArray(value)) {
          out.push([...path]);
          return;
        }
        for (let i = 0; i < value.length; i++) {
          path.push(i);
          element(value[i], path, out);
          path.pop();
        }
      };
    }
    case 'record': {
      if (definition(def.keyType!).type !== 'string' || !plain) return byZod(schema);
      const item = compileCheck(def.valueType!);
      return (value, path, out) => {
        if (!isPlainObject(value)) {
          out.push([...path]);
          return;
        }
        for (const key of Object.keys(value)) {
          path.push(key);
          item(value[key], path, out);
          path.pop();
        }
      };
    }
    case 'object': {
      // Only loose objects: a strict one rejects unknown keys, a catchall checks them.
      if (def.catchall === undefined || definition(def.catchall).type !== 'unknown' || !plain) return byZod(schema);
      const fields = Object.entries(def.shape!).map(([key, field]) => [key, compileCheck(field)] as const);
      return (value, path, out) => {
        if (!isPlainObject(value)) {
          out.push([...path]);
          return;
        }
        for (const [key, check] of fields) {
          path.push(key);
          check(Object.hasOwn(value, key) ? value[key] : undefined, path, out);
          path.pop();
        }
      };
    }
    default:
      return byZod(schema);
  }
}

const compiled = Object.fromEntries(RESOURCE_NAMES.map((r) => [r, { list: compileCheck(SCHEMAS[r].list), single: compileCheck(SCHEMAS[r].single) }])) as Record<ResourceName, Record<'list' | 'single', Check>>;

/** The paths where a record fails its resource's schema for the list item or the single view; empty when it conforms. */
export function schemaIssues(resource: ResourceName, view: 'list' | 'single', record: unknown): IssuePath[] {
  const out: IssuePath[] = [];
  compiled[resource][view](record, [], out);
  return out;
}
