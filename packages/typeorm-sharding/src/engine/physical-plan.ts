/**
 * The physical plan of one logical statement: what runs where, and how its results become one.
 * Its type says when a merge exists — whenever rows come from several shards — so that no stage
 * asks whether there is one.
 */
import type { MergeSpec } from '../merge/index.js';
import type { ParameterizedSql, SqlDialect } from '../parameterize/index.js';
import type { CompoundPlan } from '../plan/compound/compound-plan.js';
import type { PulledSubqueriesPlan, SelectPlan, WhereExistsPlan } from '../plan/plan.js';
import type { PageWindow } from '../plan/select/page-window.js';
import type { TransactionControl } from '../plan/transaction-control.js';
import type { PhysicalStatement } from '../rewrite/physical-statement.js';
import type { CopiesStatement } from './copies-result.js';

/** The rows of one logical read. */
export type PhysicalRead =
  /** Nothing can match (`In([])`): nothing runs, no row comes back. */
  | { readonly kind: 'no-rows' }
  /** One statement whose rows are the answer as they come (one shard). */
  | { readonly kind: 'one'; readonly statement: PhysicalStatement }
  /**
   * Rows of several shards — several statements, or one coalesced statement carrying several
   * shards' — put together by `merge`.
   */
  | {
      readonly kind: 'merged';
      readonly statements: readonly PhysicalStatement[];
      readonly merge: MergeSpec;
      /** MySQL, a deep page: the shards' rows are streamed into the merge, which stops at the page's end. */
      readonly deep: boolean;
      /** The plan, when its original text is to be shown to the default shard once (`SelectPlan.checkOriginal`). */
      readonly checkOriginal?: SelectPlan | undefined;
      /**
       * A deep page read by windows: `statements` each send their input's window, and the page is
       * cut from them (`merge/locate-page.ts`); when the windows cannot prove it, `fallback` runs.
       */
      readonly window?: { readonly shape: PageWindow; readonly fallback: MergedRead } | undefined;
      /**
       * A shallow page whose shards each sent at most `rows` of their first offset+count rows,
       * their rows tagged with their shard in `tag` (`plan/select/page-window.ts`'s
       * `cappedInputRows`); when a shard may have been cut short (`merge/capped-inputs.ts`), `fallback` runs.
       */
      readonly capped?: { readonly rows: number; readonly tag: string; readonly fallback: MergedRead } | undefined;
    };

/** A read whose rows come from several shards. */
export type MergedRead = Extract<PhysicalRead, { readonly kind: 'merged' }>;

/** The writes of one logical statement. */
export interface PhysicalWrites {
  readonly kind: 'writes';
  readonly statements: readonly PhysicalStatement[];
  /** One shard after the other (DDL, broadcast copies), not in a window. */
  readonly sequential: boolean;
  /** A broadcast write: every copy must report the same outcome (`copies-result.ts`). */
  readonly copies?: CopiesStatement | undefined;
  /** INSERT: the VALUES rows each statement carries, so that returned rows come back in their order. */
  readonly rowsOf?: readonly (readonly number[])[];
  /**
   * The write reaches several shards (or several tables of a table-per-shard layout): it runs
   * atomically (`ShardSession.atomically`), as one statement does on one database.
   */
  readonly atomic: boolean;
}

/** Everything a logical statement can become. */
export type PhysicalPlan =
  | PhysicalRead
  | PhysicalWrites
  /** Transaction control, handled by the session. */
  | { readonly kind: 'session'; readonly control: TransactionControl }
  /**
   * DDL on a schema object named without its table: runs on the shards that hold it, found at
   * run time. `perTable`: the same statement for each physical table of a table-per-shard layout
   * (`IDX_a` is `IDX_a_0 … IDX_a_<n>` there), tried when no shard holds the object itself.
   */
  | {
      readonly kind: 'where-exists';
      readonly plan: WhereExistsPlan;
      readonly statement: PhysicalStatement;
      readonly perTable?: readonly { readonly name: string; readonly statement: PhysicalStatement }[];
    }
  /** Subqueries run first; the statement is planned again with their values (`run-pulled.ts`). */
  | { readonly kind: 'pulled'; readonly plan: PulledSubqueriesPlan; readonly p: ParameterizedSql }
  /** Each SELECT of a UNION / EXCEPT / INTERSECT as a statement of its own (`run-compound.ts`). */
  | { readonly kind: 'compound'; readonly plan: CompoundPlan; readonly p: ParameterizedSql };

/** The statements of a read. */
export function statementsOf(read: PhysicalRead): readonly PhysicalStatement[] {
  switch (read.kind) {
    case 'no-rows':
      return [];
    case 'one':
      return [read.statement];
    case 'merged':
      return read.statements;
  }
}

/** The same read with each statement replaced by `change(statement)`. */
export function withStatements(read: PhysicalRead, change: (statement: PhysicalStatement) => PhysicalStatement): PhysicalRead {
  switch (read.kind) {
    case 'no-rows':
      return read;
    case 'one':
      return { ...read, statement: change(read.statement) };
    case 'merged':
      return withMergedStatements(read, (statements) => statements.map(change));
  }
}

/** A merged read with its statements (and its window's fallback statements) replaced by `change(statements)`. */
function withMergedStatements(read: MergedRead, change: (statements: readonly PhysicalStatement[]) => PhysicalStatement[]): MergedRead {
  const changed: MergedRead = { ...read, statements: change(read.statements) };
  if (read.capped) return { ...changed, capped: { ...read.capped, fallback: withMergedStatements(read.capped.fallback, change) } };
  return read.window ? { ...changed, window: { ...read.window, fallback: withMergedStatements(read.window.fallback, change) } } : changed;
}

/**
 * The read with values read as stored, for a subquery whose values are written back into a
 * statement's text. SQLite: integers as bigint (the merge then keeps them exact too). MySQL:
 * dates and times as the server's text (see `PhysicalStatement.serverText`).
 */
export function readingExactValues(read: PhysicalRead, dialect: SqlDialect): PhysicalRead {
  if (dialect === 'mysql') return withStatements(read, (s) => ({ ...s, serverText: true }));
  const exact = withStatements(read, (s) => ({ ...s, exactIntegers: true }));
  return exact.kind === 'merged' ? exactMerge(exact) : exact;
}

function exactMerge(read: MergedRead): MergedRead {
  const exact: MergedRead = { ...read, merge: { ...read.merge, integersAsNumbers: false } };
  if (read.capped) return { ...exact, capped: { ...read.capped, fallback: exactMerge(read.capped.fallback) } };
  return read.window ? { ...exact, window: { ...read.window, fallback: exactMerge(read.window.fallback) } } : exact;
}

/**
 * The plan with the statements it runs replaced by `change(statements)` (one call per group of
 * statements that run together); plans whose statements are made at run time stay as they are.
 */
export function withStatementsOf(plan: PhysicalPlan, change: (statements: readonly PhysicalStatement[]) => PhysicalStatement[]): PhysicalPlan {
  switch (plan.kind) {
    case 'no-rows':
    case 'session':
    case 'pulled':
    case 'compound':
      return plan;
    case 'one':
      return { ...plan, statement: change([plan.statement])[0]! };
    case 'merged':
      return withMergedStatements(plan, change);
    case 'writes':
      return { ...plan, statements: change(plan.statements) };
    case 'where-exists':
      return {
        ...plan,
        statement: change([plan.statement])[0]!,
        ...(plan.perTable ? { perTable: plan.perTable.map((t) => ({ ...t, statement: change([t.statement])[0]! })) } : {}),
      };
  }
}
