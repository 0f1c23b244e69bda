import { ShardingInternalError } from '../errors/index.js';
import type { ParameterizedSql, SqlDialect, ValueSlot } from '../parameterize/index.js';
import { spliceSql } from '../parameterize/index.js';
import type { DerivedColumn, LimitPlan } from '../plan/plan.js';
import { shardRowCount, type Pagination } from '../plan/pagination.js';
import type { PrintedSql } from '../plan/print-sql.js';
import { selectItemSpans } from '../plan/select-item-names.js';
import type { RouteUnit } from '../route/index.js';
import type { PhysicalStatement } from './physical-statement.js';
import { topLevelClauses } from './top-level-clauses.js';

/** What the rewrite needs beyond the route unit; all of it is the same for every unit of a statement. */
export interface RewriteContext {
  readonly p: ParameterizedSql;
  readonly dialect: SqlDialect;
  /** True when several physical statements run: LIMIT and derived columns are then needed. */
  readonly scatter: boolean;
  /** The statement's LIMIT slots and its page (see `plan/pagination.ts`); undefined without LIMIT. */
  readonly limit: LimitPlan | undefined;
  readonly page: Pagination | undefined;
  /** Remove the outer HAVING: groups span shards and the merge evaluates it on whole groups. */
  readonly cutHaving: boolean;
  /** With `cutHaving`: the HAVING the shards keep instead (terms over group keys only). */
  readonly shardHaving?: PrintedSql | undefined;
  readonly derivedColumns: readonly DerivedColumn[];
  /** Expressions appended to the GROUP BY (the merge needs the values of DISTINCT aggregates). */
  readonly extraGroupBy: readonly PrintedSql[];
  /** Unaliased select items given an alias for the merge (it renames them back). */
  readonly itemAliases: readonly { readonly index: number; readonly alias: string }[];
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * Writes the physical statement of one route unit by splicing the original text: pruned IN
 * lists, `LIMIT offset+count` from offset 0, and derived columns. Everything else — other
 * predicates, comments, parameters — is kept byte for byte.
 */
export function rewriteUnit(unit: RouteUnit, ctx: RewriteContext): PhysicalStatement {
  const { p } = ctx;
  const fast = onlyOneListCut(unit, ctx);
  if (fast) return fast;
  const edits: Edit[] = [];
  const dropped = new Set<number>();
  const replacedParams = new Map<number, unknown>();

  // A cut list's `?`s are a contiguous run of parameters: it is replaced by the kept ones, so a
  // unit costs O(its own values), not O(the whole list) — a 5,000-value list in many batches.
  const cutLists: { first: number; last: number; kept: unknown[] }[] = [];
  for (const [listIndex, keep] of unit.lists) {
    const list = p.inLists[listIndex]!;
    if (keep.length === list.items.length) continue;
    edits.push({ start: list.open + 1, end: list.close, text: listText(p.sql, keep) });
    const range = paramRangeOf(list.items);
    if (range) {
      const kept: unknown[] = [];
      for (const i of keep) if (i.paramIndex !== undefined) kept.push(p.parameters[i.paramIndex]);
      cutLists.push({ ...range, kept });
    }
  }

  if (ctx.scatter && ctx.limit && ctx.page) {
    setSlot(p.slots[ctx.limit.countSlot]!, shardRowCount(ctx.page, ctx.dialect), edits, replacedParams);
    if (ctx.limit.offsetSlot !== undefined) setSlot(p.slots[ctx.limit.offsetSlot]!, '0', edits, replacedParams);
  }

  const insertions = new Map<number, unknown[]>();
  if (ctx.scatter && (ctx.derivedColumns.length > 0 || ctx.cutHaving || ctx.extraGroupBy.length > 0 || ctx.itemAliases.length > 0)) {
    const clauses = topLevelClauses(p, ctx.dialect);
    /** Inserts `text` at `at`, with the values of its `?`s at the matching place of the parameter list. */
    const insert = (at: number, text: string, values: readonly unknown[]) => {
      edits.push({ start: at, end: at, text });
      if (values.length === 0) return;
      const position = parametersBefore(p, at);
      insertions.set(position, [...(insertions.get(position) ?? []), ...values]);
    };
    const spans = ctx.itemAliases.length > 0 ? selectItemSpans(p, ctx.dialect) : [];
    for (const { index, alias } of ctx.itemAliases) {
      const span = spans[index];
      if (!span) throw new ShardingInternalError(`select item ${index + 1} not found in the statement text`, { stage: 'rewrite', sql: p.sql });
      edits.push({ start: span.end, end: span.end, text: ` AS ${quoteFor(`\`${alias}\``, ctx.dialect)}` });
    }
    if (ctx.derivedColumns.length > 0) {
      const values: unknown[] = [];
      const text = ctx.derivedColumns.map((d) => `, ${withSlots(d.expression, ctx, values)} AS ${quoteFor(`\`${d.alias}\``, ctx.dialect)}`).join('') + ' ';
      insert(clauses.from, text, values);
    }
    if (ctx.extraGroupBy.length > 0) {
      const values: unknown[] = [];
      const list = ctx.extraGroupBy.map((g) => withSlots(g.text, ctx, values)).join(', ');
      insert(clauses.groupByEnd, clauses.groupBy ? `, ${list}` : ` GROUP BY ${list}`, values);
    }
    if (ctx.cutHaving && clauses.having >= 0) {
      // Values inside HAVING go with it; those of the kept terms (`shardHaving`) come back with them.
      for (const slot of p.slots) if (slot.start >= clauses.having && slot.end <= clauses.havingEnd && slot.paramIndex !== undefined) dropped.add(slot.paramIndex);
      const values: unknown[] = [];
      const kept = ctx.shardHaving ? `HAVING ${withSlots(ctx.shardHaving.text, ctx, values)} ` : '';
      edits.push({ start: clauses.having, end: clauses.havingEnd, text: kept });
      if (values.length > 0) {
        const position = parametersBefore(p, clauses.having);
        insertions.set(position, [...(insertions.get(position) ?? []), ...values]);
      }
    }
  }

  const sql = edits.length === 0 ? p.sql : spliceSql(p.sql, edits);
  let parameters: readonly unknown[] = p.parameters;
  if (cutLists.length > 0 || dropped.size > 0 || replacedParams.size > 0 || insertions.size > 0) {
    const out: unknown[] = [];
    const cuts = cutLists.sort((a, b) => a.first - b.first);
    let c = 0;
    for (let i = 0; ; ) {
      const inserted = insertions.get(i);
      if (inserted) out.push(...inserted);
      if (i >= p.parameters.length) break;
      const cut = cuts[c];
      if (cut && cut.first === i) {
        out.push(...cut.kept);
        i = cut.last + 1;
        c++;
        continue;
      }
      if (!dropped.has(i)) out.push(replacedParams.has(i) ? replacedParams.get(i) : p.parameters[i]);
      i++;
    }
    parameters = out;
  }
  return { shard: unit.shard, sql, parameters };
}

/** Sets a LIMIT slot: literal text is replaced, a `?` gets a new parameter value. */
function setSlot(slot: ValueSlot, value: string, edits: Edit[], params: Map<number, unknown>): void {
  if (slot.paramIndex === undefined) edits.push({ start: slot.start, end: slot.end, text: value });
  // A count beyond 2^53 (MySQL's 2^64 - 1 "no limit") as a bigint: the drivers write it as a number, never quoted.
  else params.set(slot.paramIndex, Number.isSafeInteger(Number(value)) ? Number(value) : BigInt(value));
}

/**
 * A planner expression in the dialect's quoting, its value slots written as this statement
 * writes them: a literal's own text, or a `?` whose value is appended to `values`.
 */
function withSlots(expression: string, ctx: RewriteContext, values: unknown[]): string {
  // The NUL-delimited slot markers of `slotMarker` (a character no SQL text holds).
  // eslint-disable-next-line no-control-regex
  return quoteFor(expression, ctx.dialect).replace(/\u0000(\d+)\u0000/g, (_, n: string) => {
    const slot = ctx.p.slots[Number(n)]!;
    if (slot.paramIndex === undefined) return ctx.p.sql.slice(slot.start, slot.end);
    values.push(ctx.p.parameters[slot.paramIndex]);
    return '?';
  });
}

/** How many `?` parameters the statement has before offset `at`. */
function parametersBefore(p: ParameterizedSql, at: number): number {
  let n = 0;
  for (const slot of p.slots) if (slot.paramIndex !== undefined && slot.start < at) n++;
  for (const list of p.inLists) for (const item of list.items) if (item.paramIndex !== undefined && item.start < at) n++;
  return n;
}

/** Planner expressions quote identifiers with backticks; SQLite wants double quotes. */
function quoteFor(expression: string, dialect: SqlDialect): string {
  if (dialect === 'mysql') return expression;
  return expression.replace(/`((?:[^`]|``)*)`/g, (_, name: string) => `"${name.replace(/``/g, '`').replace(/"/g, '""')}"`);
}

/** First and last parameter index of a list's `?` items (found from both ends: O(1) when they are `?`s). */
function paramRangeOf(items: readonly ValueSlot[]): { first: number; last: number } | undefined {
  let a = 0;
  while (a < items.length && items[a]!.paramIndex === undefined) a++;
  if (a === items.length) return undefined;
  let b = items.length - 1;
  while (items[b]!.paramIndex === undefined) b--;
  return { first: items[a]!.paramIndex!, last: items[b]!.paramIndex! };
}

/**
 * The common case on the hot path — one IN list cut for this shard, nothing else to change
 * (a `find(In(ids))` reaching several shards): two slices, no edit list, no parameter scan.
 */
function onlyOneListCut(unit: RouteUnit, ctx: RewriteContext): PhysicalStatement | undefined {
  if (unit.lists.size !== 1 || (ctx.scatter && (ctx.limit || ctx.derivedColumns.length > 0 || ctx.cutHaving || ctx.extraGroupBy.length > 0 || ctx.itemAliases.length > 0))) return undefined;
  const { p } = ctx;
  const [listIndex, keep] = unit.lists.entries().next().value as [number, readonly ValueSlot[]];
  const list = p.inLists[listIndex]!;
  if (keep.length === list.items.length) return { shard: unit.shard, sql: p.sql, parameters: p.parameters };
  const sql = p.sql.slice(0, list.open + 1) + listText(p.sql, keep) + p.sql.slice(list.close);
  const range = paramRangeOf(list.items);
  if (!range) return { shard: unit.shard, sql, parameters: p.parameters };
  const parameters = p.parameters.slice(0, range.first);
  for (const item of keep) if (item.paramIndex !== undefined) parameters.push(p.parameters[item.paramIndex]);
  for (let i = range.last + 1; i < p.parameters.length; i++) parameters.push(p.parameters[i]);
  return { shard: unit.shard, sql, parameters };
}

/** The text of a cut IN list: its kept items' own spellings, comma-separated. */
function listText(sql: string, keep: readonly ValueSlot[]): string {
  let allPlaceholders = true;
  for (const item of keep) {
    if (item.end - item.start !== 1 || sql.charCodeAt(item.start) !== 63 /* ? */) {
      allPlaceholders = false;
      break;
    }
  }
  // The usual list is all `?`: no slicing and joining needed.
  if (allPlaceholders) return keep.length === 0 ? '' : `${'?, '.repeat(keep.length - 1)}?`;
  return keep.map((i) => sql.slice(i.start, i.end)).join(', ');
}
