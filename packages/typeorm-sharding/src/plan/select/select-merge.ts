/**
 * How the rows of a SELECT that reaches several shards are put back together: the merge
 * spec, the columns the shards must add for it, and the expressions the merge evaluates.
 *
 * Every item, ORDER BY key, GROUP BY key and HAVING operand is resolved to a result
 * column: a select item (by alias, position or equal expression), or a hidden column the
 * shards add (`__shard_…`, stripped from the result). Aggregates are merged from partials
 * (see `aggregate-plan.ts`); an expression above aggregates is evaluated after the merge
 * (see `scalar-of.ts`); what cannot be done exactly is refused, never approximated.
 */
import { compileExpression, semanticsOf, type CompiledExpression } from '../../values/evaluate/compile.js';
import type { AggregateSpec, GroupKey, MergeSpec, SortKey } from '../../merge/index.js';
import type { SqlDialect } from '../../parameterize/index.js';
import type { ShardingRules } from '../../rules/index.js';
import { planAggregate } from './aggregate-plan.js';
import { windowProblem } from './window-locality.js';
import { ExpressionTyper, type ExprType } from '../typing/expression-type.js';
import type { DerivedColumn } from '../plan.js';
import { printSql, slotMarker, type PrintedSql } from '../nodes/print-sql.js';
import { resolveKey } from '../nodes/resolve-column.js';
import { scalarOf, type LeafResolver } from './scalar-of.js';
import { aggregateOrderOf, columnFactsOf } from '../typing/column-order.js';
import { orderingOf, type OrderingOf } from '../typing/sort-key-of.js';
import { listedRowsOf } from '../routing/mention-order.js';
import type { AggregateNode, ColumnNode, SelectNode, SqlNode } from '../nodes/sql-node.js';
import { aggregatesOf, childrenOf, conjunctsOf, containsAggregate, containsWindow, forEachNode, sameExpression, someNode } from '../nodes/sql-tree.js';

/** Functions whose value differs from one evaluation (or one shard's statement) to the next. */
const VOLATILE = new Set(['RAND', 'RANDOM', 'RANDOMBLOB', 'UUID', 'UUID_SHORT', 'SYS_GUID', 'SYSDATE', 'NOW', 'CURRENT_TIMESTAMP', 'LOCALTIME', 'LOCALTIMESTAMP', 'CURTIME', 'CURRENT_TIME', 'UNIX_TIMESTAMP', 'CONNECTION_ID', 'LAST_INSERT_ID', 'FOUND_ROWS', 'ROW_COUNT', 'NEXTVAL', 'LASTVAL', 'SLEEP', 'BENCHMARK', 'GET_LOCK']);

/** True when `expr` has one value for every row of the statement: no column, aggregate, subquery or volatile function. */
function isConstant(expr: SqlNode): boolean {
  return !someNode(expr, (n) => n.kind === 'column' || n.kind === 'star' || n.kind === 'aggregate' || n.kind === 'subquery' || n.kind === 'shard-evaluated' || n.kind === 'keyword' || (n.kind === 'function' && (n.over !== undefined || VOLATILE.has(n.name))));
}

/** True when `node` reads a column other than as an aggregate's argument. */
function columnOutsideAggregates(node: SqlNode): boolean {
  if (node.kind === 'column') return true;
  if (node.kind === 'aggregate' || node.kind === 'subquery') return false;
  return childrenOf(node).some(columnOutsideAggregates);
}

/** An expression as the user wrote it, roughly: printed SQL with `?` for values, or what it is. */
function describeExpression(expr: SqlNode, dialect: SqlDialect): string {
  const printed = printSql(expr, dialect);
  if (printed) return printed.slots.reduce((text, slot) => text.replace(slotMarker(slot), '?'), printed.text);
  if (expr.kind === 'function' || expr.kind === 'aggregate') return `${expr.name}(…)${expr.over ? ' OVER (…)' : ''}`;
  return expr.kind === 'shard-evaluated' ? expr.what : `an expression (${expr.kind})`;
}

function andOf(terms: readonly SqlNode[]): SqlNode {
  return terms.reduce((left, right) => ({ kind: 'binary', op: 'AND', left, right }));
}

/** Alias prefix of columns the planner adds for the merge; they are stripped from results. */
export const DERIVED_PREFIX = '__shard_';

/** An expression the merge evaluates into a result column (bound to each statement's values by the engine). */
export interface PlannedComputation {
  readonly column: string;
  readonly expression: CompiledExpression;
  readonly label: string;
}

