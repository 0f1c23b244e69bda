import type { ValueSlot } from '../../parameterize/index.js';
import { UnsupportedShardingError } from '../../errors/index.js';
import { MergeValueError } from '../value-error.js';
import type { Row } from '../row.js';
import type { ScalarExpression } from './expression.js';
import { MYSQL_SEMANTICS } from './mysql-semantics.js';
import { combineTypes, type Semantics, type StaticType } from './semantics.js';
import { dec, int, real, type SqlValue, type Truth } from './sql-value.js';
import { SQLITE_SEMANTICS } from './sqlite-semantics.js';

/** An expression ready to run on merged rows with one statement's values. */
export type CompiledExpression = (row: Row, slots: readonly ValueSlot[]) => SqlValue;

/** The semantics of a dialect. */
export function semanticsOf(dialect: 'mysql' | 'sqlite'): Semantics {
  return dialect === 'mysql' ? MYSQL_SEMANTICS : SQLITE_SEMANTICS;
}

const COMPARISONS: Readonly<Record<string, (c: number) => boolean>> = {
  '=': (c) => c === 0,
  '<>': (c) => c !== 0,
  '!=': (c) => c !== 0,
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
};

const not = (t: Truth): Truth => (t === null ? null : !t);
const and = (a: Truth, b: Truth): Truth => (a === false || b === false ? false : a === null || b === null ? null : true);
const or = (a: Truth, b: Truth): Truth => (a === true || b === true ? true : a === null || b === null ? null : false);

/**
 * Compiles an expression once per statement shape. Evaluation follows the dialect's
 * semantics for every operator and function (see `mysql-semantics.ts`, `sqlite-semantics.ts`),
 * with SQL's three-valued logic.
 */
export function compileExpression(expr: ScalarExpression, semantics: Semantics): CompiledExpression {
  // Compiling and evaluating both recurse once per level.
  if (compiling >= MAX_EVALUATED_DEPTH) {
    throw new UnsupportedShardingError(`An expression the merge evaluates is nested more than ${MAX_EVALUATED_DEPTH} levels deep; write it flatter.`, { stage: 'plan' });
  }
  compiling++;
  try {
    return compileLevel(expr, semantics);
  } finally {
    compiling--;
  }
}

/** The deepest expression the merge compiles and evaluates. */
export const MAX_EVALUATED_DEPTH = 1000;
let compiling = 0;

function compileLevel(expr: ScalarExpression, semantics: Semantics): CompiledExpression {
  const s = semantics;
  const compile = (e: ScalarExpression): CompiledExpression => compileExpression(e, s);
  switch (expr.kind) {
    case 'column': {
      const { column, type } = expr;
      return (row) => s.fromRow(row[column], type);
    }
    case 'slot': {
      const { slot } = expr;
      return (_row, slots) => {
        const value = slots[slot];
        if (value === undefined) throw new MergeValueError(`the statement has no value slot ${slot}`);
        return s.fromSlot(value);
      };
    }
    case 'constant': {
      const value = s.fromConstant(expr);
      return () => value;
    }
    case 'case': {
      const operand = expr.operand ? compile(expr.operand) : undefined;
      const branches = expr.branches.map((b) => ({ when: compile(b.when), then: compile(b.then) }));
      const otherwise = expr.otherwise ? compile(expr.otherwise) : undefined;
      const type = staticTypeOf([...expr.branches.map((b) => b.then), ...(expr.otherwise ? [expr.otherwise] : [])], s);
      return (row, slots) => {
        const subject = operand?.(row, slots);
        for (const b of branches) {
          const hit = operand ? equalTruth(s.compare(subject ?? null, b.when(row, slots))) : s.truth(b.when(row, slots));
          if (hit === true) return s.unify(b.then(row, slots), type(slots));
        }
        return otherwise ? s.unify(otherwise(row, slots), type(slots)) : null;
      };
    }
    case 'call':
      return compileCall(expr.name, expr.args, s);
    case 'operator':
      return compileOperator(expr.op, expr.args, s);
  }
}

function equalTruth(c: number | null): Truth {
  return c === null ? null : c === 0;
}

