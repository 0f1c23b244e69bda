import { UnsupportedShardingError } from '../../errors/index.js';
import type { ShardingRules } from '../../rules/index.js';
import { colocatedJoinsOf } from './colocated-joins.js';
import type { ColumnNode, SelectNode, SqlNode } from '../nodes/sql-node.js';
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
    for (const item of select.from) if (item.kind !== 'opaque-source') conjunctsOf(item.on).forEach(consider);
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
 * subqueries, and `EXISTS (…)` terms under AND (true on one shard = true overall). A sharded
 * table anywhere else — `NOT EXISTS`, `x IN (SELECT …)`, a scalar subquery — would need every
 * shard's rows at once.
 */
export function safeSelectsOf(root: SelectNode): Set<SelectNode> {
  const safe = new Set<SelectNode>();
  const visit = (select: SelectNode): void => {
    safe.add(select);
    derivedQueriesOf(select.from).forEach(visit);
    for (const term of conjunctsOf(select.where)) {
      if (term.kind === 'function' && term.name === 'EXISTS' && term.args[0]?.kind === 'subquery') visit(term.args[0].query);
    }
  };
  visit(root);
  return safe;
}