/** The merge side of a SELECT plan. */
export interface SelectMergePlan {
  readonly merge: MergeSpec;
  readonly derivedColumns: readonly DerivedColumn[];
  /** Expressions appended to the shards' GROUP BY (values of DISTINCT aggregates, GROUP_CONCAT). */
  readonly extraGroupBy: readonly PrintedSql[];
  readonly computed: readonly PlannedComputation[];
  readonly having: CompiledExpression | undefined;
  /** Unaliased select items the shards name `alias` for the merge; renamed back to their text per statement. */
  readonly itemAliases: readonly { readonly index: number; readonly alias: string }[];
  /** No ORDER BY and a WHERE listing rows by key values: the result columns of those keys and, per listed row, their value slots. */
  readonly listedOrder: { readonly columns: readonly string[]; readonly rows: readonly (readonly number[])[] } | undefined;
  /** False when groups span shards: every shard sends all its groups and LIMIT applies after the merge. */
  readonly pushLimit: boolean;
  /** The merge evaluates HAVING: the shards run without it (or with `shardHaving` only). */
  readonly cutHaving: boolean;
  /** The HAVING terms every shard decides alone (they read group keys only): kept on the shards, not evaluated again. */
  readonly shardHaving: PrintedSql | undefined;
  /**
   * The merge evaluates a HAVING that reads columns outside aggregates, which the shards are
   * asked to select: their statements no longer show whether the database accepts the
   * original (MySQL rejects a HAVING column that is neither selected nor grouped by). The
   * original text is checked on the default shard once per statement shape.
   */
  readonly checkOriginal: boolean;
  /** SQLite: read integers as bigint so that INTEGER and REAL values stay apart (evaluation, exact sums). */
  readonly exactIntegers: boolean;
  /**
   * The shards' rows come back alike whether each statement runs alone or as a branch of a
   * UNION ALL (see `rewrite/coalesce.ts`). False when a selected column is BIT: MariaDB sends a
   * DISTINCT or grouped BIT as a number alone but as bytes out of a UNION.
   */
  readonly unionSafe: boolean;
  /** Why the result cannot be merged exactly, when it cannot. */
  readonly unmergeable: string | undefined;
}

interface Context {
  readonly select: SelectNode;
  readonly rules: ShardingRules;
  readonly dialect: SqlDialect;
  readonly keyAliases: ReadonlyMap<string, string>;
}

class Refused extends Error {}

/** Plans the merge of the outermost SELECT `ctx.select`. */
export function planSelectMerge(ctx: Context): SelectMergePlan {
  return new SelectMergeBuilder(ctx).build();
}

class SelectMergeBuilder {
  private readonly typer: ExpressionTyper;
  private readonly derived: DerivedColumn[] = [];
  private readonly extraGroupBy: PrintedSql[] = [];
  private readonly itemAliases: { index: number; alias: string }[] = [];
  private readonly hidden: string[] = [];
  private readonly aggregates: AggregateSpec[] = [];
  private readonly aggregateColumns: { node: AggregateNode; column: string; type: ExprType; item: number | undefined; shownRounded?: boolean; fullPrecision?: boolean }[] = [];
  private readonly computed: PlannedComputation[] = [];
  private readonly computedColumns = new Map<number, string>();
  private readonly hasStar: boolean;
  private readonly groupsByValues: boolean;
  /** `aggregate`: groups span shards and aggregates are merged; `rows`: each shard's rows are final. */
  private mode: 'rows' | 'aggregate' = 'rows';
  private names = 0;
  /** The kind each derived column was made for (`derive` shares a column only within its kind). */
  private readonly kindOf = new Map<string, string>();

  constructor(private readonly ctx: Context) {
    this.typer = new ExpressionTyper(ctx.select, ctx.rules, ctx.dialect);
    this.hasStar = ctx.select.items.some((i) => i.expr.kind === 'star');
    // Decided before any aggregate is planned (see `AggregateContext.groupsByValues`): any
    // DISTINCT aggregate but COUNT(DISTINCT shard key), or GROUP_CONCAT, may extend the shards' GROUP BY.
    const { select } = ctx;
    const clauses = [...select.items.map((i) => i.expr), ...(select.having ? [select.having] : []), ...select.orderBy.map((o) => o.expr)];
    this.groupsByValues = clauses.some((c) =>
      aggregatesOf(c).some((a) => a.name === 'GROUP_CONCAT' || (a.distinct && !(a.name === 'COUNT' && a.args.length === 1 && this.isShardKey(a.args[0]!)))),
    );
  }

