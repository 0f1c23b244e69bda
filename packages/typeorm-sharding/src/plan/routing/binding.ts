import { UnsupportedShardingError } from '../../errors/index.js';
import type { ShardingRules } from '../../rules/index.js';
import { colocatedJoinsOf } from './colocated-joins.js';
import type { ColumnNode, FromItem, SelectNode, SqlNode } from '../nodes/sql-node.js';
import { allSelectsOf, conjunctsOf, derivedQueriesOf } from '../nodes/sql-tree.js';
import type { TableRef } from '../nodes/table-refs.js';

/**
 * Every sharded table must be joined to the first one on equal shard keys (a binding join:
 * matching rows are then on the same shard), or, for co-located tables, on a relation's columns.
 * Returns alias → key column of the bound tables.
 */
export function bindShardedTables(ast: SelectNode, sharded: readonly TableRef[], sql: string, rules: ShardingRules): Map<string, string> {
  const keyOf = new Map<string, string>(sharded.map((s) => [s.alias, s.rule!.shardKey!.columnName]));
  const algorithmOf = (s: TableRef) => s.rule!.shardKey!.placement;
  const bound = new Set<string>([sharded[0]!.alias]);
  if (sharded.length === 1) return keyOf;
  // Only equalities every result row satisfies count: conjuncts of ON and WHERE, not terms under OR/NOT.
  const equalities: [string, string][] = [];
  const columnEqualities: [ColumnNode, ColumnNode][] = [];
  const isKeyOf = (n: ColumnNode): boolean => n.table !== undefined && keyOf.get(n.table)?.toLowerCase() === n.column.toLowerCase();
  const consider = (n: SqlNode): void => {
    if (n.kind !== 'binary' || n.op !== '=' || n.left.kind !== 'column' || n.right.kind !== 'column') return;
    const { left: l, right: r } = n;
    if (l.table === undefined || r.table === undefined) return;
    if (isKeyOf(l) && isKeyOf(r)) equalities.push([l.table, r.table]);
    else columnEqualities.push([l, r]);
  };
  for (const select of allSelectsOf(ast)) {
    for (const item of select.from) conjunctsOf(item.on).forEach(consider);
    conjunctsOf(select.where).forEach(consider);
  }
  equalities.push(...colocatedJoinsOf(sharded, columnEqualities, rules));
  for (let changed = true; changed; ) {
    changed = false;
    for (const [a, b] of equalities) {
      if (bound.has(a) !== bound.has(b)) {
        bound.add(a);
        bound.add(b);
        changed = true;
      }
    }
  }
  for (const s of sharded) {
    if (!bound.has(s.alias)) {
      throw new UnsupportedShardingError(
        `The query joins sharded tables "${sharded[0]!.name}" and "${s.name}" without equating their shard keys, so matching rows may be on different shards. ` +
          'Join on both shard keys too, or declare the entities co-located (@Sharded({ colocateWith })) and join on the columns of a relation between them.',
        { sql },
      );
    }
    if (algorithmOf(s) !== algorithmOf(sharded[0]!)) {
      throw new UnsupportedShardingError(
        `The query joins sharded tables "${sharded[0]!.name}" and "${s.name}" that use different sharding algorithms, so equal keys may be on different shards.`,
        { sql },
      );
    }
  }
  return keyOf;
}

/**
 * The selects whose rows can be computed shard by shard: the statement itself, its FROM
 * subqueries, and the `EXISTS (…)` / `NOT EXISTS (…)` terms under AND that are correlated with
 * their query on the shard key (`EXISTS (SELECT 1 FROM items i WHERE i.orderId = o.id)`: the
 * rows it looks for live on the shard of the outer row). An `EXISTS` under AND of a query that
 * reads no sharded table itself (TypeORM's `exists()`: `SELECT 1 FROM (SELECT 1) dummy WHERE
 * EXISTS (…)`) is safe too: true on one shard is true overall. A sharded table anywhere else —
 * an EXISTS not correlated on the key, `x IN (SELECT …)`, a scalar subquery — would need every
 * shard's rows at once; `refusedExists` lists those EXISTS subqueries, to name them.
 */
