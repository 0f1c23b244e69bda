/**
 * Runs a compound SELECT (`plan/compound/compound-plan.ts`): each SELECT as a logical statement of its
 * own through the engine (routed, pruned and merged on its own), then the branches' rows
 * combined as one database would: the set operators, the compound's ORDER BY, its LIMIT, and
 * the first SELECT's column names.
 *
 * Every branch names its items alike (an alias where the user wrote none), and on MySQL selects
 * a key per compared column that the server computes (text weights under the column's
 * collation, exact dates), so that duplicates and order are decided by the database's rules.
 */
import type { QueryResult } from 'typeorm';
import { UnsupportedShardingError } from '../errors/index.js';
import { buildMerge, collectRows, type Row } from '../merge/index.js';
import type { ParameterizedSql, SqlDialect } from '../parameterize/index.js';
import { bindCompound, type BoundBranch, type WrittenBranch } from '../plan/compound/bind-compound.js';
import { resolveCompoundColumns, type ResolvedColumn } from '../plan/compound/compound-columns.js';
import { checkIntersectNames, resultNames } from '../plan/compound/compound-names.js';
import type { CompoundPlan } from '../plan/compound/compound-plan.js';
import { appendSelectColumns, type AddedColumn } from '../rewrite/append-select-columns.js';
import type { PhysicalStatement } from '../rewrite/physical-statement.js';
import type { ShardSession } from '../session/shard-session.js';
import { combineCompound, KEY_PREFIX, positional, type CombineColumns } from './combine-compound.js';
import { statementsOf, withStatements, type PhysicalRead } from './physical-plan.js';
import { rowsResult } from './query-result.js';

/** What the compound needs from the engine. */
export interface CompoundHost {
  readonly dialect: SqlDialect;
  /** Plans one SELECT as a logical statement (plan cache, route, rewrite) without running it. */
  branch(sql: string, parameters: readonly unknown[]): PhysicalRead;
  /**
   * A SELECT whose subqueries over sharded tables run first (`run-pulled.ts`): runs them on the
   * session and returns its text with their values; any other SELECT as it is.
   */
  withSubqueryValues(sql: string, parameters: unknown[], session: ShardSession): Promise<{ sql: string; parameters: unknown[] }>;
  /** Runs physical statements on the session's connections (a transaction's, when one is open). */
  execute(statements: readonly PhysicalStatement[], session: ShardSession): Promise<QueryResult[]>;
}

interface PreparedBranch {
  /** The SELECT's physical read, each statement selecting the compared columns' keys too. */
  readonly read: PhysicalRead;
  readonly names: readonly string[];
}

type CompoundWork =
  /** Every SELECT reaches the same single shard as it is: the whole compound runs there. */
  | { readonly kind: 'one-shard'; readonly statement: PhysicalStatement }
  | ({ readonly kind: 'branches'; readonly branches: readonly PreparedBranch[] } & CombineColumns);

/** Runs the compound statement `p` planned as `plan`. */
export async function runCompound(plan: CompoundPlan, p: ParameterizedSql, host: CompoundHost, session: ShardSession): Promise<QueryResult> {
  const texts = bindCompound(plan, p, host.dialect);
  const resolved: { sql: string; parameters: unknown[] }[] = [];
  for (const { named } of texts) resolved.push(await host.withSubqueryValues(named.sql, named.parameters, session));
  const work = prepare(
    plan,
    p,
    host,
    texts.map((t, b) => ({ ...t, work: host.branch(resolved[b]!.sql, resolved[b]!.parameters) })),
  );
  if (work.kind === 'one-shard') return (await host.execute([work.statement], session))[0]!;
  const results = await host.execute(work.branches.flatMap((b) => statementsOf(b.read)), session);
  let next = 0;
  const rows: Row[][] = [];
  for (const branch of work.branches) {
    const own = results.slice(next, (next += statementsOf(branch.read).length)).map((r) => (r.records ?? []) as Row[]);
    rows.push((await branchRows(branch.read, own)).map((row) => positional(row, branch.names, work.keyed)));
  }
  return rowsResult(combineCompound(plan, p, work, rows, host.dialect));
}

