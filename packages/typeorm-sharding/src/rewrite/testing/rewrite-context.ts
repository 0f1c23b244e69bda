import type { ParameterizedSql, SqlDialect } from '../../parameterize/index.js';
import type { SelectPlan, WritePlan } from '../../plan/plan.js';
import type { RewriteContext } from '../rewriter.js';
import { paginationOf } from '../../plan/select/pagination.js';

/** The rewrite context the engine builds for a routed plan (kept in one place for the tests). */
export function rewriteContextOf(plan: SelectPlan | WritePlan, p: ParameterizedSql, dialect: SqlDialect, scatter: boolean): RewriteContext {
  const select = plan.kind === 'select' ? plan : undefined;
  return {
    p,
    dialect,
    scatter,
    limit: select?.limit,
    page: select ? paginationOf(select.limit, select.pushLimit, p) : undefined,
    cutHaving: select?.cutHaving ?? false,
    derivedColumns: select?.derivedColumns ?? [],
    extraGroupBy: select?.extraGroupBy ?? [],
    itemAliases: select?.itemAliases ?? [],
    prunableOrs: plan.prunableOrs,
  };
}
