import type { LimitPlan } from '../plan.js';
import type { SelectNode } from '../nodes/sql-node.js';
import { aggregatesOf, allSelectsOf } from '../nodes/sql-tree.js';

/** LIMIT of the outermost select by slot (both `LIMIT o, c` and `LIMIT c OFFSET o`). */
export function limitOf(ast: SelectNode): LimitPlan | undefined {
  const limit = ast.limit;
  if (!limit || limit.count.kind !== 'slot') return undefined;
  if (!limit.offset) return { countSlot: limit.count.slot, offsetSlot: undefined };
  return limit.offset.kind === 'slot' ? { countSlot: limit.count.slot, offsetSlot: limit.offset.slot } : undefined;
}

/**
 * Subqueries whose own LIMIT / grouping would need a global view to be right. The SELECTs of
 * the CTEs left in the tree are not among them: they read no sharded table (see
 * `common-table-expressions.ts`), so every shard computes them alike.
 */
export function innerSelectProblem(ast: SelectNode): string | undefined {
  const constant = new Set(allSelectsOf(ast).flatMap((s) => (s.with?.ctes ?? []).flatMap((c) => allSelectsOf(c.query))));
  for (const select of allSelectsOf(ast)) {
    if (select === ast || constant.has(select)) continue;
    let problem: string | undefined;
    if (select.limit) problem = 'a subquery with LIMIT';
    else if (select.groupBy.length > 0) problem = 'a subquery with GROUP BY';
    else if (select.distinct) problem = 'a subquery with DISTINCT';
    else if (select.items.some((i) => aggregatesOf(i.expr).length > 0)) problem = 'a subquery with aggregates';
    // Each shard would combine only its own rows (and repeat broadcast rows): run the compound on its own instead.
    else if (select.compound) problem = 'a UNION / EXCEPT / INTERSECT in a subquery';
    if (problem) return `${problem} over several shards`;
  }
  return undefined;
}