  build(): SelectMergePlan {
    const { select } = this.ctx;
    const aggregated =
      select.groupBy.length > 0 ||
      select.items.some((i) => containsAggregate(i.expr)) ||
      (select.having !== undefined && containsAggregate(select.having)) ||
      select.orderBy.some((o) => containsAggregate(o.expr));
    const groupsLocal = aggregated
      ? select.groupBy.length > 0 && select.groupBy.some((g) => this.isShardKey(this.itemExpr(g), true))
      : select.distinct && select.items.some((i) => this.isShardKey(i.expr, true));
    try {
      const windowed = [...select.items.map((i) => i.expr), ...select.orderBy.map((o) => o.expr), ...(select.having ? [select.having] : [])].some(containsWindow);
      if (windowed) {
        // Shard-local windows (partitioned by the shard key) give final values on rows that are final per shard.
        const problem = windowProblem(select, this.ctx.rules);
        if (problem) throw new Refused(`${problem}, over several shards`);
        if (aggregated && !groupsLocal) throw new Refused('window functions over groups that span shards');
      }
      if (select.rollup) throw new Refused('GROUP BY … WITH ROLLUP over several shards');
      return !aggregated || groupsLocal ? this.rowMerge() : this.aggregateMerge();
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      return this.result({ kind: 'concat' }, { unmergeable: error.message });
    }
  }

  // --- rows that are final on their shard: order, DISTINCT, page ---------------------------

  private rowMerge(): SelectMergePlan {
    const { select } = this.ctx;
    const orderBy = this.sortKeys((index) => this.itemColumn(index));
    let distinct: MergeSpec['distinct'];
    // DISTINCT rows span shards unless each holds a shard key (GROUP BY being local does not make them distinct).
    const distinctLocal = select.items.some((i) => this.isShardKey(i.expr, true));
    if (select.distinct && !distinctLocal) distinct = this.hasStar ? {} : { columns: select.items.map((item, index) => this.groupKey(item.expr, index)) };
    const listed = orderBy.length === 0 && !distinct && !select.limit ? listedRowsOf(select.where) : undefined;
    const listedOrder = listed ? { columns: listed.columns.map((c) => this.resultColumnOf(c)), rows: listed.rows } : undefined;
    const strip = this.hidden.length > 0 ? { strip: [...this.hidden] } : {};
    const merge: MergeSpec = orderBy.length > 0 ? { kind: 'ordered', orderBy, ...(distinct ? { distinct } : {}), ...strip } : { kind: 'concat', ...(distinct ? { distinct } : {}), ...strip };
    // SQLite: the listed keys are matched as stored (better-sqlite3 rounds integers beyond 2^53).
    return this.result(merge, { pushLimit: distinct === undefined, listedOrder, exactIntegers: listedOrder !== undefined && this.ctx.dialect === 'sqlite' });
  }

  /** The result column holding a column's values: its select item, the star, or a hidden column. */
  private resultColumnOf(column: ColumnNode): string {
    const index = this.itemIndexOf(column, false);
    if (index !== undefined) return this.itemColumn(index);
    if (this.hasStar) return column.column;
    return this.derive(this.printOrRefuse(column, 'a listed key column'), 'listed');
  }

  // --- groups that span shards: merge partial aggregates, then evaluate, filter, order ----

  private aggregateMerge(): SelectMergePlan {
    const { select, dialect } = this.ctx;
    this.mode = 'aggregate';
    const groupBy: GroupKey[] = select.groupBy.map((g) => {
      const index = this.itemIndexOf(g, true);
      const expr = index === undefined ? g : select.items[index]!.expr;
      if (containsAggregate(expr)) throw new Refused('GROUP BY an aggregate');
      return this.groupKey(expr, index);
    });
    select.items.forEach((item, index) => {
      if (item.expr.kind === 'aggregate') this.aggregateColumn(item.expr, index);
    });
    select.items.forEach((item, index) => {
      if (item.expr.kind !== 'aggregate' && containsAggregate(item.expr)) {
        this.compute(item.expr, this.itemColumn(index));
        this.computedColumns.set(index, this.itemColumn(index));
      }
    });
    if (dialect === 'mysql' && select.having && someNode(select.having, (n) => n.kind === 'function' && n.name === 'NULLIF' && n.args.some(containsAggregate))) {
      // MariaDB 10.11 answers `HAVING NULLIF(COUNT(*), 0) >= 2` with no group at all (while
      // `NULLIF(COUNT(*), 0) >= 2` in the select list is 1): the merge would not follow it.
      throw new Refused('HAVING NULLIF(aggregate, …): MariaDB evaluates it inconsistently; compare the aggregate itself');
    }
    const { onShards, afterMerge } = this.splitHaving(select.having);
    const having = afterMerge ? this.compiled(afterMerge, 'HAVING') : undefined;
    const orderBy = this.sortKeys((index) => this.itemColumn(index));
    // A global aggregate whose shards group by DISTINCT values (of its items, HAVING or ORDER
    // BY) may get no row at all: its constant items are then computed, not taken from a shard's row.
    if (groupBy.length === 0 && this.extraGroupBy.length > 0) {
      select.items.forEach((item, index) => {
        if (!someNode(item.expr, (n) => n.kind === 'column' || n.kind === 'aggregate' || n.kind === 'star')) this.compute(item.expr, this.itemColumn(index));
      });
    }
    const columns = groupBy.length === 0 ? { columns: select.items.map((_, i) => this.itemColumn(i)) } : {};
    const merge: MergeSpec = {
      kind: orderBy.length > 0 ? 'ordered' : 'concat',
      ...(orderBy.length > 0 ? { orderBy } : {}),
      groupBy,
      aggregates: this.aggregates,
      ...columns,
      ...(select.distinct ? { distinct: { columns: select.items.map((item, index) => this.distinctKeyOf(item.expr, index)) } } : {}),
      ...(this.hidden.length > 0 ? { strip: [...this.hidden] } : {}),
    } as MergeSpec;
    const checkOriginal = afterMerge !== undefined && columnOutsideAggregates(afterMerge);
    return this.result(merge, { pushLimit: false, cutHaving: select.having !== undefined, shardHaving: onShards, having, checkOriginal, exactIntegers: dialect === 'sqlite' });
  }