function compileOperator(op: string, argExprs: readonly ScalarExpression[], s: Semantics): CompiledExpression {
  const args = argExprs.map((a) => compileExpression(a, s));
  const [a, b, c] = args as [CompiledExpression, CompiledExpression | undefined, CompiledExpression | undefined];
  const test = COMPARISONS[op];
  if (test) return (row, slots) => s.fromTruth(mapTruth(s.compare(a(row, slots), b!(row, slots)), test));
  switch (op) {
    case '+':
    case '-':
    case '*':
    case '/':
    case '%':
    case 'MOD':
    case 'DIV':
      return b ? (row, slots) => s.arithmetic(op, a(row, slots), b(row, slots)) : (row, slots) => s.arithmetic(op, a(row, slots), undefined);
    case '<=>':
      return (row, slots) => {
        const x = a(row, slots);
        const y = b!(row, slots);
        if (x === null || y === null) return s.fromTruth(x === null && y === null);
        return s.fromTruth(s.compare(x, y) === 0);
      };
    case 'AND':
    case '&&':
      return (row, slots) => s.fromTruth(and(s.truth(a(row, slots)), s.truth(b!(row, slots))));
    case '||':
      if (s.pipes === 'concat') return (row, slots) => s.concat(a(row, slots), b!(row, slots));
      return (row, slots) => s.fromTruth(or(s.truth(a(row, slots)), s.truth(b!(row, slots))));
    case 'OR':
      return (row, slots) => s.fromTruth(or(s.truth(a(row, slots)), s.truth(b!(row, slots))));
    case 'XOR':
      return (row, slots) => {
        const x = s.truth(a(row, slots));
        const y = s.truth(b!(row, slots));
        return s.fromTruth(x === null || y === null ? null : x !== y);
      };
    case 'NOT':
    case '!':
      return (row, slots) => s.fromTruth(not(s.truth(a(row, slots))));
    case 'IS':
    case 'IS NOT': {
      // The plan only produces `x IS [NOT] NULL` (TRUE/FALSE/UNKNOWN tests are not evaluated).
      const negate = op === 'IS NOT';
      return (row, slots) => s.fromTruth((a(row, slots) === null) !== negate);
    }
    case 'IN':
    case 'NOT IN': {
      const list = args.slice(1);
      const negate = op === 'NOT IN';
      return (row, slots) => {
        const x = a(row, slots);
        let found: Truth = false;
        for (const item of list) found = or(found, equalTruth(s.compare(x, item(row, slots))));
        return s.fromTruth(negate ? not(found) : found);
      };
    }
    case 'BETWEEN':
    case 'NOT BETWEEN': {
      const negate = op === 'NOT BETWEEN';
      return (row, slots) => {
        const x = a(row, slots);
        const inside = and(mapTruth(s.compare(x, b!(row, slots)), (k) => k >= 0), mapTruth(s.compare(x, c!(row, slots)), (k) => k <= 0));
        return s.fromTruth(negate ? not(inside) : inside);
      };
    }
  }
  throw new MergeValueError(`the merge does not evaluate the operator ${op}`);
}

function mapTruth(c: number | null, test: (c: number) => boolean): Truth {
  return c === null ? null : test(c);
}

function compileCall(name: string, argExprs: readonly ScalarExpression[], s: Semantics): CompiledExpression {
  const args = argExprs.map((a) => compileExpression(a, s));
  switch (name) {
    case 'COALESCE':
    case 'IFNULL': {
      const type = staticTypeOf(argExprs, s);
      return (row, slots) => {
        for (const arg of args) {
          const v = arg(row, slots);
          if (v !== null) return s.unify(v, type(slots));
        }
        return null;
      };
    }
    case 'NULLIF':
      return (row, slots) => {
        const x = args[0]!(row, slots);
        return s.compare(x, args[1]!(row, slots)) === 0 ? null : x;
      };
    case 'IF':
    case 'IIF': {
      const type = staticTypeOf(argExprs.slice(1), s);
      return (row, slots) => s.unify(s.truth(args[0]!(row, slots)) === true ? args[1]!(row, slots) : args[2]!(row, slots), type(slots));
    }
    case 'GREATEST':
    case 'LEAST': {
      const type = staticTypeOf(argExprs, s);
      const wanted = name === 'GREATEST' ? 1 : -1;
      return (row, slots) => {
        const values = args.map((arg) => arg(row, slots));
        // MySQL: NULL if any argument is NULL.
        if (values.some((v) => v === null)) return null;
        const t = type(slots);
        let best = s.unify(values[0]!, t);
        for (const v of values.slice(1)) {
          const u = s.unify(v, t);
          if ((s.compare(u, best) ?? 0) * wanted > 0) best = u;
        }
        return best;
      };
    }
    default: {
      // Literal arguments (ROUND's digits) are passed separately so a function can read them without evaluating rows.
      return (row, slots) => {
        const values = args.map((arg) => arg(row, slots));
        const result = s.call(name, values, values);
        if (result === undefined) throw new MergeValueError(`the merge does not evaluate the function ${name}`);
        return result;
      };
    }
  }
}