/** The physical statements the compound would run, without running them. */
export function explainCompound(plan: CompoundPlan, p: ParameterizedSql, host: CompoundHost): PhysicalStatement[] {
  const work = prepare(
    plan,
    p,
    host,
    bindCompound(plan, p, host.dialect).map((t) => ({ ...t, work: host.branch(t.named.sql, t.named.parameters) })),
  );
  return work.kind === 'one-shard' ? [work.statement] : work.branches.flatMap((b) => statementsOf(b.read));
}

/** The rows of one SELECT from its statements' results. */
async function branchRows(read: PhysicalRead, results: readonly Row[][]): Promise<readonly Row[]> {
  switch (read.kind) {
    case 'no-rows':
      return [];
    case 'one':
      return results[0]!;
    case 'merged':
      return collectRows(buildMerge(read.merge, results.map(arrayStream)));
  }
}

function prepare(plan: CompoundPlan, p: ParameterizedSql, host: CompoundHost, branches: readonly (BoundBranch & { readonly work: PhysicalRead })[]): CompoundWork {
  const { dialect } = host;
  // Provably exact as it is: every SELECT runs unchanged on one and the same shard.
  const shards = new Set(branches.map(({ named, work }) => (work.kind === 'one' && work.statement.sql === named.sql ? work.statement.shard : -1)));
  if (shards.size === 1 && !shards.has(-1)) return { kind: 'one-shard', statement: { shard: [...shards][0]!, sql: p.sql, parameters: p.parameters } };

  if (dialect === 'mysql') checkIntersectNames(plan, p);
  const columns = resolveCompoundColumns(plan, p, dialect);
  const removesDuplicates = plan.operators.some((o) => o.op !== 'UNION' || !o.all);
  const compared = columns.map((_, i) => removesDuplicates || plan.orderBy.some((o) => o.position === i));
  columns.forEach((column, i) => {
    if (compared[i] && column.problem !== undefined) {
      throw new UnsupportedShardingError(
        `Column ${i + 1} of this compound SELECT cannot be compared across shards the way the database compares it: ${column.problem}. ` +
          'Use UNION ALL without ordering by it, or keep the compound on one shard.',
        { sql: p.sql, stage: 'merge' },
      );
    }
  });
  const keyed = columns.map((column, i) => compared[i]! && column.comparison?.key !== undefined);
  const prepared = branches.map(({ branch, own, work }, b): PreparedBranch => {
    const keys = keyColumns(own, columns, keyed);
    const grouped = work.kind === 'merged' && (work.merge.aggregates !== undefined || work.merge.groupBy !== undefined);
    const aggregate = keyed.findIndex((k, i) => k && grouped && columns[i]!.aggregates[b]);
    if (aggregate >= 0) {
      throw new UnsupportedShardingError(
        `Column ${aggregate + 1} of SELECT ${b + 1} is an aggregate that reaches several shards, and the compound compares it by a key the database computes from the final value (text weights, exact dates). ` +
          'Use UNION ALL without ordering by it, or add a shard-key condition so that SELECT reaches one shard.',
        { sql: p.sql, stage: 'merge' },
      );
    }
    return { read: withStatements(work, (s) => appendSelectColumns(s, keys, dialect)), names: branch.names };
  });
  return { kind: 'branches', branches: prepared, columns, keyed, names: resultNames(plan, p, dialect) };
}

/** The key columns a branch selects for the compared columns that need one: the key SQL over the item's own expression text. */
function keyColumns(own: WrittenBranch, columns: readonly ResolvedColumn[], keyed: readonly boolean[]): AddedColumn[] {
  if (!keyed.includes(true)) return [];
  return columns.flatMap((column, i) => {
    if (!keyed[i]) return [];
    const item = own.items[i]!;
    const expression = own.sql.slice(item.start, item.expressionEnd);
    const values = own.parameters.slice(item.firstParameter, item.firstParameter + item.parameterCount);
    // The key may repeat the expression: each copy brings its own `?` values.
    const parts = column.comparison!.key!('\u0001').split('\u0001');
    return [{ sql: parts.join(expression), parameters: parts.slice(1).flatMap(() => values), alias: `${KEY_PREFIX}${i}` }];
  });
}

async function* arrayStream(rows: readonly Row[]): AsyncIterable<Row> {
  yield* rows;
}