  /**
   * HAVING terms that read group keys only (`HAVING yr > 2000` under `GROUP BY yr`) have the
   * same value on every shard's part of a group: they stay on the shards, where the server
   * applies its own conversions (MariaDB reads `yr > 2.5` of a YEAR as `yr > 2003`), and
   * fewer groups travel. The other terms are evaluated on whole groups after the merge.
   */
  private splitHaving(having: SqlNode | undefined): { onShards: PrintedSql | undefined; afterMerge: SqlNode | undefined } {
    // Without GROUP BY the merge makes the one global row even when no shard sends one: its
    // HAVING is decided after the merge, on that row.
    if (this.ctx.select.groupBy.length === 0) return { onShards: undefined, afterMerge: having };
    const terms = conjunctsOf(having);
    const keys = this.ctx.select.groupBy.map((g) => this.itemExpr(g));
    const local = terms.filter((t) => this.decidedByGroupKeys(t, keys));
    const printed = local.length > 0 ? this.print(andOf(local)) : undefined;
    if (!printed) return { onShards: undefined, afterMerge: having };
    const rest = terms.filter((t) => !local.includes(t));
    return { onShards: printed, afterMerge: rest.length > 0 ? andOf(rest) : undefined };
  }

  /** True when `term` is a function of group keys whose equal values are identical (numbers, dates, SQLite BINARY text). */
  private decidedByGroupKeys(term: SqlNode, keys: readonly SqlNode[]): boolean {
    if (containsAggregate(term)) return false;
    if (someNode(term, (n) => n.kind === 'subquery' || n.kind === 'shard-evaluated' || n.kind === 'keyword' || n.kind === 'in-list' || n.kind === 'star' || (n.kind === 'function' && (n.over !== undefined || VOLATILE.has(n.name))))) return false;
    const columns: ColumnNode[] = [];
    someNode(term, (n) => {
      if (n.kind === 'column') columns.push(n);
      return false;
    });
    return columns.every((column) => {
      // A bare name may be a select alias or a column: both readings must be group keys.
      const readings: SqlNode[] = [column];
      if (column.table === undefined) {
        const aliased = this.ctx.select.items.find((i) => i.alias !== undefined && i.alias.toLowerCase() === column.column.toLowerCase());
        if (aliased) readings.push(aliased.expr);
      }
      return readings.every((r) => keys.some((k) => sameExpression(k, r)) && this.identicalWhenEqual(r));
    });
  }

  /** Equal values of `expr` are the same value (no case-insensitive text, no 1 = 1.0 of different forms). */
  private identicalWhenEqual(expr: SqlNode): boolean {
    const type = this.typer.typeOf(expr);
    if (type.kind === 'number') return type.class !== 'real' && type.inexact !== true;
    if (type.kind === 'temporal') return true;
    if (type.kind === 'text' && this.ctx.dialect === 'sqlite') {
      const ordering = orderingOf(type, 'sqlite', 'a group key');
      return ordering.kind === 'exact' && ordering.order.collation === 'binary';
    }
    return false;
  }

  // --- result columns ---------------------------------------------------------------------

