import type { QueryRunner, ReplicationMode } from 'typeorm';
import { shardFailure } from '../execute/shard-failure.js';
import type { ShardTarget } from '../execute/shard-target.js';
import type { SqlDialect } from '../parameterize/index.js';
import type { Branch, CommitProtocol, OpeningStatement, SessionStatement, SessionTransaction } from './commit-protocol.js';
import { sequentialCommit } from './sequential-commit.js';
import { SerialQueue } from './serial-queue.js';
import { TransactionStateError } from './session-errors.js';
import type { TransactionControl } from './transaction-control.js';

export { PartialCommitError, TransactionStateError } from './session-errors.js';
export type { TransactionControl } from './transaction-control.js';

/** What a session needs beyond its mode and dialect. */
export interface SessionOptions {
  /** The QueryRunner this session belongs to: named in log lines of its physical statements. */
  readonly owner?: QueryRunner | undefined;
  /** How transactions reach several servers (local per server, XA, SQLite ATTACH). @default sequentialCommit */
  readonly protocol?: CommitProtocol;
  /**
   * Runs a transaction the plugin opens itself (a write over several shards outside a
   * transaction) so that it cannot overlap a `transaction()` of another caller: SQLite shares
   * one session between all callers. @default runs it at once
   */
  readonly serialize?: <T>(work: () => Promise<T>) => Promise<T>;
}

const BEGIN: Record<SqlDialect, string> = { mysql: 'START TRANSACTION', sqlite: 'BEGIN TRANSACTION' };

/**
 * The per-QueryRunner state that spans statements: whether a transaction is open, and which
 * server connections it has joined. TypeORM drives transactions by sending `START
 * TRANSACTION` / `SAVEPOINT` / `COMMIT` text through `query()`; the session opens the
 * transaction on a server only when a statement first touches one of its shards (servers a
 * transaction never touches cost nothing), and the commit protocol decides how that server
 * joins (replaying the isolation level and open savepoints, as a local transaction or an XA
 * branch, or attached to the first SQLite shard) and how the whole commits. All shards of a
 * server share its connection, so their part commits as one local transaction.
 *
 * Misplaced control statements behave as the database would: a second BEGIN commits the open
 * transaction on MySQL and is refused on SQLite, as are COMMIT / ROLLBACK / SAVEPOINT outside a
 * transaction (MySQL accepts those silently). The session is never left half-open.
 */
export class ShardSession {
  private transaction: SessionTransaction | undefined;
  /** The text of the BEGIN that opened the transaction (with the query router its hints hold for the whole transaction). */
  private begin: string | undefined;
  /**
   * A COMMIT failed: the database would still hold the transaction open until a ROLLBACK
   * (TypeORM sends one), while here every server has already been rolled back or committed.
   */
  private rollbackOwed = false;
  /** Statements that opened the transaction and its savepoints, replayed on servers that join later. */
  private readonly opening: OpeningStatement[] = [];
  /** The branches, in the order their servers joined; each with the promise of its opening. */
  private readonly branches = new Map<string, { readonly branch: Branch; readonly ready: Promise<void> }>();
  private readonly locks = new WeakMap<QueryRunner, Promise<void>>();
  /** Savepoints set around multi-shard writes so far (their names must not repeat while one is open). */
  private statementSavepoints = 0;
  /** Logical statements of this session, one at a time (see `serially`). */
  private readonly statements = new SerialQueue();
  private readonly protocol: CommitProtocol;
  /** The QueryRunner this session belongs to (log lines of its physical statements name it). */
  readonly owner: QueryRunner | undefined;

  /**
   * @param mode replication mode of statements outside transactions
   * @param dialect whose rules misplaced control statements follow
   * @default dialect 'mysql'
   */
  constructor(
    readonly mode: ReplicationMode,
    private readonly dialect: SqlDialect = 'mysql',
    private readonly options: SessionOptions = {},
  ) {
    this.protocol = options.protocol ?? sequentialCommit;
    this.owner = options.owner;
  }

  /** True between BEGIN and COMMIT/ROLLBACK. */
  get inTransaction(): boolean {
    return this.transaction !== undefined;
  }

  /** The text of the statement that opened the open transaction (routing hints on it, such as `MASTER_ONLY`, hold for the whole transaction). */
  get beginSql(): string | undefined {
    return this.transaction ? this.begin : undefined;
  }

