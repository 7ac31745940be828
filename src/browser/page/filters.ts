/**
 * The filters of a table view as the URL holds them (pure). `f.<column>=<value>` is a facet value;
 * several values of one column match any of them (OR). `o.<column>=<op>:<value>` is an operator
 * filter (`lt`, `le`, `gt`, `ge`, `eq`, `has`, `empty`); every filter must hold (AND). Each is shown
 * as a removable chip.
 */
import { fmt } from './format.js';
import type { Cell } from './types.js';

export const OPERATORS = { lt: '<', le: '≤', gt: '>', ge: '≥', eq: '=', has: 'contains', empty: 'is empty' } as const;
export type Operator = keyof typeof OPERATORS;
export const isOperator = (op: string): op is Operator => Object.hasOwn(OPERATORS, op);

export interface Filter {
  /** `facet` from `f.*`, `op` from `o.*`. */
  kind: 'facet' | 'op';
  col: string;
  op: Operator;
  value: string;
  /** The URL parameter and value that carry it, to remove it. */
  param: string;
  raw: string;
}

/** Every filter the parameters name; an `o.` value with an unknown operator is read as `contains`. */
export function parseFilters(params: URLSearchParams): Filter[] {
  const out: Filter[] = [];
  params.forEach((raw, param) => {
    if (param.startsWith('f.') && param.length > 2) out.push({ kind: 'facet', col: param.slice(2), op: 'eq', value: raw, param, raw });
    else if (param.startsWith('o.') && param.length > 2) {
      const colon = raw.indexOf(':');
      const op = colon < 0 ? raw : raw.slice(0, colon);
      if (isOperator(op)) out.push({ kind: 'op', col: param.slice(2), op, value: colon < 0 ? '' : raw.slice(colon + 1), param, raw });
      else out.push({ kind: 'op', col: param.slice(2), op: 'has', value: raw, param, raw });
    }
  });
  return out;
}

/** The parameters without one filter (one value of a repeated parameter), back on page 1. */
export function withoutFilter(params: URLSearchParams, filter: Pick<Filter, 'param' | 'raw'>): URLSearchParams {
  const p = new URLSearchParams();
  params.forEach((v, k) => {
    if (k === 'page' || (k === filter.param && v === filter.raw)) return;
    p.append(k, v);
  });
  return p;
}

/** The parameters with one more filter value, back on page 1. */
export function withFilter(params: URLSearchParams, param: string, raw: string): URLSearchParams {
  const p = new URLSearchParams(params);
  p.delete('page');
  if (!p.getAll(param).includes(raw)) p.append(param, raw);
  return p;
}

/** The URL value of an operator filter. */
export const opValue = (op: Operator, value: string): string => (op === 'empty' ? 'empty' : `${op}:${value}`);

const isEmpty = (c: Cell | undefined): boolean => c === null || c === undefined || c === '' || (Array.isArray(c) && c.length === 0);

/** A number from a cell or a typed value, when it is one. */
function numberOf(v: Cell | undefined): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

/**
 * Whether a cell passes an operator: numbers compared as numbers when both sides are numbers,
 * else text compared case-insensitively (ISO times then compare in time order). A list passes
 * `contains` and `=` when one of its entries does. An empty cell passes only `is empty`.
 */
export function passes(cell: Cell | undefined, op: Operator, value: string): boolean {
  if (op === 'empty') return isEmpty(cell);
  if (isEmpty(cell)) return false;
  if (Array.isArray(cell) && (op === 'has' || op === 'eq')) return cell.some((c) => passes(c, op, value));
  const want = value.trim().toLowerCase();
  if (op === 'has') return fmt(cell).toLowerCase().includes(want);
  const a = numberOf(cell as Cell);
  const b = numberOf(value);
  let order: number;
  if (a !== undefined && b !== undefined) order = a - b;
  else {
    const text = fmt(cell).toLowerCase();
    order = text < want ? -1 : text > want ? 1 : 0;
  }
  switch (op) {
    case 'lt':
      return order < 0;
    case 'le':
      return order <= 0;
    case 'gt':
      return order > 0;
    case 'ge':
      return order >= 0;
    default:
      return order === 0;
  }
}

/** A chip's text: `memory GB < 8`, `site = Paris`. */
export function chipText(filter: Filter, heading: (col: string) => string, valueText: (f: Filter) => string = (f) => f.value): string {
  const head = heading(filter.col);
  if (filter.op === 'empty') return `${head} is empty`;
  return `${head} ${OPERATORS[filter.op]} ${valueText(filter)}`;
}
