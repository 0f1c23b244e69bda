import { QueryFailedError, type QueryRunner } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { driverError } from './testing/fake-xa.js';
import { protocolQuery } from './xa-branch.js';

/** A runner shaped as TypeORM's MySQL runner: a connected mysql2 connection (callback API), the data source's logger, the driver's options. */
function mysqlRunner(reply: (sql: unknown) => { error?: Error; raw?: unknown }, options: Record<string, unknown> = {}) {
  const sent: unknown[] = [];
  const logged: string[] = [];
  let viaRunner = 0;
  const runner = {
    isReleased: false,
    driver: { options },
    dataSource: { logger: { logQuery: (sql: string) => void logged.push(`query ${sql}`), logQueryError: (e: Error, sql: string) => void logged.push(`error ${sql}: ${e.message}`) } },
    databaseConnection: {
      query: (sql: unknown, _values: unknown, callback: (error: Error | null, raw: unknown) => void) => {
        sent.push(sql);
        const r = reply(sql);
        setImmediate(() => callback(r.error ?? null, r.raw));
      },
    },
    query: async () => void viaRunner++,
  };
  return { runner: runner as unknown as QueryRunner, sent, logged, viaRunner: () => viaRunner };
}

describe('protocolQuery', () => {
  it("runs on the runner's connection, logged as TypeORM logs it, and returns the raw result", async () => {
    const r = mysqlRunner(() => ({ raw: { affectedRows: 1 } }));
    expect(await protocolQuery(r.runner, "XA PREPARE 'x','1'")).toEqual({ affectedRows: 1 });
    expect(r.sent).toEqual(["XA PREPARE 'x','1'"]);
    expect(r.logged).toEqual(["query XA PREPARE 'x','1'"]);
    expect(r.viaRunner()).toBe(0);
  });

  it("sends TypeORM's query timeout when the data source enables it", async () => {
    const r = mysqlRunner(() => ({ raw: {} }), { enableQueryTimeout: true, maxQueryExecutionTime: 250 });
    await protocolQuery(r.runner, 'COMMIT');
    expect(r.sent).toEqual([{ sql: 'COMMIT', timeout: 250 }]);
  });

  it("raises the driver's error as TypeORM's runner does: a QueryFailedError with the driver's error, logged", async () => {
    const r = mysqlRunner(() => ({ error: driverError('XAER_RMFAIL', 1399) }));
    const error = await protocolQuery(r.runner, "XA END 'x','1'").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueryFailedError);
    expect((error as QueryFailedError).driverError).toMatchObject({ errno: 1399 });
    expect(r.logged).toEqual(["query XA END 'x','1'", "error XA END 'x','1': XAER_RMFAIL"]);
  });

  it('a runner that is released, not connected or not MySQL runs the statement itself (its own error then)', async () => {
    for (const change of [{ isReleased: true }, { databaseConnection: undefined }, { isReleased: undefined }]) {
      const r = mysqlRunner(() => ({ raw: {} }));
      Object.assign(r.runner, change);
      await protocolQuery(r.runner, 'COMMIT');
      expect(r.viaRunner()).toBe(1);
      expect(r.sent).toEqual([]);
    }
  });
});