  /** The item an ORDER BY / GROUP BY / HAVING reference names: by position, alias, equal expression or equal column. */
  private itemIndexOf(node: SqlNode, byPosition: boolean): number | undefined {
    const { items } = this.ctx.select;
    if (node.kind === 'literal' && typeof node.value === 'number' && byPosition) {
      const index = node.value - 1;
      if (!Number.isInteger(node.value) || index < 0 || index >= items.length) throw new Refused(`ORDER BY / GROUP BY position ${node.value} is not in the select list`);
      if (items.slice(0, index + 1).some((i) => i.expr.kind === 'star')) throw new Refused(`ORDER BY / GROUP BY position ${node.value} after a * in the select list`);
      return index;
    }
    if (node.kind === 'column' && node.table === undefined) {
      const byAlias = items.findIndex((i) => i.alias !== undefined && i.alias.toLowerCase() === node.column.toLowerCase());
      if (byAlias >= 0) return byAlias;
    }
    const equal = items.findIndex((i) => sameExpression(i.expr, node));
    if (equal >= 0) return equal;
    if (node.kind === 'column') {
      const sameColumn = items.findIndex(
        (i) => i.expr.kind === 'column' && i.expr.column === node.column && (i.expr.table === node.table || node.table === undefined || i.expr.table === undefined),
      );
      if (sameColumn >= 0) return sameColumn;
    }
    return undefined;
  }

  private itemExpr(node: SqlNode): SqlNode {
    try {
      const index = this.itemIndexOf(node, true);
      return index === undefined ? node : this.ctx.select.items[index]!.expr;
    } catch {
      return node;
    }
  }

  /** The result column of select item `index`; an unaliased expression gets an alias on the shards. */
  private itemColumn(index: number): string {
    const item = this.ctx.select.items[index]!;
    if (item.alias !== undefined) return item.alias;
    if (item.expr.kind === 'column') return item.expr.column;
    const existing = this.itemAliases.find((a) => a.index === index);
    if (existing) return existing.alias;
    const alias = `${DERIVED_PREFIX}item_${index}`;
    this.itemAliases.push({ index, alias });
    return alias;
  }

  /**
   * Adds a column to the shards' select list (once per text and kind) and strips it from the
   * result. Kinds stay apart: an aggregate's value column is consumed by the merge, while a
   * group or sort key column of the same text must survive it.
   */
  private derive(sql: PrintedSql, kind: string): string {
    const existing = this.derived.find((d) => d.expression === sql.text && this.kindOf.get(d.alias) === kind);
    if (existing) return existing.alias;
    const alias = this.freshName(kind);
    this.kindOf.set(alias, kind);
    this.derived.push({ expression: sql.text, alias, slots: sql.slots });
    this.hidden.push(alias);
    return alias;
  }

  /** A column name of its own (`__shard_<kind>_<n>`, n counted over every name the plan makes). */
  private freshName(kind: string): string {
    return `${DERIVED_PREFIX}${kind}_${this.names++}`;
  }

  private print(node: SqlNode): PrintedSql | undefined {
    return printSql(node, 'mysql');
  }

  private printOrRefuse(node: SqlNode, what: string): PrintedSql {
    const printed = this.print(node);
    if (!printed) throw new Refused(`${what} that the merge cannot send to the shards as a column`);
    return printed;
  }

  /** `nonNull`: a key that no outer join turns into NULL (see `resolveKey`). */
  private isShardKey(node: SqlNode, nonNull = false): boolean {
    return resolveKey(node, this.ctx.select, this.ctx.keyAliases, nonNull);
  }

  /** A GROUP BY / DISTINCT key: the column itself, or the key the server computes of it (`column-order.ts`). */
  private groupKey(expr: SqlNode, index: number | undefined): GroupKey {
    const ordering = this.orderingOfExpr(expr, 'a GROUP BY / DISTINCT key');
    if (ordering.kind === 'exact' && ordering.order.key) {
      const printed = this.printOrRefuse(expr, 'GROUP BY an expression');
      return { column: this.derive({ text: ordering.order.key(printed.text), slots: printed.slots }, 'key'), collation: ordering.order.collation };
    }
    const column = index !== undefined ? this.itemColumn(index) : this.derive(this.printOrRefuse(expr, 'GROUP BY an expression'), 'group');
    return { column, collation: ordering.kind === 'exact' ? ordering.order.collation : 'binary' };
  }

  /**
   * The DISTINCT key of a select item of an aggregating SELECT. An item over aggregates is
   * compared by its merged value, or by the key the merge keeps beside a MIN/MAX's winning
   * partial (a key the shards computed of their own partials would be stale after the merge).
   */
  private distinctKeyOf(expr: SqlNode, index: number): GroupKey {
    if (!containsAggregate(expr)) return this.groupKey(expr, index);
    const ordering = this.orderingOfExpr(expr, 'a DISTINCT item');
    if (ordering.kind !== 'exact') return { column: this.itemColumn(index), collation: 'binary' };
    const { collation, key } = ordering.order;
    const column = this.aggregatedSortColumn(expr, index);
    if (key === undefined) return { column, collation };
    const kept = expr.kind === 'aggregate' ? this.resultKeyOf(column, expr, key) : undefined;
    if (kept === undefined) throw new Refused('SELECT DISTINCT of an expression over aggregates that the server compares by its own key (text, dates): it cannot be computed after the merge');
    return { column: kept, collation };
  }