export function safeSelectsOf(root: SelectNode, rules?: ShardingRules): Set<SelectNode> {
  return subqueryLocalityOf(root, rules).safe;
}

/** The result of {@link subqueryLocalityOf}. */
export interface SubqueryLocality {
  readonly safe: Set<SelectNode>;
  /** EXISTS / NOT EXISTS subqueries under AND that are not shard-local, with the operator written. */
  readonly refusedExists: Map<SelectNode, 'EXISTS' | 'NOT EXISTS'>;
}

/** See {@link safeSelectsOf}. Without `rules` no table is known to be sharded (every EXISTS under AND is safe, NOT EXISTS never). */
export function subqueryLocalityOf(root: SelectNode, rules?: ShardingRules): SubqueryLocality {
  const safe = new Set<SelectNode>();
  const refusedExists = new Map<SelectNode, 'EXISTS' | 'NOT EXISTS'>();
  const visit = (select: SelectNode): void => {
    safe.add(select);
    derivedQueriesOf(select.from).forEach(visit);
    for (const term of conjunctsOf(select.where)) {
      const exists = existsOf(term);
      if (!exists) continue;
      const local = rules !== undefined && keyCorrelated(exists.query, select, rules);
      const outerUnsharded = rules === undefined || !select.from.some((f) => readsSharded(f, rules));
      if (local || (exists.op === 'EXISTS' && outerUnsharded)) visit(exists.query);
      else refusedExists.set(exists.query, exists.op);
    }
  };
  visit(root);
  return { safe, refusedExists };
}

/** `EXISTS (q)`, `NOT EXISTS (q)`, `NOT (EXISTS (q))`. */
function existsOf(term: SqlNode): { op: 'EXISTS' | 'NOT EXISTS'; query: SelectNode } | undefined {
  if (term.kind === 'function' && term.name === 'EXISTS' && term.args[0]?.kind === 'subquery') return { op: 'EXISTS', query: term.args[0].query };
  if (term.kind === 'unary' && term.op === 'NOT EXISTS' && term.operand.kind === 'subquery') return { op: 'NOT EXISTS', query: term.operand.query };
  if (term.kind === 'unary' && term.op === 'NOT') {
    const inner = existsOf(term.operand);
    if (inner?.op === 'EXISTS') return { op: 'NOT EXISTS', query: inner.query };
  }
  return undefined;
}

function readsSharded(item: FromItem, rules: ShardingRules): boolean {
  if (item.kind === 'table') return rules.ruleOf(item.table)?.distribution === 'sharded';
  if (item.kind === 'derived') return allSelectsOf(item.query).some((s) => s.from.some((f) => readsSharded(f, rules)));
  return false;
}

/**
 * True when a conjunct of the subquery's WHERE equates the shard key of one of its sharded
 * tables with the shard key of a sharded table of the outer query (a name the subquery does
 * not itself define).
 */
function keyCorrelated(query: SelectNode, outer: SelectNode, rules: ShardingRules): boolean {
  const keysOf = (select: SelectNode) =>
    new Map(select.from.flatMap((f) => {
      const rule = f.kind === 'table' ? rules.ruleOf(f.table) : undefined;
      return f.kind === 'table' && rule?.distribution === 'sharded' ? [[f.alias ?? f.table, rule.shardKey!.columnName.toLowerCase()] as const] : [];
    }));
  const inner = keysOf(query);
  const innerNames = new Set(query.from.flatMap((f) => (f.kind === 'values' ? [] : [f.alias ?? (f.kind === 'table' ? f.table : '')])));
  const outerKeys = keysOf(outer);
  const isInnerKey = (c: ColumnNode) => c.table !== undefined && inner.get(c.table) === c.column.toLowerCase();
  const isOuterKey = (c: ColumnNode) => c.table !== undefined && !innerNames.has(c.table) && outerKeys.get(c.table) === c.column.toLowerCase();
  return conjunctsOf(query.where).some(
    (t) => t.kind === 'binary' && t.op === '=' && t.left.kind === 'column' && t.right.kind === 'column' && ((isInnerKey(t.left) && isOuterKey(t.right)) || (isInnerKey(t.right) && isOuterKey(t.left))),
  );
}
