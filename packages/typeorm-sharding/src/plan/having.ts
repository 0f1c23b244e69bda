import { compareValues, type Row } from '../merge/index.js';
import type { ValueSlot } from '../parameterize/index.js';
import { columnRefOf, slotOf, type AstNode } from './ast.js';

/** A HAVING condition compiled once per shape; the statement's values are bound per execution. */
export type CompiledHaving = (row: Row, slots: readonly ValueSlot[]) => boolean;

/**
 * Resolves an operand of HAVING to the result column holding it: a select-list aggregate or
 * group column (by alias), or a derived aggregate column the caller adds. Undefined = unsupported.
 */
export type HavingColumnResolver = (node: AstNode) => string | undefined;

type Operand = (row: Row, slots: readonly ValueSlot[]) => unknown;

const COMPARISONS: Record<string, (c: number) => boolean> = {
  '=': (c) => c === 0,
  '!=': (c) => c !== 0,
  '<>': (c) => c !== 0,
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
};

/**
 * Compiles the HAVING conditions the merge can evaluate: AND/OR/NOT of comparisons between
 * aggregates, group columns and values. Returns undefined for anything else, and the
 * statement then refuses to scatter rather than filter wrongly. SQL's three-valued logic is
 * kept: a comparison with NULL is unknown, and unknown rows are dropped.
 */
export function compileHaving(node: AstNode, resolve: HavingColumnResolver): CompiledHaving | undefined {
  const tri = compileTri(node, resolve);
  return tri && ((row, slots) => tri(row, slots) === true);
}

function compileTri(node: AstNode, resolve: HavingColumnResolver): ((row: Row, slots: readonly ValueSlot[]) => boolean | null) | undefined {
  if (node.type === 'unary_expr' && String(node.operator).toUpperCase() === 'NOT') {
    const inner = compileTri(node.expr, resolve);
    return inner && ((row, slots) => {
      const v = inner(row, slots);
      return v === null ? null : !v;
    });
  }
  if (node.type !== 'binary_expr') return undefined;
  const op = String(node.operator).toUpperCase();
  if (op === 'AND' || op === 'OR') {
    const l = compileTri(node.left, resolve);
    const r = compileTri(node.right, resolve);
    if (!l || !r) return undefined;
    return op === 'AND'
      ? (row, slots) => {
          const a = l(row, slots);
          const b = r(row, slots);
          return a === false || b === false ? false : a === null || b === null ? null : true;
        }
      : (row, slots) => {
          const a = l(row, slots);
          const b = r(row, slots);
          return a === true || b === true ? true : a === null || b === null ? null : false;
        };
  }
  const test = COMPARISONS[op];
  if (!test) return undefined;
  const left = operand(node.left, resolve);
  const right = operand(node.right, resolve);
  if (!left || !right) return undefined;
  return (row, slots) => {
    const a = left(row, slots);
    const b = right(row, slots);
    if (a === null || a === undefined || b === null || b === undefined) return null;
    return test(compareValues(a, b, isNumeric(a) && isNumeric(b) ? 'numeric' : 'auto'));
  };
}

function operand(node: AstNode, resolve: HavingColumnResolver): Operand | undefined {
  const slot = slotOf(node);
  if (slot !== undefined) return (_row, slots) => slots[slot]?.value;
  if (node.type === 'aggr_func' || columnRefOf(node)) {
    const column = resolve(node);
    return column === undefined ? undefined : (row) => row[column];
  }
  return undefined;
}

function isNumeric(v: unknown): boolean {
  return typeof v === 'number' || typeof v === 'bigint' || (typeof v === 'string' && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v.trim()));
}
