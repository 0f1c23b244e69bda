/**
 * How one aggregate of a scattered SELECT is computed across shards: which partial
 * results the shards send (columns added to their select list, values added to their
 * GROUP BY) and how the merge combines them (`AggregateSpec`).
 */
import type { AggregateSpec, GroupConcatAggregate } from '../../merge/index.js';
import { UNTYPED_ORDER } from '../typing/column-order.js';
import type { SqlDialect } from '../../parameterize/index.js';
import type { ExprType, ExpressionTyper } from '../typing/expression-type.js';
import type { PrintedSql } from '../nodes/print-sql.js';
import { orderingOf } from '../typing/sort-key-of.js';
import type { AggregateNode, SqlNode } from '../nodes/sql-node.js';
import { someNode } from '../nodes/sql-tree.js';

/** What planning an aggregate may ask of the SELECT being planned. */
export interface AggregateContext {
  readonly dialect: SqlDialect;
  readonly typer: ExpressionTyper;
  /** Prints an expression of the statement (backtick identifiers, slot markers). */
  print(node: SqlNode): PrintedSql | undefined;
  /** Adds a column to the shards' select list; returns its alias. */
  derive(sql: PrintedSql, kind: string): string;
  /**
   * Appends an expression to the shards' GROUP BY (their rows then hold the values). A
   * constant is skipped: it is one value per group already, and a bare number would be read
   * as a GROUP BY position.
   */
  groupByValue(node: SqlNode, sql: PrintedSql): void;
  /** True when the expression is the shard key (its values never span shards). */
  isShardKey(node: SqlNode): boolean;
  /**
   * True when the shards group by the values of DISTINCT aggregates: each shard row is then
   * part of a group, and per-shard `COUNT(DISTINCT shard key)` of the parts cannot be added.
   */
  readonly groupsByValues: boolean;
}

const wrap = (name: string, inner: PrintedSql): PrintedSql => ({ text: `${name}(${inner.text})`, slots: inner.slots });

const SAMPLE = new Set(['VAR_SAMP', 'STDDEV_SAMP']);
const ROOT = new Set(['STD', 'STDDEV', 'STDDEV_POP', 'STDDEV_SAMP']);
const VARIANCES = new Set(['VARIANCE', 'VAR_POP', 'VAR_SAMP', ...ROOT]);

/** Functions whose DOUBLE result MySQL shows with a fixed number of places. */
const FIXED_PLACES = new Set(['ROUND', 'TRUNCATE']);
const isReal = (t: ExprType): boolean => t.kind === 'number' && t.class === 'real' && t.inexact !== true;

/**
 * The merge spec of `node`, whose merged value goes to result column `alias`. `present`
 * says whether the shards' select list already has the aggregate under `alias` (a select
 * item); otherwise it is added when the merge reads it.
 */
