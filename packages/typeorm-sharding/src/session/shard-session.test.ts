import { describe, expect, it } from 'vitest';
import { QueryFailedError, type QueryRunner } from 'typeorm';
import { ShardQueryError } from '../errors/index.js';
import type { ShardTarget } from '../execute/shard-target.js';
import { PartialCommitError, ShardSession, TransactionStateError } from './shard-session.js';

/**
 * Fake shards whose runners log every statement; `failOn` makes one statement fail on one shard.
 * Each has query-router nodes that note the servers whose COMMIT result they were given (`noted`).
 */
function shards(names: string[], failOn?: { shard: string; sql: string }) {
  const log: string[] = [];
  const noted: string[] = [];
  let released = 0;
  const targets: ShardTarget[] = names.map((name, index) => ({
    name,
    index,
    server: name,
    dataSource: undefined as never,
    check: async () => undefined,
    createRunner: () =>
      ({
        query: async (sql: string) => {
          log.push(`${name}: ${sql}`);
          if (failOn && failOn.shard === name && failOn.sql === sql) throw new Error(`${sql} failed`);
          return [];
        },
        release: async () => {
          released++;
        },
      }) as unknown as QueryRunner,
    releaseRunner: async (runner) => runner.release(),
    execute: async () => {
      throw new Error('not used');
    },
    nodes: { committed: () => void noted.push(name) } as unknown as ShardTarget['nodes'],
  }));
  return { targets, log, noted, released: () => released };
}

const s = (sql: string) => ({ sql, parameters: [] });

