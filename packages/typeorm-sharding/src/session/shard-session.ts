import type { QueryRunner, ReplicationMode } from 'typeorm';
import { ShardingError } from '../errors/index.js';
import { shardFailure } from '../execute/shard-failure.js';
import type { ShardTarget } from '../execute/shard-target.js';
import type { SqlDialect } from '../parameterize/index.js';
import type { TransactionControl } from '../plan/transaction-control.js';

export type { TransactionControl };

/** A statement replayed on a shard that joins a transaction late (isolation level, savepoints). */
interface SessionStatement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/**
 * The per-QueryRunner state that spans statements: whether a transaction is open, and
 * which server connections it has pinned. TypeORM drives transactions by sending
 * `START TRANSACTION` / `SAVEPOINT` / `COMMIT` text through `query()`; the session opens
 * the transaction on a server only when a statement first touches one of its shards (servers
 * a transaction never touches cost nothing), replaying the isolation level and open
 * savepoints there. All shards of a server share its connection, so their part of the
 * transaction commits atomically, as one local transaction (SQLite: each shard file is its
 * own server).
 *
 * Commit is per server, one after the other: without XA a commit that fails on a later
 * server cannot undo earlier ones. That case raises `PartialCommitError` naming both sets.
 *
 * Misplaced control statements behave as the database would: a second BEGIN commits the open
 * transaction on MySQL and is refused on SQLite, as are COMMIT / ROLLBACK / SAVEPOINT outside a
 * transaction (MySQL accepts those silently). The session is never left half-open.
 */
export class ShardSession {
  private transactionOpen = false;
  /**
   * A COMMIT failed: the database would still hold the transaction open until a ROLLBACK
   * (TypeORM sends one), while here every shard has already been rolled back or committed.
   */
  private rollbackOwed = false;
  /** Statements that opened the transaction and its savepoints, replayed on late-joining shards. */
  private readonly opening: SessionStatement[] = [];
  private readonly pinned = new Map<string, QueryRunner>();
  private readonly locks = new WeakMap<QueryRunner, Promise<void>>();

  /**
   * @param mode replication mode of statements outside transactions
   * @param dialect whose rules misplaced control statements follow
   * @param owner the QueryRunner this session belongs to: named in log lines of its physical statements
   * @default dialect 'mysql'
   */
  constructor(
    readonly mode: ReplicationMode,
    private readonly dialect: SqlDialect = 'mysql',
    readonly owner?: QueryRunner,
  ) {}

  /** True between BEGIN and COMMIT/ROLLBACK. */
  get inTransaction(): boolean {
    return this.transactionOpen;
  }

  /**
   * The runner a statement on `target` uses: the pinned one inside a transaction (opened
   * on first use), else a fresh one the caller must give back with `done()`.
   */
  async acquire(target: ShardTarget): Promise<QueryRunner> {
    if (!this.transactionOpen) return target.createRunner(this.mode);
    // One connection per server: the shards of a server share it and commit together.
    const existing = this.pinned.get(target.server);
    if (existing) return existing;
    const runner = target.createRunner('master');
    this.pinned.set(target.server, runner);
    let replaying: SessionStatement | undefined;
    try {
      for (const s of this.opening) {
        replaying = s;
        await runner.query(s.sql, [...s.parameters]);
      }
    } catch (cause) {
      this.pinned.delete(target.server);
      // A BEGIN that did run must not stay open on the shard's connection.
      await runner.query('ROLLBACK').catch(() => undefined);
      await runner.release().catch(() => undefined);
      throw shardFailure(cause, {
        shard: target.server,
        physicalQuery: replaying?.sql ?? '',
        physicalParameters: replaying?.parameters ?? [],
        context: 'while opening the transaction there',
      });
    }
    return runner;
  }

  /**
   * Runs `work` alone on `runner`: a server's pinned connection serves all its shards, and a
   * statement that needs `USE` first must not have another shard's statement run in between.
   */
  exclusive<T>(runner: QueryRunner, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(runner) ?? Promise.resolve();
    const run = previous.then(work, work);
    this.locks.set(runner, run.then(() => undefined, () => undefined));
    return run;
  }

  /** Gives back a runner from `acquire` (pinned runners stay until the transaction ends). */
  async done(target: ShardTarget, runner: QueryRunner): Promise<void> {
    if (this.pinned.get(target.server) !== runner) await target.releaseRunner(runner);
  }