  /** How the database orders `expr`: an aggregate as its function and argument say, anything else by its type. */
  private orderingOfExpr(expr: SqlNode, what: string): OrderingOf {
    const { dialect } = this.ctx;
    if (expr.kind === 'aggregate' && expr.args.length === 1 && expr.args[0]!.kind !== 'star') {
      const arg = expr.args[0]!;
      const argOrder = orderingOf(this.typer.typeOf(arg), dialect, `the argument of ${expr.name}()`);
      if (argOrder.kind !== 'constant' && (expr.name === 'MIN' || expr.name === 'MAX')) return aggregateOrderOf(expr.name, argOrder, this.print(arg)?.text, dialect);
    }
    const ordering = orderingOf(this.typer.typeOf(expr), dialect, what);
    if (ordering.kind === 'refused') throw new Refused(ordering.reason);
    return ordering;
  }

  /** The result column holding a merged aggregate (a select item's, or a hidden one). */
  private aggregateColumn(node: AggregateNode, itemIndex?: number): { column: string; type: ExprType; shownRounded?: boolean; fullPrecision?: boolean } {
    // Any column that holds the merged aggregate will do, except for a select item of its own:
    // `SELECT COUNT(*), COUNT(*) AS n` merges both columns.
    const known = this.aggregateColumns.find((a) => sameExpression(a.node, node) && (itemIndex === undefined || a.item === itemIndex));
    if (known) return known;
    const index = itemIndex ?? this.ctx.select.items.findIndex((i) => sameExpression(i.expr, node));
    // A select item's aggregate is merged into its column; any other is added to the shards'
    // select list (when it can be written there) so that its partial results come back.
    const printed = index >= 0 ? undefined : this.print(node);
    const present = index >= 0 || printed !== undefined;
    const column = index >= 0 ? this.itemColumn(index) : printed ? this.derive(printed, 'agg') : this.freshName('agg');
    const spec = planAggregate(node, column, present, {
      dialect: this.ctx.dialect,
      typer: this.typer,
      print: (n) => this.print(n),
      derive: (sql, kind) => this.derive(sql, kind),
      groupByValue: (node, sql) => {
        if (!someNode(node, (n) => n.kind === 'column')) return;
        if (!this.extraGroupBy.some((g) => g.text === sql.text)) this.extraGroupBy.push(sql);
      },
      isShardKey: (n) => this.isShardKey(n),
      groupsByValues: this.groupsByValues,
    });
    if ('problem' in spec) throw new Refused(spec.problem);
    if (!present && !this.hidden.includes(column)) this.hidden.push(column);
    this.aggregates.push(spec);
    if (spec.fn === 'VARIANCE' && spec.decimals !== undefined) {
      // The server shows an exact argument's variance rounded to scale + 4 places, but computes
      // with the full value: an expression, HAVING or ORDER BY over it reads a full-precision copy.
      const full = this.freshName('var_full');
      this.hidden.push(full);
      this.aggregates.push({ ...spec, alias: full, decimals: undefined });
      const entry = { node, column: full, type: this.typer.typeOf(node), item: index >= 0 ? index : undefined, shownRounded: true };
      this.aggregateColumns.push(entry);
      return entry;
    }
    // A sum kept at full precision beside its shown value: expressions and ORDER BY read the full one, as the server does.
    const valueColumn =
      spec.fn === 'SUM' && spec.exactAlias !== undefined ? spec.exactAlias : (spec.fn === 'MIN' || spec.fn === 'MAX') && spec.keyIsExactValue && spec.keyColumn ? spec.keyColumn : column;
    const entry = { node, column: valueColumn, type: this.typer.typeOf(node), item: index >= 0 ? index : undefined, fullPrecision: valueColumn !== column };
    this.aggregateColumns.push(entry);
    return entry;
  }

  /** Leaves of an evaluated expression: aggregates (merged), select aliases, group columns. */
  private readonly resolveLeaf: LeafResolver = (node) => {
    if (node.kind === 'aggregate') return this.aggregateColumn(node);
    const index = this.itemIndexOf(node, false);
    if (index !== undefined) {
      const item = this.ctx.select.items[index]!;
      if (item.expr.kind === 'aggregate') return this.aggregateColumn(item.expr, index);
      if (containsAggregate(item.expr)) {
        const column = this.computedColumns.get(index);
        return column ? { column, type: this.typer.typeOf(item.expr) } : { problem: 'a reference to a computed select item before it is computed' };
      }
      return { column: this.itemColumn(index), type: this.typer.typeOf(item.expr) };
    }
    const printed = this.print(node);
    if (!printed) return { problem: 'an expression the merge cannot send to the shards' };
    return { column: this.derive(printed, 'group'), type: this.typer.typeOf(node) };
  };

