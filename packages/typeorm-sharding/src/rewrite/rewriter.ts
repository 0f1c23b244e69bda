/**
 * The rewrite of one routed statement, composed from one token generator per concern (see
 * `sql-token.ts`): the IN lists each route unit cuts, and — when several statements run — the
 * row count, aliases for unaliased items, derived columns, extra GROUP BY values and the HAVING
 * the merge takes over; then each unit's table names: its physical table under a table-per-shard
 * layout, qualified with its shard's database. The
 * statement-wide tokens are made once, each unit's own ones per unit, and one splice per unit
 * applies them.
 */
import type { ParameterizedSql, SqlDialect } from '../parameterize/index.js';
import type { Pagination } from '../plan/select/pagination.js';
import type { DerivedColumn, LimitPlan, PrunableOr } from '../plan/plan.js';
import type { PrintedSql } from '../plan/nodes/print-sql.js';
import type { RouteUnit } from '../route/index.js';
import type { PhysicalStatement } from './physical-statement.js';
import { applyTokens, type SqlToken } from './sql-token.js';
import { inStartOrderInPlace } from '../parameterize/index.js';
import { topLevelClauses } from './top-level-clauses.js';
import { derivedColumnTokens } from './tokens/derived-columns.js';
import { groupByTokens } from './tokens/group-by.js';
import { havingTokens } from './tokens/having.js';
import { inListTokens } from './tokens/in-list.js';
import { orSpansOf, orTermTokens, type OrSpan } from './tokens/or-terms.js';
import { itemAliasTokens } from './tokens/item-aliases.js';
import { qualifyTokens } from './tokens/qualify.js';
import { tableNameTokens, type LayoutNaming } from './tokens/table-names.js';
import { rowCountTokens, windowTokens } from './tokens/row-count.js';
import { branchTagToken } from './tokens/branch-tag.js';
import type { PageWindow } from '../plan/select/page-window.js';

/** Each unit's statement names its tables with its shard's database: where, and which database. */
export interface Addressing {
  /** Offsets of the table names (see `tokens/qualify.ts`). */
  readonly sites: readonly number[];
  readonly databaseOf: (shard: number) => string;
}

/** What the rewrite needs beyond the route units; all of it is the same for every unit of a statement. */
export interface RewriteContext {
  readonly p: ParameterizedSql;
  readonly dialect: SqlDialect;
  /** True when several physical statements run: the row count and derived columns are then needed. */
  readonly scatter: boolean;
  /** The statement's LIMIT slots and its page (see `plan/select/pagination.ts`); undefined without LIMIT. */
  readonly limit: LimitPlan | undefined;
  readonly page: Pagination | undefined;
  /** A page read by windows: each unit's LIMIT is the window's (`rows` from position `start`), not `offset+count` from row 0. */
  readonly window?: Pick<PageWindow, 'start' | 'rows'> | undefined;
  /**
   * Each unit's rows carry its shard index in a column of this name, appended to the select
   * list (a capped shallow page proves its inputs by it: `tokens/branch-tag.ts`).
   */
  readonly branchTag?: string | undefined;
  /** Remove the outer HAVING: groups span shards and the merge evaluates it on whole groups. */
  readonly cutHaving: boolean;
  /** With `cutHaving`: the HAVING the shards keep instead (terms over group keys only). */
  readonly shardHaving?: PrintedSql | undefined;
  readonly derivedColumns: readonly DerivedColumn[];
  /** Expressions appended to the GROUP BY (the merge needs the values of DISTINCT aggregates). */
  readonly extraGroupBy: readonly PrintedSql[];
  /** Unaliased select items given an alias for the merge (it renames them back). */
  readonly itemAliases: readonly { readonly index: number; readonly alias: string }[];
  /** MySQL: name the tables with each shard's database; undefined: as written. */
  readonly addressing?: Addressing | undefined;
  /** The statement names tables with a table-per-shard layout: each unit's statement names its own physical tables. */
  readonly layout?: LayoutNaming | undefined;
  /** SQLite: the statements read integers as bigint (see `PhysicalStatement.exactIntegers`). */
  readonly exactIntegers?: boolean;
  /** The plan's prunable ORs, which the units' `ors` cut down (see `tokens/or-terms.ts`). */
  readonly prunableOrs?: readonly PrunableOr[] | undefined;
}