export function planAggregate(node: AggregateNode, alias: string, present: boolean, ctx: AggregateContext): AggregateSpec | { readonly problem: string } {
  const name = node.name;
  if (node.over) return { problem: `${name}() OVER (…), a window function` };
  const self = (): string | undefined => {
    if (present) return alias;
    const printed = ctx.print(node);
    return printed ? ctx.derive(printed, 'agg') : undefined;
  };
  const arg = node.args[0];
  if (node.args.length !== 1 || !arg) return { problem: `${name}() with ${node.args.length} arguments` };
  const printedArg = arg.kind === 'star' ? { text: '*', slots: [] } : ctx.print(arg);
  if (!printedArg) return { problem: `${name}() of an expression the merge cannot send to the shards` };
  // MySQL shows a DOUBLE rounded to D places (ROUND / TRUNCATE) with D places, and its average or
  // variance with D + 4: a display rule of DOUBLE results that the merged value does not follow.
  if (ctx.dialect === 'mysql' && !node.distinct && (name === 'AVG' || VARIANCES.has(name)) && someNode(arg, (n) => n.kind === 'function' && FIXED_PLACES.has(n.name) && n.args[0] !== undefined && isReal(ctx.typer.typeOf(n.args[0])))) {
    return { problem: `${name}() of a DOUBLE rounded to fixed places (ROUND / TRUNCATE), which the server shows with a fixed number of decimals (CAST the argument AS DECIMAL(…) for an exact average)` };
  }
  // MySQL keeps a DECIMAL quotient with more digits than it shows: sums of one are sent at full
  // precision, so that the merge adds what the server would add.
  const exactArg: PrintedSql =
    ctx.dialect === 'mysql' && someNode(arg, (n) => n.kind === 'binary' && n.op === '/')
      ? { text: `CAST(${printedArg.text} AS DECIMAL(65, 30))`, slots: printedArg.slots }
      : printedArg;
  const argOrder = arg.kind === 'star' ? UNTYPED_ORDER : orderingOf(ctx.typer.typeOf(arg), ctx.dialect, `the argument of ${name}()`);
  /** The SQL of the value that decides when two values of the argument are one (the server's key where it computes one). */
  const sameKey = argOrder.kind === 'exact' && argOrder.order.key ? argOrder.order.key : undefined;
  const isText = argOrder.kind === 'exact' && argOrder.order.type === 'mysql-weight';
  /** Which values of the argument are one is not known (a constant argument has one value: no question). */
  const unknownSameness = argOrder.kind === 'refused' && someNode(arg, (n) => n.kind === 'column');
  /** The values of the argument, grouped on the shards, with the key that decides their sameness. */
  const valuesOf = (): { valuesAlias: string; sameAlias: string | undefined } => {
    ctx.groupByValue(arg, printedArg);
    const value = valueOf(arg);
    // A DISTINCT aggregate keeps each value as a field of the argument's type (a quotient at
    // its shown scale), so the shards send the values as the server shows them.
    const valuesAlias = ctx.derive(value(printedArg), 'value');
    return { valuesAlias, sameAlias: sameKey ? ctx.derive(value({ text: sameKey(printedArg.text), slots: printedArg.slots }), 'value') : undefined };
  };
  const checked = (spec: AggregateSpec, column: string | undefined): AggregateSpec | { problem: string } =>
    column === undefined ? { problem: `${name}() of an expression the merge cannot send to the shards` } : spec;

  switch (name) {
    case 'COUNT': {
      if (!node.distinct || (ctx.isShardKey(arg) && !ctx.groupsByValues)) return checked({ alias, fn: 'COUNT' }, self());
      // Each distinct value is counted once, wherever it occurs: the shards send the values.
      // Which values are one is the server's to say (collations, numbers as text …): unknown, refused.
      if (unknownSameness) return { problem: argOrder.reason };
      const { valuesAlias, sameAlias } = valuesOf();
      const collation = argOrder.kind === 'exact' && !sameKey ? argOrder.order.collation : 'binary';
      return { alias, fn: 'COUNT_DISTINCT', valuesAlias: sameAlias ?? valuesAlias, ...(collation !== 'binary' ? { collation } : {}) };
    }
    case 'SUM':
    case 'AVG': {
      if (node.distinct) {
        if (isText) return { problem: `${name}(DISTINCT …) of text` };
        if (unknownSameness) return { problem: argOrder.reason };
        const { valuesAlias, sameAlias } = valuesOf();
        // A numeric key (FLOAT's exact `col + 0e0`) is the value itself, exactly.
        return { alias, fn: name === 'SUM' ? 'SUM_DISTINCT' : 'AVG_DISTINCT', valuesAlias: sameAlias ?? valuesAlias };
      }
      if (name === 'SUM') {
        const column = self();
        if (exactArg === printedArg || column === undefined) return checked({ alias, fn: 'SUM' }, column);
        return { alias, fn: 'SUM', exactAlias: ctx.derive(wrap('SUM', exactArg), 'sum_exact') };
      }
      // Averages cannot be averaged: the shards send SUM and COUNT.
      return { alias, fn: 'AVG', sumAlias: ctx.derive(wrap('SUM', exactArg), 'avg_sum'), countAlias: ctx.derive(wrap('COUNT', printedArg), 'avg_count') };
    }
    case 'MIN':
    case 'MAX': {
      if (argOrder.kind === 'refused') return { problem: argOrder.reason };
      const column = self();
      if (column === undefined) return checked({ alias, fn: name }, column);
      if (argOrder.kind === 'constant') return { alias, fn: name, type: 'auto' };
      const { type, collation, key } = argOrder.extreme;
      if (exactArg !== printedArg && key === undefined) {
        return { alias, fn: name, type, collation, keyColumn: ctx.derive(wrap(name, exactArg), 'extreme_exact'), keyIsExactValue: true };
      }
      // Partial results compared by the server's key of each (text weights, `col + 0` …), kept with the value.
      return { alias, fn: name, type, collation, ...(key ? { keyColumn: ctx.derive({ text: key(name, printedArg.text), slots: printedArg.slots }, 'extreme') } : {}) };
    }
    case 'BIT_AND':
    case 'BIT_OR':
    case 'BIT_XOR':
      if (ctx.dialect !== 'mysql' || node.distinct) break;
      return checked({ alias, fn: name }, self());
    case 'GROUP_CONCAT':
      if (node.distinct && unknownSameness) return { problem: argOrder.reason };
      return ctx.dialect === 'mysql' ? planGroupConcat(node, alias, printedArg, sameKey, ctx) : { problem: 'group_concat() over several shards (SQLite does not define its order)' };
    default:
      if (VARIANCES.has(name) && ctx.dialect === 'mysql' && !node.distinct) {
        const argType = ctx.typer.typeOf(arg);
        if (argType.kind !== 'number' || argType.inexact) return { problem: `${name}() of an expression whose SQL type is not known (write it as CAST(… AS DECIMAL / DOUBLE))` };
        const common = { alias, fn: 'VARIANCE', sample: SAMPLE.has(name), sqrt: ROOT.has(name), countAlias: ctx.derive(wrap('COUNT', printedArg), 'var_n') } as const;
        // DOUBLE: each shard's mean and running variance (see VarianceAggregate).
        if (argType.class === 'real') {
          return {
            ...common,
            meanAlias: ctx.derive(wrap('AVG', printedArg), 'var_mean'),
            varPopAlias: ctx.derive(wrap('VAR_POP', printedArg), 'var_pop'),
            // Equal values have a variance of exactly 0, which the shards' rounded means would blur.
            minAlias: ctx.derive(wrap('MIN', printedArg), 'var_min'),
            maxAlias: ctx.derive(wrap('MAX', printedArg), 'var_max'),
          };
        }
        // Exact arguments are squared as DECIMAL (BIGINT squares overflow) and shown with scale + 4 places, as the server does.
        const scale = argType.class === 'int' ? 0 : argType.scale;
        if (scale === undefined) return { problem: `${name}() of a DECIMAL expression of unknown scale` };
        // A quotient is used at the server's full precision (as for SUM), not at its shown scale.
        const quotient = exactArg !== printedArg;
        const factor = `CAST(${printedArg.text} AS DECIMAL(65, ${quotient ? 30 : scale}))`;
        const square: PrintedSql = { text: `(${factor}) * (${factor})`, slots: [...printedArg.slots, ...printedArg.slots] };
        const decimals = scale + 4 <= 30 ? scale + 4 : undefined;
        return {
          ...common,
          sumAlias: ctx.derive(wrap('SUM', quotient ? exactArg : printedArg), 'var_sum'),
          sumSquaresAlias: ctx.derive(wrap('SUM', square), 'var_sq'),
          ...(decimals === undefined ? {} : { decimals }),
        };
      }
  }
  return { problem: `${name}(${node.distinct ? 'DISTINCT …' : '…'}) over several shards` };
}

