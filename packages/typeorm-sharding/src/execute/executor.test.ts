import { describe, expect, it } from 'vitest';
import { QueryFailedError, type QueryRunner } from 'typeorm';
import { ShardingError, ShardQueryError } from '../errors/index.js';
import { ShardSession } from '../session/shard-session.js';
import type { PhysicalStatement } from '../rewrite/physical-statement.js';
import { executeStatements } from './executor.js';
import type { ShardTarget } from './shard-target.js';

/** A logging fake shard: each statement takes a few ticks; SQL 'FAIL' throws. */
function fakeShards(count: number) {
  const log: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let open = 0;
  const targets: ShardTarget[] = Array.from({ length: count }, (_, index) => ({
    name: `s${index}`,
    index,
    server: `s${index}`,
    dataSource: undefined as never,
    check: async () => undefined,
    createRunner: () => {
      open++;
      return {
        query: async (sql: string) => {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          log.push(`s${index}: ${sql}`);
          await new Promise((r) => setTimeout(r, 2));
          inFlight--;
          if (sql === 'FAIL') throw Object.assign(new Error('boom'), { code: 'ER_DUP_ENTRY', errno: 1062, sqlState: '23000' });
          return { records: [{ shard: index, sql }], raw: [], affected: undefined };
        },
        release: async () => {
          open--;
        },
      } as unknown as QueryRunner;
    },
    releaseRunner: (runner) => runner.release(),
    async execute(sql) {
      const runner = this.createRunner();
      try {
        return await runner.query(sql, [], true);
      } finally {
        await runner.release();
      }
    },
  }));
  return { targets, log, stats: () => ({ maxInFlight, open }) };
}

const settings = (concurrency: number) => ({ concurrency, globalQueue: undefined, onPhysicalQuery: undefined });
const statements = (n: number, shards: number, failAt = -1): PhysicalStatement[] =>
  Array.from({ length: n }, (_, i) => ({ shard: i % shards, sql: i === failAt ? 'FAIL' : `q${i}`, parameters: [] }));

describe('executeStatements', () => {
  it('keeps at most `concurrency` statements in flight and returns results in statement order', async () => {
    const { targets, stats } = fakeShards(4);
    const results = await executeStatements(statements(10, 4), targets, new ShardSession('slave'), settings(3));
    expect(results.map((r) => r.records[0].sql)).toEqual(Array.from({ length: 10 }, (_, i) => `q${i}`));
    expect(stats().maxInFlight).toBe(3);
    expect(stats().open).toBe(0);
  });

  it('runs one at a time with a window of 1 (the article\'s serial extreme)', async () => {
    const { targets, stats } = fakeShards(2);
    await executeStatements(statements(5, 2), targets, new ShardSession('slave'), settings(1));
    expect(stats().maxInFlight).toBe(1);
  });

  it('fails with a typed error naming shard and SQL, starts nothing more, and releases every runner', async () => {
    const { targets, log, stats } = fakeShards(4);
    const error = await executeStatements(statements(12, 4, 1), targets, new ShardSession('slave'), settings(2)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ShardQueryError);
    expect((error as ShardQueryError).shard).toBe('s1');
    expect((error as ShardQueryError).sql).toBe('FAIL');
    expect(log.length).toBeLessThan(12);
    expect(stats().open).toBe(0);
  });

  it('fails when every statement fits in the window: all run to the end, no rows escape, every runner is back', async () => {
    const { targets, log, stats } = fakeShards(4);
    const error = await executeStatements(statements(3, 4, 1), targets, new ShardSession('slave'), settings(4)).then(
      (rows) => rows,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ShardQueryError);
    expect((error as ShardQueryError).shard).toBe('s1');
    expect(log).toHaveLength(3);
    expect(stats().open).toBe(0);
  });

  it("reports a shard's failure as TypeORM's QueryFailedError with the driver's fields, the shard and the physical statement", async () => {
    const { targets } = fakeShards(2);
    const error = (await executeStatements(statements(2, 2, 1), targets, new ShardSession('slave'), settings(2)).catch((e: unknown) => e)) as ShardQueryError;
    expect(error).toBeInstanceOf(QueryFailedError);
    expect(error).toBeInstanceOf(ShardingError);
    expect(error).toMatchObject({ code: 'ER_DUP_ENTRY', errno: 1062, sqlState: '23000', shard: 's1', physicalQuery: 'FAIL', shardingCode: 'SHARDING_SHARD_QUERY_FAILED' });
    expect((error.driverError as Error).message).toBe('boom');
  });

  it('a coalesced read that fails is run again branch by branch, and the error names the failing branch\'s shard', async () => {
    const { targets, log } = fakeShards(3);
    const branches: PhysicalStatement[] = [
      { shard: 0, sql: 'q0', parameters: [] },
      { shard: 1, sql: 'q1', parameters: [] },
      { shard: 2, sql: 'FAIL', parameters: [] },
    ];
    const coalesced: PhysicalStatement = { shard: 0, sql: 'FAIL', parameters: [], branches };
    const error = (await executeStatements([coalesced], targets, new ShardSession('slave'), settings(2)).catch((e: unknown) => e)) as ShardQueryError;
    expect(log).toEqual(['s0: FAIL', 's0: q0', 's1: q1', 's2: FAIL']);
    expect(error).toBeInstanceOf(ShardQueryError);
    expect(error).toMatchObject({ shard: 's2', physicalQuery: 'FAIL' });
  });

  it('a coalesced read that fails without a statement error (a lost connection) is not run again', async () => {
    const { targets, log } = fakeShards(2);
    targets[0] = { ...targets[0]!, execute: async () => Promise.reject(new Error('connection lost')) };
    const coalesced: PhysicalStatement = { shard: 0, sql: 'q', parameters: [], branches: [{ shard: 0, sql: 'q0', parameters: [] }, { shard: 1, sql: 'q1', parameters: [] }] };
    const error = (await executeStatements([coalesced], targets, new ShardSession('slave'), settings(2)).catch((e: unknown) => e)) as ShardQueryError;
    expect(log).toEqual([]);
    expect(error).toMatchObject({ shard: 's0' });
  });

  it('shares a global cap across logical statements', async () => {
    const { default: PQueue } = await import('p-queue');
    const { targets, stats } = fakeShards(4);
    const globalQueue = new PQueue({ concurrency: 2 });
    const s = { concurrency: 4, globalQueue, onPhysicalQuery: undefined };
    await Promise.all([1, 2, 3].map(() => executeStatements(statements(8, 4), targets, new ShardSession('slave'), s)));
    expect(stats().maxInFlight).toBe(2);
  });
});
