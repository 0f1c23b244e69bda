import type { Plan } from '../plan.js';

/**
 * The fields of a plan that golden cases pin. For a SELECT only the documented routing,
 * rewrite and merge fields are kept, so a field added for a new feature does not
 * invalidate every case.
 */
export function summarizePlan(plan: Plan): unknown {
  if (plan.kind !== 'select') return plan;
  const { kind, table, condition, prunableLists, limit, pushLimit, merge, derivedColumns, unmergeable } = plan;
  return { kind, table, condition, prunableLists, limit, pushLimit, merge, derivedColumns, unmergeable };
}