  /** Handles a transaction-control statement TypeORM sent through the sharded runner. */
  async control(statement: SessionStatement, kind: TransactionControl): Promise<void> {
    switch (kind) {
      case 'set-isolation':
        // Applies to the next transaction only: remember it for the shards it will touch.
        this.opening.push(statement);
        return;
      case 'begin':
        if (this.transactionOpen) {
          if (this.dialect === 'sqlite') throw new TransactionStateError('cannot start a transaction within a transaction');
          // MySQL commits the open transaction implicitly.
          await this.finish({ sql: 'COMMIT', parameters: [] }, true);
        }
        this.transactionOpen = true;
        this.rollbackOwed = false;
        this.opening.push(statement);
        return;
      case 'savepoint':
        if (!this.transactionOpen) return this.outsideTransaction('SAVEPOINT');
        this.opening.push(statement);
        await this.onPinned(statement);
        return;
      case 'release-savepoint':
      case 'rollback-to-savepoint':
        this.forgetSavepoint(statement.sql, kind === 'release-savepoint');
        await this.onPinned(statement);
        return;
      case 'commit':
        if (!this.transactionOpen) return this.outsideTransaction('COMMIT');
        await this.finish(statement, true);
        return;
      case 'rollback':
        if (!this.transactionOpen) {
          if (this.rollbackOwed) return void (this.rollbackOwed = false);
          return this.outsideTransaction('ROLLBACK');
        }
        await this.finish(statement, false);
        return;
    }
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
    if (this.pinned.size === 0 && !this.transactionOpen) return;
    await this.finish({ sql: 'ROLLBACK', parameters: [] }, false).catch(() => undefined);
  }

  private async onPinned(statement: SessionStatement): Promise<void> {
    await Promise.all([...this.pinned].map(async ([shard, runner]) => {
      try {
        await runner.query(statement.sql, [...statement.parameters]);
      } catch (cause) {
        throw shardFailure(cause, { shard, physicalQuery: statement.sql, physicalParameters: statement.parameters });
      }
    }));
  }

  private forgetSavepoint(sql: string, releaseIt: boolean): void {
    const name = savepointName(sql);
    // The newest savepoint of that name, as SQLite picks it (MySQL keeps only one per name).
    const at = this.opening.findLastIndex((s) => savepointName(s.sql) === name && /^\s*SAVEPOINT/i.test(s.sql));
    if (at < 0) return;
    // ROLLBACK TO keeps the savepoint itself; RELEASE drops it. Either way later ones are gone.
    this.opening.splice(releaseIt ? at : at + 1);
  }

  private async finish(statement: SessionStatement, commit: boolean): Promise<void> {
    const runners = [...this.pinned];
    this.pinned.clear();
    this.opening.length = 0;
    this.transactionOpen = false;
    const done: string[] = [];
    let failure: { shard: string; cause: unknown } | undefined;
    for (const [shard, runner] of runners) {
      try {
        if (!failure || !commit) await runner.query(statement.sql, [...statement.parameters]);
        else await runner.query('ROLLBACK').catch(() => undefined);
        if (!failure) done.push(shard);
      } catch (cause) {
        failure ??= { shard, cause };
        // A failed COMMIT leaves the transaction open on that connection (SQLite's is shared): end it.
        if (commit) await runner.query('ROLLBACK').catch(() => undefined);
      } finally {
        await runner.release().catch(() => undefined);
      }
    }
    if (!failure) return;
    this.rollbackOwed = commit;
    if (commit && done.length > 0) {
      throw new PartialCommitError(done, failure.shard, failure.cause);
    }
    throw shardFailure(failure.cause, { shard: failure.shard, physicalQuery: statement.sql, physicalParameters: statement.parameters });
  }
}

function savepointName(sql: string): string | undefined {
  const m = /SAVEPOINT\s+[`"]?(\w+)/i.exec(sql);
  return m?.[1];
}

/**
 * COMMIT reached some servers and then failed on another: the transaction is partly durable.
 * Shards of one server commit together, so the error names servers (SQLite: shards).
 */
export class PartialCommitError extends ShardingError {
  readonly code = 'SHARDING_PARTIAL_COMMIT';
  constructor(
    /** Servers whose part of the transaction is committed. */
    readonly committedServers: readonly string[],
    /** The server whose COMMIT failed. */
    readonly failedServer: string,
    cause: unknown,
  ) {
    super(
      `COMMIT failed on server ${failedServer} after server${committedServers.length > 1 ? 's' : ''} ${committedServers.join(', ')} had committed; the rest was rolled back.`,
      { stage: 'execute', shard: failedServer, cause },
    );
  }
}

/**
 * A transaction-control statement arrived where the database would refuse it (a second BEGIN
 * on SQLite, COMMIT with no transaction open, …). Nothing was run; the session is unchanged.
 */
export class TransactionStateError extends ShardingError {
  readonly code = 'SHARDING_TRANSACTION_STATE';
  constructor(reason: string) {
    super(`${reason}. Use the EntityManager passed to the transaction callback for work inside a transaction, and let each transaction finish before starting another on the same QueryRunner.`, { stage: 'execute' });
  }
}
