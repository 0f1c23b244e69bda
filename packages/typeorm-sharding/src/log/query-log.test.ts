import { describe, expect, it } from 'vitest';
import { QueryFailedError, type Logger } from 'typeorm';
import { ShardQueryError, UnsupportedShardingError } from '../errors/index.js';
import { databaseErrorOf, loggedParameters } from './logical-query-log.js';
import { describePhysicalQuery, physicalQueryLog } from './physical-query-log.js';

/** A logger that records its calls as `[method, ...arguments]`. */
function recorder(): { logger: Logger; calls: unknown[][] } {
  const calls: unknown[][] = [];
  const record = (method: string) => (...args: unknown[]) => void calls.push([method, ...args]);
  const logger = {
    logQuery: record('logQuery'),
    logQueryError: record('logQueryError'),
    logQuerySlow: record('logQuerySlow'),
    logSchemaBuild: record('logSchemaBuild'),
    logMigration: record('logMigration'),
    log: record('log'),
  } as Logger;
  return { logger, calls };
}

const event = { shard: 's1', server: 's1', shards: ['s1'], sql: 'SELECT id FROM orders WHERE id IN (?, ?)', parameters: [1, 5] as const, durationMs: 12.34, rowCount: 2 };

describe('loggedParameters', () => {
  it('logs parameters as the dialect\'s TypeORM runner binds them', () => {
    expect(loggedParameters('mysql', undefined)).toBeUndefined();
    expect(loggedParameters('mysql', [true, 1])).toEqual([true, 1]);
    expect(loggedParameters('sqlite', undefined)).toEqual([]);
    expect(loggedParameters('sqlite', [true, false, 'x'])).toEqual([1, 0, 'x']);
  });
});

describe('databaseErrorOf', () => {
  it('finds the database error under the plugin\'s and TypeORM\'s wrappers', () => {
    const driver = Object.assign(new Error('Duplicate entry'), { code: 'ER_DUP_ENTRY' });
    expect(databaseErrorOf(new ShardQueryError(driver, { shard: 's1', physicalQuery: 'SELECT 1', physicalParameters: [] }))).toBe(driver);
    expect(databaseErrorOf(new ShardQueryError(new QueryFailedError('SELECT 1', [], driver), { shard: 's1', physicalQuery: 'SELECT 1', physicalParameters: [] }))).toBe(driver);
    const refusal = new UnsupportedShardingError('UNION over sharded tables');
    expect(databaseErrorOf(refusal)).toBe(refusal);
  });
});

describe('physicalQueryLog', () => {
  it('logs nothing when off', () => {
    expect(physicalQueryLog(() => recorder().logger, false, undefined)).toBeUndefined();
  });

  it("'query': as TypeORM logs a statement, the shard named in a comment, slow and failed ones too", () => {
    const { logger, calls } = recorder();
    const log = physicalQueryLog(() => logger, 'query', 10)!;
    log(event, undefined);
    const failure = new Error('no such column: x');
    log({ ...event, durationMs: 3, error: new ShardQueryError(failure, { shard: 's1', physicalQuery: 'SELECT 1', physicalParameters: [] }) }, undefined);
    const sql = '/* shard s1 */ SELECT id FROM orders WHERE id IN (?, ?)';
    expect(calls).toEqual([
      ['logQuery', sql, [1, 5], undefined],
      ['logQuerySlow', 12, sql, [1, 5], undefined],
      ['logQuery', sql, [1, 5], undefined],
      ['logQueryError', failure, sql, [1, 5], undefined],
    ]);
  });

  it("'info': one line per statement at that level", () => {
    const { logger, calls } = recorder();
    physicalQueryLog(() => logger, 'info', undefined)!(event, undefined);
    expect(calls).toEqual([['log', 'info', 'shard s1 (12.3 ms, 2 rows): SELECT id FROM orders WHERE id IN (?, ?) -- PARAMETERS: [1,5]', undefined]]);
  });
});

describe('describePhysicalQuery', () => {
  it('names the shard, the failure and the statement', () => {
    expect(describePhysicalQuery({ shard: 's0', server: 's0', shards: ['s0'], sql: 'DROP INDEX i', parameters: [], durationMs: 0.5, rowCount: 0, error: new Error('no such index: i') })).toBe(
      'shard s0 failed after 0.5 ms: no such index: i: DROP INDEX i',
    );
    expect(describePhysicalQuery({ shard: 's0', server: 's0', shards: ['s0'], sql: 'SELECT ?', parameters: [10n], durationMs: 1, rowCount: 1 })).toBe('shard s0 (1.0 ms, 1 row): SELECT ? -- PARAMETERS: ["10"]');
    expect(describePhysicalQuery({ shard: 's0', server: 'db:3306', shards: ['s0', 's2'], sql: '(SELECT 1) UNION ALL (SELECT 1)', parameters: [], durationMs: 1, rowCount: 2 })).toBe(
      'server db:3306, shards s0, s2 (1.0 ms, 2 rows): (SELECT 1) UNION ALL (SELECT 1)',
    );
    // With the query router the line names the node that ran it.
    expect(describePhysicalQuery({ ...event, node: 'db1-replica2', role: 'replica', reason: 'read' })).toBe('shard s1 on node db1-replica2 (12.3 ms, 2 rows): SELECT id FROM orders WHERE id IN (?, ?) -- PARAMETERS: [1,5]');
  });
});
