import { semanticsOf } from '../../values/evaluate/compile.js';
import type { MergeSpec } from '../../merge/index.js';
import { selectItemSpans, expressionItemName } from './select-item-names.js';
import type { ParameterizedSql, SqlDialect } from '../../parameterize/index.js';
import type { SelectPlan } from '../plan.js';
import { mergeLimitOf, type Pagination } from './pagination.js';
import { UnsupportedShardingError } from '../../errors/index.js';

/**
 * The plan's merge completed with what only this statement knows: its page (see `pagination.ts`),
 * the values HAVING and computed items compare with, and the names of unaliased items.
 */
export function bindMerge(plan: SelectPlan, p: ParameterizedSql, dialect: SqlDialect, page: Pagination | undefined): MergeSpec {
  let spec: MergeSpec = plan.merge ?? { kind: 'concat' };
  const semantics = semanticsOf(dialect);
  const having = plan.having;
  if (having) spec = { ...spec, having: { predicate: (row) => semantics.truth(having(row, p.slots)) === true, label: 'HAVING' } };
  if (plan.computed.length > 0) {
    spec = {
      ...spec,
      compute: plan.computed.map((c) => ({ column: c.column, label: c.label, evaluate: (row, hint) => semantics.toDriver(c.expression(row, p.slots), hint) })),
    };
  }
  if (plan.itemAliases.length > 0) spec = { ...spec, rename: renamesOf(plan, p, dialect) };
  if (plan.exactIntegers) spec = { ...spec, integersAsNumbers: true };
  if (plan.listedOrder) {
    const { columns, rows } = plan.listedOrder;
    spec = { ...spec, listedOrder: { columns, tuples: rows.map((row) => row.map((slot) => p.slots[slot]?.value)) } };
  }
  return page ? { ...spec, limit: mergeLimitOf(page) } : spec;
}

/** The result name of each item the shards were asked to alias: its text as written in this statement. */
function renamesOf(plan: SelectPlan, p: ParameterizedSql, dialect: SqlDialect): { from: string; to: string }[] {
  const spans = selectItemSpans(p, dialect);
  return plan.itemAliases.map(({ index, alias }) => {
    const span = spans[index];
    const name = span ? expressionItemName(p.sql.slice(span.start, span.end), dialect) : undefined;
    if (name === undefined) {
      throw new UnsupportedShardingError(
        `Select item ${index + 1} has no alias and its result name cannot be known across shards (it holds a parameter); give it an alias with AS.`,
        { sql: p.sql, stage: 'merge' },
      );
    }
    return { from: alias, to: name };
  });
}