/**
 * The column that carries a DISTINCT argument's values. A constant is not grouped by: a shard
 * without rows still answers its one global row, where `MAX(constant)` is NULL and the bare
 * constant would count as a value that is not there.
 */
function valueOf(arg: SqlNode): (sql: PrintedSql) => PrintedSql {
  const constant = !someNode(arg, (n) => n.kind === 'column');
  return (sql) => (constant ? wrap('MAX', sql) : sql);
}

function planGroupConcat(
  node: AggregateNode,
  alias: string,
  printedArg: PrintedSql,
  sameKey: ((sql: string) => string) | undefined,
  ctx: AggregateContext,
): AggregateSpec | { problem: string } {
  ctx.groupByValue(node.args[0]!, printedArg);
  const value = valueOf(node.args[0]!);
  const valuesAlias = ctx.derive(value(printedArg), 'value');
  const orderBy: GroupConcatAggregate['orderBy'][number][] = [];
  for (const item of node.orderBy) {
    const printed = ctx.print(item.expr);
    if (!printed) return { problem: 'GROUP_CONCAT(… ORDER BY an expression the merge cannot send to the shards)' };
    const ordering = orderingOf(ctx.typer.typeOf(item.expr), ctx.dialect, 'a GROUP_CONCAT order key');
    if (ordering.kind === 'refused') return { problem: ordering.reason };
    if (ordering.kind === 'constant') continue;
    ctx.groupByValue(item.expr, printed);
    const { type, collation, key } = ordering.order;
    const column = ctx.derive(key ? { text: key(printed.text), slots: printed.slots } : printed, 'value');
    orderBy.push({ column, direction: item.direction, type, collation });
  }
  return {
    alias,
    fn: 'GROUP_CONCAT',
    valuesAlias,
    distinct: node.distinct,
    ...(node.distinct && sameKey ? { distinctAlias: ctx.derive(value({ text: sameKey(printedArg.text), slots: printedArg.slots }), 'value') } : {}),
    orderBy,
    ...(node.distinct ? {} : { countAlias: ctx.derive({ text: 'COUNT(*)', slots: [] }, 'count') }),
    separator: node.separator ?? ',',
  };
}
