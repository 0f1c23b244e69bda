import { slotOf, type AstNode } from './ast.js';
import type { LimitPlan } from './plan.js';

/** LIMIT of the outermost select by slot (both `LIMIT o, c` and `LIMIT c OFFSET o`). */
export function limitOf(ast: AstNode): LimitPlan | undefined {
  const limit = ast.limit;
  if (!limit || !Array.isArray(limit.value) || limit.value.length === 0) return undefined;
  const values = limit.value.map((v: AstNode) => slotOf(v));
  if (values.some((v: number | undefined) => v === undefined)) return undefined;
  if (values.length === 1) return { countSlot: values[0]!, offsetSlot: undefined };
  return limit.seperator === 'offset'
    ? { countSlot: values[0]!, offsetSlot: values[1]! }
    : { countSlot: values[1]!, offsetSlot: values[0]! };
}

/** Subqueries whose own LIMIT / grouping would need a global view to be right. */
export function innerSelectProblem(ast: AstNode): string | undefined {
  let problem: string | undefined;
  const visit = (n: unknown, isRoot: boolean): void => {
    if (problem || n === null || typeof n !== 'object') return;
    const node = n as AstNode;
    if (!isRoot && node.type === 'select') {
      if (node.limit?.value?.length) problem = 'a subquery with LIMIT';
      else if (node.groupby?.columns?.length) problem = 'a subquery with GROUP BY';
      else if (node.distinct) problem = 'a subquery with DISTINCT';
      else if ((node.columns ?? []).some((c: AstNode) => c?.expr?.type === 'aggr_func')) problem = 'a subquery with aggregates';
    }
    for (const k in node) if (k !== 'loc' && k !== 'tableList' && k !== 'columnList') visit(node[k], false);
  };
  visit(ast, true);
  return problem ? `${problem} over several shards` : undefined;
}
