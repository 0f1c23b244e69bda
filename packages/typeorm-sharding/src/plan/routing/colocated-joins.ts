import type { ShardingRules } from '../../rules/index.js';
import type { ColumnNode } from '../nodes/sql-node.js';
import type { TableRef } from '../nodes/table-refs.js';

/**
 * Pairs of sharded tables (by alias) that a join keeps on one shard although their shard keys
 * are not equated: co-located tables joined on every column of a relation between them
 * (`@Sharded({ colocateWith })`, a junction and its sides; the rules decide). `equalities`
 * are the column equalities every result row satisfies (conjuncts of ON and WHERE).
 */
export function colocatedJoinsOf(sharded: readonly TableRef[], equalities: readonly (readonly [ColumnNode, ColumnNode])[], rules: ShardingRules): [string, string][] {
  const byAlias = new Map(sharded.map((s) => [s.alias, s]));
  const joins = new Map<string, { a: TableRef; b: TableRef; pairs: [string, string][] }>();
  for (const [l, r] of equalities) {
    const left = l.table === undefined ? undefined : byAlias.get(l.table);
    const right = r.table === undefined ? undefined : byAlias.get(r.table);
    if (!left || !right || left === right) continue;
    const [a, b, pair] = left.alias < right.alias ? [left, right, [l.column, r.column] as [string, string]] : [right, left, [r.column, l.column] as [string, string]];
    const id = `${a.alias}\u0000${b.alias}`;
    const join = joins.get(id) ?? { a, b, pairs: [] };
    join.pairs.push(pair);
    joins.set(id, join);
  }
  return [...joins.values()].filter((j) => rules.joinsColocatedRows(j.a.rule!, j.b.rule!, j.pairs)).map((j) => [j.a.alias, j.b.alias]);
}