const UNKNOWN: StaticType = { c: 'null', scale: 0 };
const ARITHMETIC = new Set(['+', '-', '*', '/', '%', 'MOD', 'DIV']);

/** A value of static type `t` that no operator turns into NULL or an error (1 of its class). */
function standIn(t: StaticType): SqlValue | undefined {
  switch (t.c) {
    case 'int':
      return int(1n);
    case 'dec':
      return dec({ unscaled: 10n ** BigInt(t.scale), scale: t.scale }, t.scale);
    case 'real':
      return real(1);
    default:
      return undefined;
  }
}

/**
 * The combined static type of the branches of `CASE` / `COALESCE` / `IF`, per statement (a
 * `?` parameter's type depends on its value): MySQL types the whole expression from all of
 * them, whichever branch is taken.
 */
function staticTypeOf(branches: readonly ScalarExpression[], s: Semantics): (slots: readonly ValueSlot[]) => StaticType {
  const leafType = (e: ScalarExpression, slots: readonly ValueSlot[]): StaticType => {
    switch (e.kind) {
      case 'column':
        return s.staticOf(e.type);
      case 'slot':
        return s.staticOf(slots[e.slot] ? s.fromSlot(slots[e.slot]!) : null);
      case 'constant':
        return s.staticOf(s.fromConstant(e));
      case 'case':
        return combineTypes([...e.branches.map((b) => leafType(b.then, slots)), ...(e.otherwise ? [leafType(e.otherwise, slots)] : [])]);
      case 'call':
        if (['COALESCE', 'IFNULL', 'GREATEST', 'LEAST'].includes(e.name)) return combineTypes(e.args.map((a) => leafType(a, slots)));
        if (e.name === 'IF' || e.name === 'IIF') return combineTypes(e.args.slice(1).map((a) => leafType(a, slots)));
        return probe(e, slots);
      case 'operator':
        return probe(e, slots);
    }
  };
  // An operator or function: its type is that of its value on stand-ins of its arguments' types
  // (1, 1.00, 1e0 …), computed by the dialect's own rules (`1 / 1` is a DECIMAL of scale 4 on
  // MySQL, `1.5 * 1.25` of scale 3). Literals stand for themselves (ROUND's digits).
  const probe = (e: Extract<ScalarExpression, { kind: 'operator' | 'call' }>, slots: readonly ValueSlot[]): StaticType => {
    const args = e.args.map((a): SqlValue | undefined => {
      if (a.kind === 'constant') return s.fromConstant(a);
      if (a.kind === 'slot') return slots[a.slot] ? s.fromSlot(slots[a.slot]!) : undefined;
      return standIn(leafType(a, slots));
    });
    if (args.some((a) => a === undefined)) return UNKNOWN;
    const values = args as SqlValue[];
    try {
      if (e.kind === 'call') {
        const result = s.call(e.name, values, values);
        return result === undefined ? UNKNOWN : s.staticOf(result);
      }
      if (ARITHMETIC.has(e.op)) return s.staticOf(s.arithmetic(e.op, values[0]!, values[1]));
      return UNKNOWN;
    } catch {
      return UNKNOWN;
    }
  };
  let cachedSlots: readonly ValueSlot[] | undefined;
  let cached: StaticType = { c: 'null', scale: 0 };
  return (slots) => {
    if (slots !== cachedSlots) {
      cachedSlots = slots;
      cached = combineTypes(branches.map((b) => leafType(b, slots)));
    }
    return cached;
  };
}
