import { shardFailure } from '../execute/shard-failure.js';
import type { ShardTarget } from '../execute/shard-target.js';
import { committedOn, type Branch, type CommitProtocol, type Join, type OpeningStatement, type SessionStatement, type SessionTransaction } from './commit-protocol.js';
import { PartialCommitError } from './session-errors.js';

/**
 * A local transaction per server, committed one server after the other: what one server (or
 * `sharding.transactions.crossServer: 'sequential'`, or SQLite shards in memory) needs. All
 * shards of a server share its connection, so their part commits atomically; across servers a
 * COMMIT that fails after earlier servers committed cannot undo them and raises
 * `PartialCommitError` naming both sets.
 */
export const sequentialCommit: CommitProtocol = {
  begin: () => new SequentialTransaction(),
};

class SequentialTransaction implements SessionTransaction {
  join(target: ShardTarget, _joined: readonly Branch[], opening: readonly OpeningStatement[]): Join {
    const branch: Branch = { server: target.server, target, runner: target.createRunner('master'), kind: 'own' };
    return { branch, open: () => openLocal(branch, opening.map((o) => o.statement)) };
  }

  async commit(branches: readonly Branch[], statement: SessionStatement): Promise<void> {
    const done: string[] = [];
    let failure: { server: string; cause: unknown } | undefined;
    for (const branch of branches) {
      const { server, runner } = branch;
      try {
        if (!failure) {
          committedOn(branch, await runner.query(statement.sql, [...statement.parameters]));
          done.push(server);
        } else {
          await runner.query('ROLLBACK').catch(() => undefined);
        }
      } catch (cause) {
        failure = { server, cause };
        // A failed COMMIT leaves the transaction open on that connection (SQLite's is shared): end it.
        await runner.query('ROLLBACK').catch(() => undefined);
      } finally {
        await runner.release().catch(() => undefined);
      }
    }
    if (!failure) return;
    if (done.length > 0) throw new PartialCommitError(done, failure.server, failure.cause);
    throw shardFailure(failure.cause, { shard: failure.server, physicalQuery: statement.sql, physicalParameters: statement.parameters });
  }

  rollback(branches: readonly Branch[], statement: SessionStatement): Promise<void> {
    return rollbackLocal(branches, statement);
  }
}

/**
 * Replays the statements that opened the transaction (isolation level, BEGIN, savepoints) on a
 * branch's connection; on failure `cleanUp` ends what did open there (by default a ROLLBACK),
 * the connection is given back, and the error names the statement.
 */
export async function openLocal(branch: Branch, statements: readonly SessionStatement[], cleanUp = async () => void (await branch.runner.query('ROLLBACK').catch(() => undefined))): Promise<void> {
  let replaying: SessionStatement | undefined;
  try {
    for (const s of statements) {
      replaying = s;
      await branch.runner.query(s.sql, [...s.parameters]);
    }
  } catch (cause) {
    // A BEGIN that did run must not stay open on the shard's connection.
    await cleanUp();
    await branch.runner.release().catch(() => undefined);
    throw shardFailure(cause, {
      shard: branch.server,
      physicalQuery: replaying?.sql ?? '',
      physicalParameters: replaying?.parameters ?? [],
      context: 'while opening the transaction there',
    });
  }
}

/** Sends `statement` (a ROLLBACK) to every branch and gives the connections back; the first failure is raised after all. */
export async function rollbackLocal(branches: readonly Branch[], statement: SessionStatement): Promise<void> {
  let failure: { server: string; cause: unknown } | undefined;
  for (const { server, runner } of branches) {
    try {
      await runner.query(statement.sql, [...statement.parameters]);
    } catch (cause) {
      failure ??= { server, cause };
    } finally {
      await runner.release().catch(() => undefined);
    }
  }
  if (failure) throw shardFailure(failure.cause, { shard: failure.server, physicalQuery: statement.sql, physicalParameters: statement.parameters });
}