  /**
   * An aggregate-free part of an evaluated expression that reads table columns (no select
   * alias, which the shards' select list cannot name): the shards compute it.
   */
  private readonly computableOnShards = (n: SqlNode): boolean =>
    !containsAggregate(n) &&
    someNode(n, (x) => x.kind === 'column') &&
    !someNode(n, (x) => x.kind === 'subquery' || (x.kind === 'column' && x.table === undefined && this.ctx.select.items.some((i) => i.alias?.toLowerCase() === x.column.toLowerCase())));

  private compiled(node: SqlNode, what: string): CompiledExpression {
    const rounded = this.roundedFloatAggregate(node);
    if (rounded) {
      throw new Refused(
        `${what} applies ${rounded}() to a floating-point aggregate: the shards add the values in another order than one database does, and rounding turns a difference in the last digit into another answer (CAST the column AS DECIMAL for exact sums, or round in the application)`,
      );
    }
    const scalar = scalarOf(node, this.resolveLeaf, this.ctx.dialect, this.computableOnShards, (n) => this.typer.typeOf(n));
    if ('problem' in scalar) throw new Refused(`${what} holds ${scalar.problem} around aggregates; it cannot be evaluated after merging partial results`);
    return compileExpression(scalar, semanticsOf(this.ctx.dialect));
  }

  /** The rounding function (ROUND, FLOOR, …) the expression applies to a SUM / AVG / … of floating-point values, if any. */
  private roundedFloatAggregate(node: SqlNode): string | undefined {
    let found: string | undefined;
    forEachNode(node, (n) => {
      if (found || n.kind !== 'function' || !ROUNDING_FUNCTIONS.has(n.name.toUpperCase())) return;
      const argument = n.args[0];
      if (!argument) return;
      // What is added up decides: integers (and MySQL decimals) add exactly in any order; SQLite has no exact fractions.
      // A SQLite column of an integer type counts as integers (what TypeORM writes there), though SQLite would store a fraction too.
      const integerColumn = (t: ExprType) => t.column !== undefined && /int|bool/i.test(String(t.column.type));
      const inexact = (t: ExprType) =>
        t.kind !== 'number' || t.inexact === true ? t.kind !== 'text' && t.kind !== 'temporal' && !integerColumn(t) : this.ctx.dialect === 'sqlite' ? t.class !== 'int' : t.class === 'real';
      const floating = aggregatesOf(argument).some((a) => !['MIN', 'MAX', 'COUNT'].includes(a.name.toUpperCase()) && a.args[0] !== undefined && inexact(this.typer.typeOf(a.args[0])));
      if (floating) found = n.name.toUpperCase();
    });
    return found;
  }

  private compute(node: SqlNode, column: string): void {
    // MariaDB shows such an expression with the variance's places (`STDDEV(qty) * 10` → 58.8548),
    // a display rule of DOUBLE results that the evaluator does not model.
    const variance = aggregatesOf(node).find((a) => this.aggregateColumn(a).shownRounded === true);
    if (variance) throw new Refused(`A select item computes over ${variance.name}() of an exact argument, which the server shows with a fixed number of decimals (select the aggregate as an item of its own, or CAST it AS DOUBLE)`);
    this.computed.push({ column, expression: this.compiled(node, 'A select item'), label: column });
  }

  // --- ORDER BY -----------------------------------------------------------------------------