/** The tokens every unit of the statement shares: none unless several statements run. */
export function statementTokens(ctx: RewriteContext): SqlToken[] {
  if (!ctx.scatter) return [];
  const { p, dialect } = ctx;
  const tokens: SqlToken[] = [];
  if (ctx.limit && ctx.page) tokens.push(...(ctx.window ? windowTokens(p, ctx.limit, ctx.window) : rowCountTokens(p, ctx.limit, ctx.page, dialect)));
  tokens.push(...itemAliasTokens(p, dialect, ctx.itemAliases));
  if (ctx.derivedColumns.length > 0 || ctx.extraGroupBy.length > 0 || ctx.cutHaving) {
    const clauses = topLevelClauses(p, dialect);
    tokens.push(...derivedColumnTokens(p, dialect, ctx.derivedColumns, clauses));
    tokens.push(...groupByTokens(p, dialect, ctx.extraGroupBy, clauses));
    if (ctx.cutHaving) tokens.push(...havingTokens(p, dialect, ctx.shardHaving, clauses));
  }
  return tokens;
}

/** The physical statement of each route unit. */
export function rewriteUnits(units: readonly RouteUnit[], ctx: RewriteContext): PhysicalStatement[] {
  const shared = statementTokens(ctx);
  const spans = units.some((u) => u.ors) ? orSpans(ctx, shared) : [];
  return units.map((unit) => rewriteUnit(unit, ctx, shared, spans));
}

/** The physical statement of one route unit; `shared` are the statement's tokens (`statementTokens`), `spans` its ORs' (`orSpans`). */
export function rewriteUnit(unit: RouteUnit, ctx: RewriteContext, shared: readonly SqlToken[] = statementTokens(ctx), spans: readonly (OrSpan | undefined)[] = unit.ors ? orSpans(ctx, shared) : []): PhysicalStatement {
  const lists = inListTokens(ctx.p, unit);
  const cut = unit.ors ? [...lists, ...orTermTokens(spans, unit)] : lists;
  // After the derived columns (shared tokens at the same place come first).
  const own = ctx.branchTag === undefined ? cut : [...cut, branchTagToken(ctx.p, ctx.dialect, ctx.branchTag, unit.shard)];
  return unitStatement(unit, ctx.p, shared.length === 0 ? own : own.length === 0 ? shared : [...shared, ...own], ctx);
}

/**
 * Where the plan's prunable ORs are in the text; an OR that another token of the statement
 * reaches into (a table name qualified or renamed inside it) is left whole.
 */
function orSpans(ctx: RewriteContext, shared: readonly SqlToken[]): (OrSpan | undefined)[] {
  const spans = orSpansOf(ctx.p, ctx.dialect, ctx.prunableOrs ?? []);
  const offsets: number[] = [...(ctx.addressing?.sites ?? [])];
  for (const t of [...shared, ...(ctx.layout ? tableNameTokens(ctx.layout, 0) : [])]) offsets.push(t.start, t.end);
  return spans.map((span) => (span && offsets.some((at) => at >= span.inner && at <= span.close) ? undefined : span));
}

const NO_TOKENS: readonly SqlToken[] = Object.freeze([]);

/** Where a statement runs: a shard, and its physical table there under a layout. */
export interface UnitPlace {
  readonly shard: number;
  readonly table?: number | undefined;
}

/**
 * The statement of `unit` made of `p` and `tokens`, with its tables named for the unit: the
 * unit's physical tables (a layout), qualified with its shard's database (when asked).
 */
export function unitStatement(unit: UnitPlace, p: ParameterizedSql, tokens: readonly SqlToken[], ctx: Pick<RewriteContext, 'addressing' | 'exactIntegers' | 'layout'>): PhysicalStatement {
  const { addressing, layout } = ctx;
  let all = tokens;
  if (addressing || layout) {
    const qualified = addressing ? qualifyTokens(addressing.sites, addressing.databaseOf(unit.shard)) : NO_TOKENS;
    const named = layout ? tableNameTokens(layout, unit.table ?? 0) : NO_TOKENS;
    // One array, in start order (applyTokens then keeps it as it is). The database goes in front
    // of the name first: both start where the table's name does.
    all = inStartOrderInPlace([...tokens, ...qualified, ...named]);
  }
  const { sql, parameters } = applyTokens(p, all);
  const statement: { -readonly [K in keyof PhysicalStatement]: PhysicalStatement[K] } = { shard: unit.shard, sql, parameters };
  if (layout) statement.table = unit.table ?? 0;
  if (addressing) statement.qualified = true;
  if (ctx.exactIntegers) statement.exactIntegers = true;
  return statement;
}
