import 'reflect-metadata';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { In, type Logger, type QueryRunner } from 'typeorm';
import { ShardedDataSource, ShardingConfigError } from '../packages/typeorm-sharding/src/index.js';
import { ENTITIES, Order, Region } from './support/entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];

/** One call a logger received: the method, the SQL or message, the parameters, and what else matters. */
interface LogCall {
  readonly method: keyof Logger;
  readonly text: string;
  readonly parameters?: unknown;
  /** logQueryError: the error's message; logQuerySlow: the time; log: the level. */
  readonly detail?: unknown;
  readonly runner?: QueryRunner;
}

/** A Logger that records every call, as a custom logger of an application would receive them. */
class RecordingLogger implements Logger {
  readonly calls: LogCall[] = [];
  logQuery(query: string, parameters?: unknown[], runner?: QueryRunner): void {
    this.calls.push({ method: 'logQuery', text: query, parameters, runner });
  }
  logQueryError(error: string | Error, query: string, parameters?: unknown[], runner?: QueryRunner): void {
    this.calls.push({ method: 'logQueryError', text: query, parameters, detail: typeof error === 'string' ? error : `${error.constructor.name}: ${error.message}`, runner });
  }
  logQuerySlow(time: number, query: string, parameters?: unknown[], runner?: QueryRunner): void {
    this.calls.push({ method: 'logQuerySlow', text: query, parameters, detail: time, runner });
  }
  logSchemaBuild(message: string): void {
    this.calls.push({ method: 'logSchemaBuild', text: message });
  }
  logMigration(message: string): void {
    this.calls.push({ method: 'logMigration', text: message });
  }
  log(level: 'log' | 'info' | 'warn', message: unknown, runner?: QueryRunner): void {
    this.calls.push({ method: 'log', text: String(message), detail: level, runner });
  }
  /** The query log without runners and timings, for comparing two sources. */
  queries(): unknown[] {
    return this.calls.filter((c) => c.method.startsWith('logQuery')).map((c) => [c.method, c.text, c.parameters, c.method === 'logQueryError' ? c.detail : undefined]);
  }
}

const order = (id: number): Partial<Order> => ({ id: String(id), buyerId: id % 3, note: null, amount: id, createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, id)) });

/** A mix of everyday TypeORM calls; the same on both sources. */
async function everydayCalls(ds: Fixture['plain']): Promise<void> {
  const orders = ds.getRepository(Order);
  await orders.save([1, 2, 3, 4, 5, 6, 7, 8].map(order));
  await ds.getRepository(Region).insert([{ id: 1, name: 'north' }]);
  await orders.find({ where: { id: In(['1', '2', '5']) }, order: { id: 'ASC' } });
  await orders.findOneBy({ id: '4' });
  await orders.findAndCount({ order: { createdAt: 'DESC' }, skip: 2, take: 3 });
  await orders.update({ id: '3' }, { note: 'updated' });
  await orders.delete({ id: In(['7', '8']) });
  await ds.transaction(async (m) => {
    await m.getRepository(Order).update({ id: '1' }, { amount: 100 });
    await m.query('SELECT COUNT(*) AS n FROM orders WHERE amount > ?', [10]);
  });
  await ds.query('SELECT id FROM orders WHERE id IN (2, 6) ORDER BY id');
  await ds.createQueryBuilder(Order, 'o').where('o.buyerId = :b', { b: 1 }).orderBy('o.id').getMany();
  await orders.insert(order(2)).catch(() => undefined); // duplicate key: a logged failure
  await ds.query('SELECT nope FROM orders').catch(() => undefined); // an error of the database
}