  /**
   * The runner a statement on `target` uses: the branch's inside a transaction (its server
   * joins on first use), else a fresh one the caller must give back with `done()`.
   */
  async acquire(target: ShardTarget): Promise<QueryRunner> {
    if (!this.transaction) return target.createRunner(this.mode);
    const existing = this.branches.get(target.server);
    if (existing) {
      await existing.ready;
      return existing.branch.runner;
    }
    const joined = [...this.branches.values()];
    const join = this.transaction.join(target, joined.map((b) => b.branch), this.opening);
    // An attached shard's statements run on the first branch's connection: after its BEGIN.
    const ready = join.branch.kind === 'attached' && joined[0] ? joined[0].ready.then(() => join.open()) : join.open();
    this.branches.set(target.server, { branch: join.branch, ready });
    try {
      await ready;
    } catch (error) {
      if (this.branches.get(target.server)?.ready === ready) this.branches.delete(target.server);
      throw error;
    }
    return join.branch.runner;
  }

  /**
   * Runs `work` alone on `runner`: a server's transaction connection serves all its shards, and
   * a statement that needs `USE` first must not have another shard's statement run in between.
   */
  exclusive<T>(runner: QueryRunner, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(runner) ?? Promise.resolve();
    const run = previous.then(work, work);
    this.locks.set(runner, run.then(() => undefined, () => undefined));
    return run;
  }

  /** Gives back a runner from `acquire` (a branch's runner stays until the transaction ends). */
  async done(target: ShardTarget, runner: QueryRunner): Promise<void> {
    if (this.branches.get(target.server)?.branch.runner !== runner) await target.releaseRunner(runner);
  }

  /**
   * Runs one logical statement after the ones before it have ended, as one connection runs
   * them. TypeORM sends statements of one runner concurrently (`save()` runs its UPDATEs with
   * `Promise.all`); here a statement spans servers and awaits between its parts, so without
   * this two multi-shard writes would interleave their statement savepoints (`SAVEPOINT a`,
   * `SAVEPOINT b`, `RELEASE a` drops b too, then `RELEASE b` fails), and a statement would run
   * inside the savepoint of another (undone when that one rolls back to it).
   *
   * Only statements that arrive inside a transaction wait: one outside may have to wait for a
   * SQLite `transaction()` of another caller (`inOwnTransaction`), whose statements must not
   * queue behind it.
   */
  serially<T>(work: () => Promise<T>): Promise<T> {
    return this.transaction ? this.statements.run(work) : work();
  }

  /** Handles a transaction-control statement TypeORM sent through the sharded runner. */
  async control(statement: SessionStatement, kind: TransactionControl): Promise<void> {
    switch (kind) {
      case 'set-isolation':
        // Applies to the next transaction only: remember it for the servers it will touch.
        this.opening.push({ statement, kind });
        return;
      case 'begin':
        if (this.transaction) {
          if (this.dialect === 'sqlite') throw new TransactionStateError('cannot start a transaction within a transaction');
          // MySQL commits the open transaction implicitly.
          await this.finish({ sql: 'COMMIT', parameters: [] }, true);
        }
        this.transaction = this.protocol.begin();
        this.begin = statement.sql;
        this.rollbackOwed = false;
        this.opening.push({ statement, kind });
        return;
      case 'savepoint':
        if (!this.transaction) return this.outsideTransaction('SAVEPOINT');
        this.opening.push({ statement, kind });
        await this.onBranches(statement);
        return;
      case 'release-savepoint':
      case 'rollback-to-savepoint':
        this.forgetSavepoint(statement.sql, kind === 'release-savepoint');
        await this.onBranches(statement);
        return;
      case 'commit':
        if (!this.transaction) return this.outsideTransaction('COMMIT');
        await this.finish(statement, true);
        return;
      case 'rollback':
        if (!this.transaction) {
          if (this.rollbackOwed) return void (this.rollbackOwed = false);
          return this.outsideTransaction('ROLLBACK');
        }
        await this.finish(statement, false);
        return;
    }
  }

  /**
   * A statement that commits implicitly on MySQL (DDL) arrived inside a transaction: as on one
   * server, the transaction so far is committed first (atomically across servers, where the
   * protocol can), and the statement and those after it run outside a transaction; the COMMIT
   * or ROLLBACK TypeORM sends at the end then finds none, which MySQL accepts.
   */
  async commitImplicitly(): Promise<void> {
    if (this.transaction) await this.finish({ sql: 'COMMIT', parameters: [] }, true);
  }

  /**
   * Runs `work` (one logical statement's writes on several shards) atomically, as one statement
   * is on one database: outside a transaction in one of its own; inside one behind a savepoint,
   * rolled back to on failure, so that a failure part-way leaves no shard changed (the copies
   * of a broadcast table never diverge, even when the caller goes on after the error).
   */
  atomically<T>(work: () => Promise<T>): Promise<T> {
    return this.transaction ? this.behindSavepoint(work) : this.inOwnTransaction(work);
  }

