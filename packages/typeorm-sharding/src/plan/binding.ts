import { UnsupportedShardingError } from '../errors/index.js';
import type { ShardingRules } from '../rules/index.js';
import { columnRefOf, fromItemsOf, selectsOf, textOf, type AstNode, type ColumnRef } from './ast.js';
import { colocatedJoinsOf } from './colocated-joins.js';
import type { TableRef } from './table-refs.js';

/**
 * Every sharded table must be joined to the first one on equal shard keys (a binding join:
 * matching rows are then on the same shard), or, for co-located tables, on a relation's columns.
 * Returns alias → key column of the bound tables.
 */
export function bindShardedTables(ast: AstNode, sharded: readonly TableRef[], sql: string, rules: ShardingRules): Map<string, string> {
  const keyOf = new Map<string, string>(sharded.map((s) => [s.alias, s.rule!.shardKey!.columnName]));
  const algorithmOf = (s: TableRef) => s.rule!.shardKey!.placement;
  const bound = new Set<string>([sharded[0]!.alias]);
  if (sharded.length === 1) return keyOf;
  // Only equalities every result row satisfies count: conjuncts of ON and WHERE, not terms under OR/NOT.
  const equalities: [string, string][] = [];
  const columnEqualities: [ColumnRef, ColumnRef][] = [];
  const consider = (n: AstNode): void => {
    if (n.type !== 'binary_expr' || n.operator !== '=') return;
    const l = columnRefOf(n.left);
    const r = columnRefOf(n.right);
    if (l?.table && r?.table && keyOf.get(l.table)?.toLowerCase() === l.column.toLowerCase() && keyOf.get(r.table)?.toLowerCase() === r.column.toLowerCase()) {
      equalities.push([l.table, r.table]);
    } else if (l?.table && r?.table) {
      columnEqualities.push([l, r]);
    }
  };
  for (const select of selectsOf(ast)) {
    for (const item of fromItemsOf(select)) conjunctsOf(item.on).forEach(consider);
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

/** The terms of a condition joined by AND at its top (a term under OR or NOT is not one). */
function conjunctsOf(node: AstNode | null | undefined): AstNode[] {
  if (!node) return [];
  if (node.type === 'binary_expr' && String(node.operator).toUpperCase() === 'AND') return [...conjunctsOf(node.left), ...conjunctsOf(node.right)];
  return [node];
}

/**
 * The selects whose rows can be computed shard by shard: the statement itself, its FROM
 * subqueries, and `EXISTS (…)` terms under AND (true on one shard = true overall). A sharded
 * table anywhere else — `NOT EXISTS`, `x IN (SELECT …)`, a scalar subquery — would need every
 * shard's rows at once.
 */
export function safeSelectsOf(root: AstNode): Set<AstNode> {
  const safe = new Set<AstNode>();
  const visit = (select: AstNode): void => {
    safe.add(select);
    for (const item of fromItemsOf(select)) if (item.expr?.ast?.type === 'select') visit(item.expr.ast);
    for (const term of conjunctsOf(select.where)) {
      const name = textOf(term.name?.name?.[0]) ?? textOf(term.name);
      if (term.type === 'function' && String(name).toUpperCase() === 'EXISTS') {
        const sub = term.args?.value?.[0]?.ast;
        if (sub?.type === 'select') visit(sub);
      }
    }
  };
  visit(root);
  return safe;
}
