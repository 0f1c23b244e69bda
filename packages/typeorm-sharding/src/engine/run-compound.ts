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
import { ShardingInternalError, UnsupportedShardingError } from '../errors/index.js';
import { buildMerge, collectRows, type Row } from '../merge/index.js';
import type { ParameterizedSql, SqlDialect } from '../parameterize/index.js';
import { COMPOUND_COLUMN_PREFIX } from '../plan/compound/analyze-compound.js';
import { resolveCompoundColumns, type ResolvedColumn } from '../plan/compound/compound-columns.js';
import { selectItemsOf, type ItemText } from '../plan/compound/compound-items.js';
import { checkIntersectNames, resultNames } from '../plan/compound/compound-names.js';
import type { CompoundBranch, CompoundPlan } from '../plan/compound/compound-plan.js';
import { branchStatement, splitCompound } from '../plan/compound/compound-text.js';
import { quoteIdentifier } from '../plan/nodes/print-sql.js';
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
  const texts = branchTexts(plan, p, host.dialect);
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
    branchTexts(plan, p, host.dialect).map((t) => ({ ...t, work: host.branch(t.named.sql, t.named.parameters) })),
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

interface NamedBranch {
  readonly branch: CompoundBranch;
  readonly own: BranchText;
  /** The branch with every item aliased, as it runs. */
  readonly named: { sql: string; parameters: unknown[] };
}

function splitAsPlanned(plan: CompoundPlan, p: ParameterizedSql, dialect: SqlDialect): NonNullable<ReturnType<typeof splitCompound>> {
  const text = splitCompound(p.sql, dialect);
  if (!text || text.problem !== undefined || text.branches.length !== plan.branches.length) {
    throw new ShardingInternalError('a compound SELECT no longer splits as it was planned', { stage: 'route', sql: p.sql });
  }
  return text;
}

function branchTexts(plan: CompoundPlan, p: ParameterizedSql, dialect: SqlDialect): NamedBranch[] {
  const text = splitAsPlanned(plan, p, dialect);
  return plan.branches.map((branch, b) => {
    const own = branchText(branchStatement(p.sql, p.parameters, text.branches[b]!), branch, dialect);
    return { branch, own, named: nameItems(own, branch, dialect) };
  });
}

function prepare(plan: CompoundPlan, p: ParameterizedSql, host: CompoundHost, branches: readonly (NamedBranch & { readonly work: PhysicalRead })[]): CompoundWork {
  const { dialect } = host;
  const text = splitAsPlanned(plan, p, dialect);
  // Provably exact as it is: every SELECT runs unchanged on one and the same shard.
  const shards = new Set(branches.map(({ named, work }) => (work.kind === 'one' && work.statement.sql === named.sql ? work.statement.shard : -1)));
  if (shards.size === 1 && !shards.has(-1)) return { kind: 'one-shard', statement: { shard: [...shards][0]!, sql: p.sql, parameters: p.parameters } };

  if (dialect === 'mysql') checkIntersectNames(plan, p, text);
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
  return { kind: 'branches', branches: prepared, columns, keyed, names: resultNames(plan, p, text, dialect) };
}

/** A branch's statement as written, and where its select items are. */
interface BranchText {
  readonly sql: string;
  readonly parameters: unknown[];
  readonly items: readonly ItemText[];
}

/** The branch as written, with the spans of its select items (found when first asked for). */
function branchText(statement: { sql: string; parameters: unknown[] }, branch: CompoundBranch, dialect: SqlDialect): BranchText {
  let items: readonly ItemText[] | undefined;
  return {
    ...statement,
    get items() {
      return (items ??= selectItemsOf(statement.sql, dialect, branch.names.map((_, i) => !branch.unaliased.includes(i))));
    },
  };
}

/** The branch with an alias on every item written without one (`__shard_c<i>`), so that every branch's rows name its columns alike. */
function nameItems(own: BranchText, branch: CompoundBranch, dialect: SqlDialect): { sql: string; parameters: unknown[] } {
  if (branch.unaliased.length === 0) return own;
  let sql = own.sql;
  // From the last item back, so that earlier offsets stay valid.
  for (const i of [...branch.unaliased].reverse()) {
    const end = own.items[i]!.end;
    sql = `${sql.slice(0, end)} AS ${quoteIdentifier(`${COMPOUND_COLUMN_PREFIX}${i}`, dialect)}${sql.slice(end)}`;
  }
  return { sql, parameters: own.parameters };
}

/** The key columns a branch selects for the compared columns that need one: the key SQL over the item's own expression text. */
function keyColumns(own: BranchText, columns: readonly ResolvedColumn[], keyed: readonly boolean[]): AddedColumn[] {
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