describe('ShardSession', () => {
  it('opens the transaction on a shard only when a statement first touches it, replaying the isolation level and open savepoints', async () => {
    const { targets, log } = shards(['a', 'b', 'c']);
    const session = new ShardSession('master');
    await session.control(s('SET TRANSACTION ISOLATION LEVEL SERIALIZABLE'), 'set-isolation');
    await session.control(s('START TRANSACTION'), 'begin');
    const a = await session.acquire(targets[0]!);
    await a.query('UPDATE t SET x = 1');
    await session.control(s('SAVEPOINT typeorm_1'), 'savepoint');
    const b = await session.acquire(targets[1]!);
    expect(await session.acquire(targets[1]!)).toBe(b);
    expect(log).toEqual([
      'a: SET TRANSACTION ISOLATION LEVEL SERIALIZABLE',
      'a: START TRANSACTION',
      'a: UPDATE t SET x = 1',
      'a: SAVEPOINT typeorm_1',
      'b: SET TRANSACTION ISOLATION LEVEL SERIALIZABLE',
      'b: START TRANSACTION',
      'b: SAVEPOINT typeorm_1',
    ]);
    // A released savepoint is not replayed on shards that join later.
    await session.control(s('RELEASE SAVEPOINT typeorm_1'), 'release-savepoint');
    log.length = 0;
    await session.acquire(targets[2]!);
    expect(log).toEqual(['c: SET TRANSACTION ISOLATION LEVEL SERIALIZABLE', 'c: START TRANSACTION']);
  });

  it('commits every touched shard and gives every connection back', async () => {
    const { targets, log, released } = shards(['a', 'b']);
    const session = new ShardSession('master');
    await session.control(s('START TRANSACTION'), 'begin');
    await session.acquire(targets[0]!);
    await session.acquire(targets[1]!);
    log.length = 0;
    await session.control(s('COMMIT'), 'commit');
    expect(log.sort()).toEqual(['a: COMMIT', 'b: COMMIT']);
    expect(released()).toBe(2);
    expect(session.inTransaction).toBe(false);
  });

  it('with the query router: the BEGIN text holds for the transaction (its hints), and each server that committed hands its COMMIT result over for its GTID', async () => {
    const { targets, noted } = shards(['a', 'b', 'c'], { shard: 'c', sql: 'COMMIT' });
    const session = new ShardSession('master');
    expect(session.beginSql).toBeUndefined();
    await session.control(s('/*+ MASTER_ONLY */ START TRANSACTION'), 'begin');
    expect(session.beginSql).toBe('/*+ MASTER_ONLY */ START TRANSACTION');
    await session.acquire(targets[0]!);
    await session.acquire(targets[1]!);
    await session.control(s('COMMIT'), 'commit');
    expect(noted).toEqual(['a', 'b']);
    expect(session.beginSql).toBeUndefined();
    // A second transaction: c's COMMIT fails after a committed, so only a is handed over.
    noted.length = 0;
    await session.control(s('START TRANSACTION'), 'begin');
    expect(session.beginSql).toBe('START TRANSACTION');
    await session.acquire(targets[0]!);
    await session.acquire(targets[2]!);
    await expect(session.control(s('COMMIT'), 'commit')).rejects.toBeInstanceOf(PartialCommitError);
    expect(noted).toEqual(['a']);
    // A rollback hands nothing over.
    noted.length = 0;
    await session.control(s('ROLLBACK'), 'rollback');
    await session.control(s('START TRANSACTION'), 'begin');
    await session.acquire(targets[1]!);
    await session.control(s('ROLLBACK'), 'rollback');
    expect(noted).toEqual([]);
  });

  it('raises PartialCommitError naming the committed shards when a later COMMIT fails, and rolls back the rest', async () => {
    const { targets, log, released } = shards(['a', 'b', 'c'], { shard: 'b', sql: 'COMMIT' });
    const session = new ShardSession('master');
    await session.control(s('START TRANSACTION'), 'begin');
    for (const t of targets) await session.acquire(t);
    log.length = 0;
    const error = await session.control(s('COMMIT'), 'commit').then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(PartialCommitError);
    expect((error as PartialCommitError).committedServers).toEqual(['a']);
    expect((error as PartialCommitError).shard).toBe('b');
    expect(log).toEqual(['a: COMMIT', 'b: COMMIT', 'b: ROLLBACK', 'c: ROLLBACK']);
    expect(released()).toBe(3);
  });

  it('reports a plain ShardQueryError when the first COMMIT fails (nothing is durable)', async () => {
    const { targets } = shards(['a', 'b'], { shard: 'a', sql: 'COMMIT' });
    const session = new ShardSession('master');
    await session.control(s('START TRANSACTION'), 'begin');
    for (const t of targets) await session.acquire(t);
    const error = await session.control(s('COMMIT'), 'commit').then(() => undefined, (e: unknown) => e);
    expect(error).not.toBeInstanceOf(PartialCommitError);
    expect(error).toBeInstanceOf(ShardQueryError);
    expect(error).toBeInstanceOf(QueryFailedError);
    expect(error).toMatchObject({ shard: 'a', physicalQuery: 'COMMIT', message: 'COMMIT failed (on shard a)' });
    expect(session.inTransaction).toBe(false);
  });

  it('after a failed COMMIT: rolls that shard back, and accepts the ROLLBACK TypeORM sends next (SQLite)', async () => {
    const { targets, log } = shards(['a', 'b'], { shard: 'a', sql: 'COMMIT' });
    const session = new ShardSession('master', 'sqlite');
    await session.control(s('BEGIN TRANSACTION'), 'begin');
    for (const t of targets) await session.acquire(t);
    log.length = 0;
    await expect(session.control(s('COMMIT'), 'commit')).rejects.toBeInstanceOf(ShardQueryError);
    expect(log).toEqual(['a: COMMIT', 'a: ROLLBACK', 'b: ROLLBACK']);
    await session.control(s('ROLLBACK'), 'rollback');
    // Only that one: a second ROLLBACK has no transaction to end.
    await expect(session.control(s('ROLLBACK'), 'rollback')).rejects.toBeInstanceOf(TransactionStateError);
  });

  it('replays a savepoint that ROLLBACK TO kept on a shard that joins afterwards, and drops the later ones', async () => {
    const { targets, log } = shards(['a', 'b']);
    const session = new ShardSession('master');
    await session.control(s('START TRANSACTION'), 'begin');
    await session.control(s('SAVEPOINT sp1'), 'savepoint');
    await session.acquire(targets[0]!);
    await session.control(s('SAVEPOINT sp2'), 'savepoint');
    await session.control(s('ROLLBACK TO SAVEPOINT sp1'), 'rollback-to-savepoint');
    log.length = 0;
    await session.acquire(targets[1]!);
    // sp1 still exists after ROLLBACK TO (only sp2, set after it, is gone): a later ROLLBACK TO sp1 must work on b too.
    expect(log).toEqual(['b: START TRANSACTION', 'b: SAVEPOINT sp1']);
  });

  it('releases the newest savepoint of a reused name, as SQLite does', async () => {
    const { targets, log } = shards(['a']);
    const session = new ShardSession('master', 'sqlite');
    await session.control(s('BEGIN TRANSACTION'), 'begin');
    await session.control(s('SAVEPOINT typeorm_1'), 'savepoint');
    await session.control(s('SAVEPOINT typeorm_1'), 'savepoint');
    await session.control(s('RELEASE SAVEPOINT typeorm_1'), 'release-savepoint');
    await session.acquire(targets[0]!);
    expect(log).toEqual(['a: BEGIN TRANSACTION', 'a: SAVEPOINT typeorm_1']);
  });

  it('rolls back and releases a shard whose transaction could not be opened, leaving the session usable', async () => {
    const { targets, log, released } = shards(['a'], { shard: 'a', sql: 'SAVEPOINT sp1' });
    const session = new ShardSession('master', 'sqlite');
    await session.control(s('BEGIN TRANSACTION'), 'begin');
    await session.control(s('SAVEPOINT sp1'), 'savepoint');
    const error = await session.acquire(targets[0]!).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ShardQueryError);
    expect(error).toMatchObject({ shard: 'a', physicalQuery: 'SAVEPOINT sp1' });
    // The BEGIN that did run is not left open on the shard's (shared) connection.
    expect(log).toEqual(['a: BEGIN TRANSACTION', 'a: SAVEPOINT sp1', 'a: ROLLBACK']);
    expect(released()).toBe(1);
    await session.control(s('ROLLBACK'), 'rollback');
    expect(session.inTransaction).toBe(false);
  });

  it('SQLite: refuses a second BEGIN and COMMIT / ROLLBACK / SAVEPOINT outside a transaction, and stays as it was', async () => {
    const { targets, log } = shards(['a']);
    const session = new ShardSession('master', 'sqlite');
    for (const [sql, kind] of [['COMMIT', 'commit'], ['ROLLBACK', 'rollback'], ['SAVEPOINT x', 'savepoint']] as const) {
      await expect(session.control(s(sql), kind)).rejects.toBeInstanceOf(TransactionStateError);
    }
    await session.control(s('BEGIN TRANSACTION'), 'begin');
    await expect(session.control(s('BEGIN TRANSACTION'), 'begin')).rejects.toThrow(/cannot start a transaction within a transaction/);
    await session.acquire(targets[0]!);
    expect(log).toEqual(['a: BEGIN TRANSACTION']);
    await session.control(s('COMMIT'), 'commit');
    expect(session.inTransaction).toBe(false);
  });

  it('MySQL: a second START TRANSACTION commits the open one; COMMIT outside a transaction does nothing', async () => {
    const { targets, log } = shards(['a']);
    const session = new ShardSession('master', 'mysql');
    await session.control(s('COMMIT'), 'commit');
    await session.control(s('START TRANSACTION'), 'begin');
    await session.acquire(targets[0]!);
    await session.control(s('START TRANSACTION'), 'begin');
    await session.acquire(targets[0]!);
    expect(log).toEqual(['a: START TRANSACTION', 'a: COMMIT', 'a: START TRANSACTION']);
    expect(session.inTransaction).toBe(true);
  });

  it('runs a multi-shard write atomically: in a transaction of its own outside one, behind a savepoint inside one', async () => {
    const { targets, log } = shards(['a', 'b']);
    const session = new ShardSession('master');
    await session.atomically(async () => {
      for (const t of targets) await (await session.acquire(t)).query('UPDATE t SET x = 1');
    });
    expect(log).toEqual(['a: START TRANSACTION', 'a: UPDATE t SET x = 1', 'b: START TRANSACTION', 'b: UPDATE t SET x = 1', 'a: COMMIT', 'b: COMMIT']);
    expect(session.inTransaction).toBe(false);

    log.length = 0;
    await session.control(s('START TRANSACTION'), 'begin');
    await (await session.acquire(targets[0]!)).query('UPDATE t SET x = 2');
    const failed = await session.atomically(async () => {
      for (const t of targets) await (await session.acquire(t)).query('UPDATE t SET x = 3');
      throw new Error('the last shard refused');
    }).catch((e: unknown) => e);
    expect(failed).toMatchObject({ message: 'the last shard refused' });
    // b joined inside the statement: the savepoint was replayed there, and both were rolled back to it.
    expect(log).toEqual([
      'a: START TRANSACTION',
      'a: UPDATE t SET x = 2',
      'a: SAVEPOINT tsh_statement_1',
      'a: UPDATE t SET x = 3',
      'b: START TRANSACTION',
      'b: SAVEPOINT tsh_statement_1',
      'b: UPDATE t SET x = 3',
      'a: ROLLBACK TO SAVEPOINT tsh_statement_1',
      'b: ROLLBACK TO SAVEPOINT tsh_statement_1',
      'a: RELEASE SAVEPOINT tsh_statement_1',
      'b: RELEASE SAVEPOINT tsh_statement_1',
    ]);
    expect(session.inTransaction).toBe(true);
  });

  it('a failed own transaction is rolled back and owes no ROLLBACK afterwards', async () => {
    const { targets, log } = shards(['a', 'b'], { shard: 'b', sql: 'UPDATE t SET x = 1' });
    const session = new ShardSession('master', 'sqlite');
    await expect(session.atomically(async () => {
      for (const t of targets) await (await session.acquire(t)).query('UPDATE t SET x = 1');
    })).rejects.toThrow('UPDATE t SET x = 1 failed');
    expect(log).toEqual(['a: BEGIN TRANSACTION', 'a: UPDATE t SET x = 1', 'b: BEGIN TRANSACTION', 'b: UPDATE t SET x = 1', 'a: ROLLBACK', 'b: ROLLBACK']);
    await expect(session.control(s('ROLLBACK'), 'rollback')).rejects.toBeInstanceOf(TransactionStateError);
  });

  it('commits implicitly before DDL (MySQL): the transaction is over, and the COMMIT TypeORM sends later finds none', async () => {
    const { targets, log } = shards(['a']);
    const session = new ShardSession('master', 'mysql');
    await session.control(s('START TRANSACTION'), 'begin');
    await session.acquire(targets[0]!);
    await session.commitImplicitly();
    expect(session.inTransaction).toBe(false);
    await session.control(s('COMMIT'), 'commit');
    expect(log).toEqual(['a: START TRANSACTION', 'a: COMMIT']);
  });

  it('a statement for a server whose branch is still opening waits for it (no statement before its BEGIN)', async () => {
    const { targets, log } = shards(['a']);
    const session = new ShardSession('master');
    await session.control(s('SET TRANSACTION ISOLATION LEVEL SERIALIZABLE'), 'set-isolation');
    await session.control(s('START TRANSACTION'), 'begin');
    await Promise.all([1, 2].map(async (n) => (await session.acquire(targets[0]!)).query(`UPDATE t SET x = ${n}`)));
    expect(log.slice(0, 2)).toEqual(['a: SET TRANSACTION ISOLATION LEVEL SERIALIZABLE', 'a: START TRANSACTION']);
  });

  it('inside a transaction, logical statements sent concurrently run one after the other: their statement savepoints nest', async () => {
    const { targets, log } = shards(['a', 'b']);
    const session = new ShardSession('master');
    await session.control(s('START TRANSACTION'), 'begin');
    const write = (n: number) => session.serially(() => session.atomically(async () => {
      for (const t of targets) await (await session.acquire(t)).query(`UPDATE t SET x = ${n}`);
    }));
    await Promise.all([write(1), write(2)]);
    const onA = log.filter((l) => l.startsWith('a: ')).slice(1);
    expect(onA).toEqual([
      'a: SAVEPOINT tsh_statement_1',
      'a: UPDATE t SET x = 1',
      'a: RELEASE SAVEPOINT tsh_statement_1',
      'a: SAVEPOINT tsh_statement_2',
      'a: UPDATE t SET x = 2',
      'a: RELEASE SAVEPOINT tsh_statement_2',
    ]);
  });

  it('outside a transaction, serially() does not queue: a statement waiting for another caller\'s transaction cannot hold up that transaction\'s statements', async () => {
    const { targets } = shards(['a']);
    const session = new ShardSession('master');
    let release!: () => void;
    const blocked = session.serially(() => new Promise<void>((resolve) => (release = resolve)));
    await session.control(s('START TRANSACTION'), 'begin');
    await session.serially(async () => (await session.acquire(targets[0]!)).query('UPDATE t SET x = 1'));
    await session.serially(() => session.control(s('COMMIT'), 'commit'));
    release();
    await blocked;
  });
});