  private async behindSavepoint<T>(work: () => Promise<T>): Promise<T> {
    const name = `tsh_statement_${++this.statementSavepoints}`;
    await this.control({ sql: `SAVEPOINT ${name}`, parameters: [] }, 'savepoint');
    try {
      const result = await work();
      await this.control({ sql: `RELEASE SAVEPOINT ${name}`, parameters: [] }, 'release-savepoint');
      return result;
    } catch (error) {
      if (this.transaction) {
        await this.control({ sql: `ROLLBACK TO SAVEPOINT ${name}`, parameters: [] }, 'rollback-to-savepoint').catch(() => undefined);
        await this.control({ sql: `RELEASE SAVEPOINT ${name}`, parameters: [] }, 'release-savepoint').catch(() => undefined);
      }
      throw error;
    }
  }

  /**
   * Runs `work` in a transaction of its own (a write the plugin makes atomic over several
   * shards), unless one is open already: then `work` is part of it, as a statement would be.
   */
  async inOwnTransaction<T>(work: () => Promise<T>): Promise<T> {
    const run = async () => {
      if (this.transaction) return work();
      // TypeORM code sharing the runner (SQLite's one runner) joins it instead of sending BEGIN again.
      const owner = this.owner as { isTransactionActive: boolean } | undefined;
      const wasActive = owner?.isTransactionActive;
      if (owner) owner.isTransactionActive = true;
      try {
        await this.control({ sql: BEGIN[this.dialect], parameters: [] }, 'begin');
        let result: T;
        try {
          result = await work();
        } catch (error) {
          if (this.transaction) await this.finish({ sql: 'ROLLBACK', parameters: [] }, false).catch(() => undefined);
          throw error;
        }
        await this.control({ sql: 'COMMIT', parameters: [] }, 'commit');
        return result;
      } finally {
        // Nobody sends the ROLLBACK a failed COMMIT would owe: the caller saw the error.
        this.rollbackOwed = false;
        if (owner) owner.isTransactionActive = wasActive ?? false;
      }
    };
    return this.options.serialize && !this.transaction ? this.options.serialize(run) : run();
  }

  /**
   * MySQL ignores COMMIT / ROLLBACK / SAVEPOINT in autocommit mode. SQLite refuses COMMIT and
   * ROLLBACK, and would open a transaction for a SAVEPOINT: refused here too (TypeORM never
   * sends one outside a transaction).
   */
  private outsideTransaction(verb: 'COMMIT' | 'ROLLBACK' | 'SAVEPOINT'): void {
    if (this.dialect !== 'sqlite') return;
    throw new TransactionStateError(verb === 'SAVEPOINT' ? 'SAVEPOINT outside a transaction is not supported' : `cannot ${verb.toLowerCase()} - no transaction is active`);
  }

  /** Rolls back and releases everything (used when the outer QueryRunner is released mid-transaction). */
  async abandon(): Promise<void> {
    if (this.branches.size === 0 && !this.transaction) return;
    await this.finish({ sql: 'ROLLBACK', parameters: [] }, false).catch(() => undefined);
  }

  /** Sends a savepoint statement to every branch with a connection of its own (attached ones share it). */
  private async onBranches(statement: SessionStatement): Promise<void> {
    await Promise.all([...this.branches.values()].map(async ({ branch, ready }) => {
      await ready;
      if (branch.kind === 'attached') return;
      try {
        await branch.runner.query(statement.sql, [...statement.parameters]);
      } catch (cause) {
        throw shardFailure(cause, { shard: branch.server, physicalQuery: statement.sql, physicalParameters: statement.parameters });
      }
    }));
  }

  private forgetSavepoint(sql: string, releaseIt: boolean): void {
    const name = savepointName(sql);
    // The newest savepoint of that name, as SQLite picks it (MySQL keeps only one per name).
    const at = this.opening.findLastIndex((o) => o.kind === 'savepoint' && savepointName(o.statement.sql) === name);
    if (at < 0) return;
    // ROLLBACK TO keeps the savepoint itself; RELEASE drops it. Either way later ones are gone.
    this.opening.splice(releaseIt ? at : at + 1);
  }

  private async finish(statement: SessionStatement, commit: boolean): Promise<void> {
    const transaction = this.transaction;
    // Branches still opening are waited for: each either joined (and ends here) or gave its connection back.
    const settled = await Promise.all([...this.branches.values()].map(({ branch, ready }) => ready.then(() => branch, () => undefined)));
    const branches = settled.filter((b): b is Branch => b !== undefined);
    this.branches.clear();
    this.opening.length = 0;
    this.transaction = undefined;
    this.begin = undefined;
    if (!transaction) return;
    try {
      if (commit) await transaction.commit(branches, statement);
      else await transaction.rollback(branches, statement);
    } catch (error) {
      this.rollbackOwed = commit;
      throw error;
    }
  }
}

function savepointName(sql: string): string | undefined {
  const m = /SAVEPOINT\s+[`"]?(\w+)/i.exec(sql);
  return m?.[1];
}
