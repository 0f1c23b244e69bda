/**
 * Runs a statement whose subqueries run first (Vitess's pulled-out subquery, planned in
 * `plan/subquery/pulled-subquery.ts`): each subquery's text is run as a logical statement of its own on
 * the same session (inside a transaction: on the same connections), its values replace it in
 * the original text, and the new text runs as a logical statement again, so that values of a
 * shard key prune it. The original text is spliced, never regenerated; the subquery's own `?`
 * parameters go with it, its values' parameters take their place.
 *
 * Outside a transaction the subqueries and the statement are separate reads, as on Vitess: a
 * write committed between them is seen by the statement but not by the subquery.
 */
import type { QueryResult } from 'typeorm';
import { ShardingInternalError } from '../errors/index.js';
import { spliceSql, type ParameterizedSql, type SqlDialect, type SqlEdit } from '../parameterize/index.js';
import type { PulledSubqueriesPlan } from '../plan/plan.js';
import { subquerySpansOf, type SubquerySpan } from '../plan/subquery/subquery-spans.js';
import { checkPartnerSlots, existsReplacement, MORE_THAN_ONE_ROW, replacementOf } from './pulled-values.js';
import type { ExplainedStatement } from './sharding-engine.js';

/** What running a pulled-subquery plan needs from the engine. */
export interface PulledRun {
  readonly dialect: SqlDialect;
  /** `sharding.maxSubqueryValues`. */
  readonly maxValues: number;
  /**
   * Runs one logical statement on the caller's session. `exact`: read values exactly as stored
   * (SQLite: INTEGER as bigint, so that INTEGER and REAL stay apart when written back).
   */
  run(sql: string, parameters: readonly unknown[], exact: boolean): Promise<QueryResult>;
}

/** Runs the subqueries, one after the other in text order, then the statement with their values. */
export async function runPulled(plan: PulledSubqueriesPlan, p: ParameterizedSql, engine: PulledRun, exact: boolean): Promise<QueryResult> {
  const statement = await withSubqueryValues(plan, p, engine);
  return engine.run(statement.sql, statement.parameters, exact);
}

/** Runs the subqueries, one after the other in text order, and returns the statement with their values in their place. */
export async function withSubqueryValues(plan: PulledSubqueriesPlan, p: ParameterizedSql, engine: PulledRun): Promise<{ sql: string; parameters: unknown[] }> {
  const spans = spansOf(plan, p, engine.dialect);
  for (const subquery of plan.subqueries) checkPartnerSlots(subquery, p.slots);
  const edits: SqlEdit[] = [];
  const parameters: unknown[] = [];
  let next = 0;
  for (const [i, subquery] of plan.subqueries.entries()) {
    const span = spans[i]!;
    const result = await engine.run(p.sql.slice(span.open + 1, span.close), p.parameters.slice(span.firstParameter, span.endParameter), true);
    if (subquery.use === 'exists') {
      const text = existsReplacement((result.records ?? []).length > 0, engine.dialect);
      edits.push({ start: span.open, end: span.close + 1, text });
      parameters.push(...p.parameters.slice(next, span.firstParameter));
      next = span.endParameter;
      continue;
    }
    const values = firstColumnOf(result, p.sql);
    if (subquery.use === 'scalar' && values.length > 1 && engine.dialect === 'mysql') await engine.run(MORE_THAN_ONE_ROW, [], false);
    const replacement = replacementOf(subquery, values, engine.dialect, engine.maxValues, span);
    edits.push({ start: span.open, end: span.close + 1, text: replacement.text });
    parameters.push(...p.parameters.slice(next, span.firstParameter), ...replacement.parameters);
    next = span.endParameter;
  }
  parameters.push(...p.parameters.slice(next));
  return { sql: spliceSql(p.sql, edits), parameters };
}

/**
 * What `explain()` can tell without running anything: the statements of each subquery (they run
 * first), then the statement itself on every shard it may reach, with its subqueries still in
 * its text, since their values (which replace them, and by which it is routed) are not known yet.
 */
export function explainPulled(
  plan: PulledSubqueriesPlan,
  p: ParameterizedSql,
  dialect: SqlDialect,
  explain: (sql: string, parameters: readonly unknown[]) => ExplainedStatement[],
  shardNames: readonly string[],
): ExplainedStatement[] {
  const spans = spansOf(plan, p, dialect);
  const first = plan.subqueries.flatMap((_, i) => {
    const span = spans[i]!;
    const note = `subquery ${i + 1} of ${plan.subqueries.length}: runs first; its result replaces \`${p.sql.slice(span.open, span.close + 1)}\` in the statement`;
    return explain(p.sql.slice(span.open + 1, span.close), p.parameters.slice(span.firstParameter, span.endParameter)).map((s) => ({ ...s, note: s.note ? `${note}; ${s.note}` : note }));
  });
  const shards = plan.reach === 'every-shard' ? shardNames : shardNames.slice(0, 1);
  const note =
    plan.reach === 'every-shard'
      ? 'runs after its subqueries, with their values in their place, and is routed then: by those values too, so it may reach fewer shards than listed'
      : 'runs after its subqueries, with their values in their place';
  return [...first, ...shards.map((shard) => ({ shard, sql: p.sql, parameters: p.parameters, note }))];
}

function spansOf(plan: PulledSubqueriesPlan, p: ParameterizedSql, dialect: SqlDialect): SubquerySpan[] {
  const spans = subquerySpansOf(p, dialect);
  return plan.subqueries.map((s) => {
    const span = spans[s.ordinal];
    // The plan was made for this statement's shape, whose parenthesised SELECTs are the same.
    if (!span) throw new ShardingInternalError(`subquery ${s.ordinal} of the plan is not in the statement's text`, { sql: p.sql, stage: 'rewrite' });
    return span;
  });
}

/** The value of each row's only column. */
function firstColumnOf(result: QueryResult, sql: string): unknown[] {
  const rows = (result.records ?? []) as Record<string, unknown>[];
  return rows.map((row) => {
    const keys = Object.keys(row);
    if (keys.length !== 1) throw new ShardingInternalError(`a subquery that selects one column returned ${keys.length}`, { sql, stage: 'merge' });
    return row[keys[0]!];
  });
}