  private sortKeys(columnOfItem: (index: number) => string): SortKey[] {
    const { select } = this.ctx;
    const keys: SortKey[] = [];
    for (const [position, item] of select.orderBy.entries()) {
      const index = this.itemIndexOf(item.expr, true);
      const expr = index === undefined ? item.expr : select.items[index]!.expr;
      // The same value on every row (`ORDER BY (0.5 + 0)`, a pulled-out subquery's value) orders nothing.
      if (isConstant(expr)) continue;
      const ordering = this.orderingOfExpr(expr, `ORDER BY item ${position + 1} (${describeExpression(item.expr, this.ctx.dialect)})`);
      if (ordering.kind === 'constant') continue;
      if (ordering.kind === 'refused') throw new Refused(ordering.reason);
      const { type, collation, key } = ordering.order;
      const direction = item.direction;
      const nulls = item.nulls ? { nulls: item.nulls === 'FIRST' ? ('first' as const) : ('last' as const) } : {};
      if (this.mode === 'aggregate' && containsAggregate(expr)) {
        // The merged value (or the key the merge keeps beside a MIN/MAX).
        const column = this.aggregatedSortColumn(expr, index);
        if (key === undefined) keys.push({ column, direction, type, collation, ...nulls });
        else {
          const kept = expr.kind === 'aggregate' ? this.resultKeyOf(column, expr, key) : undefined;
          if (kept === undefined) throw new Refused('ORDER BY an expression over aggregates that the server orders by its own key (text, dates): it cannot be computed after the merge');
          keys.push({ column: kept, direction, type, collation, ...nulls });
        }
        continue;
      }
      let column: string;
      if (key !== undefined) {
        // A key the server computes (text weights, `col + 0` of dates and ENUMs …): its order, exactly.
        const printed = this.printOrRefuse(expr, 'ORDER BY an expression');
        column = this.derive({ text: key(printed.text), slots: printed.slots }, 'key');
      } else if (index !== undefined) {
        column = columnOfItem(index);
      } else if (this.hasStar && expr.kind === 'column') {
        column = expr.column;
      } else {
        column = this.derive(this.printOrRefuse(expr, 'ORDER BY an expression'), 'sort');
      }
      keys.push({ column, direction, type, collation, ...nulls });
    }
    return keys;
  }

  private unionSafe(): boolean {
    // MariaDB 10.11 types AVG(DISTINCT …) of a derived table's constant too narrowly inside a
    // UNION ALL branch (AVG(DISTINCT 10) comes out as 9.9999): such reads keep one statement per shard.
    if (this.ctx.select.items.some((item) => someNode(item.expr, (n) => n.kind === 'aggregate' && n.name === 'AVG' && n.distinct))) return false;
    // MariaDB refuses a window function in the ORDER BY of a UNION branch (error 4015), though one
    // SELECT takes it: such reads keep one statement per shard.
    if (this.ctx.select.orderBy.some((o) => containsWindow(o.expr))) return false;
    if (this.hasStar) return ![...this.ctx.rules.all()].some((t) => t.metadata.columns.some((c) => columnFactsOf(c, this.ctx.dialect).type === 'bit'));
    return !this.ctx.select.items.some((item) => someNode(item.expr, (n) => {
      if (n.kind !== 'column') return false;
      const type = this.typer.typeOf(n);
      return type.column !== undefined && columnFactsOf(type.column, this.ctx.dialect).type === 'bit';
    }));
  }

  /** The column holding an ORDER BY key that contains aggregates: the item's, a merged aggregate's, or an evaluated one's. */
  private aggregatedSortColumn(expr: SqlNode, index: number | undefined): string {
    if (expr.kind === 'aggregate') return this.aggregateColumn(expr, index).column;
    if (index !== undefined) return this.itemColumn(index);
    const column = this.freshName('sort');
    this.hidden.push(column);
    this.compute(expr, column);
    return column;
  }

  /**
   * The column holding the server's ORDER BY key of a merged MIN/MAX: the key it was chosen
   * by, or (ENUM: chosen by text, ordered by position) a key taken from the winning shard's row.
   */
  private resultKeyOf(column: string, aggregate: AggregateNode, key: (sql: string) => string): string | undefined {
    const at = this.aggregates.findIndex((a) => a.alias === column);
    const spec = this.aggregates[at];
    if (!spec || (spec.fn !== 'MIN' && spec.fn !== 'MAX') || spec.keyColumn === undefined) return undefined;
    const printed = this.print(aggregate);
    if (!printed) return undefined;
    const text = key(printed.text);
    if (this.derived.find((d) => d.alias === spec.keyColumn)?.expression === text) return spec.keyColumn;
    const companion = this.derive({ text, slots: printed.slots }, 'result_key');
    if (!spec.companions?.includes(companion)) this.aggregates[at] = { ...spec, companions: [...(spec.companions ?? []), companion] };
    return companion;
  }

  private result(merge: MergeSpec, fields: Partial<SelectMergePlan>): SelectMergePlan {
    return {
      merge,
      derivedColumns: this.derived,
      extraGroupBy: this.extraGroupBy,
      computed: this.computed,
      having: undefined,
      itemAliases: this.itemAliases,
      listedOrder: undefined,
      pushLimit: true,
      cutHaving: false,
      shardHaving: undefined,
      checkOriginal: false,
      unionSafe: this.unionSafe(),
      exactIntegers: false,
      unmergeable: undefined,
      ...fields,
    };
  }
}

/** Functions whose result jumps where their argument crosses a boundary: a last-digit difference of a float can change them. */
const ROUNDING_FUNCTIONS = new Set(['ROUND', 'FLOOR', 'CEIL', 'CEILING', 'TRUNCATE', 'TRUNC']);