describe.each(backends)('logging on %s', (backend) => {
  let fx: Fixture;
  afterEach(async () => {
    vi.restoreAllMocks();
    await fx?.close();
  });

  it('calls a custom logger exactly as TypeORM does on one plain DataSource: once per logical statement, logical SQL and parameters', async () => {
    const sharded = new RecordingLogger();
    const plain = new RecordingLogger();
    fx = await openFixture(backend, ENTITIES, 4, {}, { logger: sharded }, { logger: plain });
    sharded.calls.length = 0;
    plain.calls.length = 0;
    await everydayCalls(fx.sharded);
    await everydayCalls(fx.plain);
    expect(sharded.queries()).toEqual(plain.queries());
    expect(sharded.calls.filter((c) => c.method === 'logQueryError')).toHaveLength(2);
    // Several physical statements ran, none of them was logged (logPhysicalQueries is off).
    expect(fx.physical.length).toBeGreaterThan(sharded.calls.length / 2);
    expect(sharded.calls.some((c) => c.text.includes('/* shard'))).toBe(false);
  });

  it('hands the logger the QueryRunner the statement ran on (its `data` included), as TypeORM does', async () => {
    const logger = new RecordingLogger();
    fx = await openFixture(backend, ENTITIES, 4, { logPhysicalQueries: 'info', coalesce: false }, { logger });
    const runner = fx.sharded.createQueryRunner();
    runner.data = { requestId: 'r-42' };
    try {
      logger.calls.length = 0;
      await runner.query('SELECT id FROM orders WHERE id IN (1, 2, 3)');
    } finally {
      await runner.release();
    }
    const logical = logger.calls.filter((c) => c.method === 'logQuery');
    const physical = logger.calls.filter((c) => c.method === 'log');
    expect(logical).toHaveLength(1);
    expect(physical.length).toBeGreaterThan(1);
    for (const call of [...logical, ...physical]) expect(call.runner?.data).toEqual({ requestId: 'r-42' });
  });

  it('respects `logging` of the built-in loggers: [\'error\'] logs the failures only, as on a plain DataSource', async () => {
    const spies = (['log', 'info', 'warn', 'error'] as const).map((level) => vi.spyOn(console, level).mockImplementation(() => undefined));
    const lines = () => spies.flatMap((spy) => spy.mock.calls.map((args) => `${spy.getMockName()}: ${args.map(String).join(' ')}`));
    const clear = () => spies.forEach((spy) => spy.mockClear());
    fx = await openFixture(backend, ENTITIES, 4, {}, { logger: 'simple-console', logging: ['error'] }, { logger: 'simple-console', logging: ['error'] });
    clear();
    await everydayCalls(fx.sharded);
    const sharded = lines();
    clear();
    await everydayCalls(fx.plain);
    expect(sharded).toEqual(lines());
    expect(sharded.filter((l) => l.includes('query failed'))).toHaveLength(2);
    expect(sharded.some((l) => l.startsWith('query:'))).toBe(false);
  });

  it('reports a statement slower than maxQueryExecutionTime through logQuerySlow, as TypeORM does', async () => {
    const slow = backend === 'sqlite'
      ? 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300000) SELECT COUNT(*) AS n FROM c'
      : 'SELECT SLEEP(0.05) AS s, COUNT(*) AS n FROM orders';
    const sharded = new RecordingLogger();
    const plain = new RecordingLogger();
    fx = await openFixture(backend, ENTITIES, 4, {}, { logger: sharded, maxQueryExecutionTime: 5 }, { logger: plain, maxQueryExecutionTime: 5 });
    sharded.calls.length = 0;
    plain.calls.length = 0;
    await fx.sharded.query(slow);
    await fx.plain.query(slow);
    const slowCalls = (l: RecordingLogger) => l.calls.filter((c) => c.method === 'logQuerySlow').map((c) => [c.text, c.parameters]);
    expect(slowCalls(sharded)).toEqual([[slow, backend === 'sqlite' ? [] : undefined]]);
    expect(slowCalls(sharded)).toEqual(slowCalls(plain));
    expect(sharded.calls.find((c) => c.method === 'logQuerySlow')!.detail).toBeGreaterThan(5);
  });

  it('never reports slowness without maxQueryExecutionTime', async () => {
    const logger = new RecordingLogger();
    fx = await openFixture(backend, ENTITIES, 4, {}, { logger });
    await everydayCalls(fx.sharded);
    expect(logger.calls.filter((c) => c.method === 'logQuerySlow')).toEqual([]);
  });

  it("logPhysicalQueries: 'query' logs each physical statement once as TypeORM logs a query, inside transactions too", async () => {
    const logger = new RecordingLogger();
    fx = await openFixture(backend, ENTITIES, 4, { logPhysicalQueries: 'query', coalesce: false }, { logger });
    logger.calls.length = 0;
    fx.physical.length = 0;
    await everydayCalls(fx.sharded);
    const tagged = logger.calls.filter((c) => c.method === 'logQuery' && c.text.startsWith('/* shard '));
    expect(tagged.map((c) => [c.text, c.parameters])).toEqual(fx.physical.map((e) => [`/* shard ${e.shard} */ ${e.sql}`, [...e.parameters]]));
    const failed = logger.calls.filter((c) => c.method === 'logQueryError' && c.text.startsWith('/* shard '));
    expect(failed.map((c) => c.text)).toEqual(fx.physical.filter((e) => e.error).map((e) => `/* shard ${e.shard} */ ${e.sql}`));
  });

  it("logPhysicalQueries: 'info' logs one line per physical statement naming the shard", async () => {
    const logger = new RecordingLogger();
    fx = await openFixture(backend, ENTITIES, 4, { logPhysicalQueries: 'info', coalesce: false }, { logger });
    await fx.sharded.getRepository(Order).save([1, 2, 3, 4, 5, 9].map(order));
    logger.calls.length = 0;
    fx.physical.length = 0;
    await fx.sharded.getRepository(Order).find({ where: { id: In(['1', '2', '4', '5', '9']) } });
    const lines = logger.calls.filter((c) => c.method === 'log');
    expect(lines.map((c) => c.detail)).toEqual(fx.physical.map(() => 'info'));
    expect(lines.map((c) => c.text.split(' (')[0])).toEqual(fx.physical.map((e) => `shard ${e.shard}`));
    for (const [i, c] of lines.entries()) expect(c.text).toContain(fx.physical[i]!.sql);
  });

  it('logs the statements of synchronize per shard (there is no logical statement to log)', async () => {
    const logger = new RecordingLogger();
    fx = await openFixture(backend, ENTITIES, 2, {}, { logger, logging: true });
    const creates = logger.calls.filter((c) => c.method === 'logQuery' && /CREATE TABLE/i.test(c.text));
    for (const shard of ['s0', 's1']) {
      expect(creates.some((c) => c.text.startsWith(`/* shard ${shard} */ CREATE TABLE`) && c.text.includes('orders')), shard).toBe(true);
    }
    expect(creates.some((c) => c.text.startsWith('/* shard s1 */') && c.text.includes('buyers'))).toBe(false);
  });
});

describe('sharding.logPhysicalQueries', () => {
  it('is validated eagerly', async () => {
    const ds = new ShardedDataSource({ type: 'better-sqlite3', entities: [], shards: [{ name: 's0', database: ':memory:' }], sharding: { logPhysicalQueries: 'debug' as never } });
    await expect(ds.initialize()).rejects.toThrow(ShardingConfigError);
    await expect(ds.initialize()).rejects.toThrow(/logPhysicalQueries must be false, 'query', 'log', 'info' or 'warn'; got "debug"/);
  });
});
