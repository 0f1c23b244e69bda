import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import { In, QueryFailedError, type DataSource } from 'typeorm';
import { PartialCommitError, ShardingError, ShardQueryError } from '../packages/typeorm-sharding/src/index.js';
import { dataSourceTarget } from '../packages/typeorm-sharding/src/execute/shard-target.js';
import { ENTITIES, Order, Region } from './support/entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];

const order = (id: number): Partial<Order> => ({ id: String(id), buyerId: id % 3, note: null, amount: id, createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, id)) });

/** The error a call raises, on both sources (the same data in each). */
async function errorsOf(fx: Fixture, call: (ds: DataSource) => Promise<unknown>): Promise<{ plain: QueryFailedError; sharded: ShardQueryError }> {
  const fail = (ds: DataSource) => call(ds).then(() => expect.fail('the call should fail'), (e: unknown) => e);
  return { plain: (await fail(fx.plain)) as QueryFailedError, sharded: (await fail(fx.sharded)) as ShardQueryError };
}

/**
 * The sharded error is the plain one — same class, every field TypeORM put on it (query,
 * parameters, driverError's own fields such as code / errno / sqlState / sqlMessage) — plus the shard.
 */
function expectSameError(plain: QueryFailedError, sharded: ShardQueryError, shard: string, except: readonly string[] = []): void {
  expect(plain).toBeInstanceOf(QueryFailedError);
  expect(sharded).toBeInstanceOf(QueryFailedError);
  expect(sharded).toBeInstanceOf(ShardingError);
  expect(sharded.shardingCode).toBe('SHARDING_SHARD_QUERY_FAILED');
  expect(sharded.shard).toBe(shard);
  if (!except.includes('message')) expect(sharded.message.startsWith(plain.message)).toBe(true);
  const fields = Object.keys(plain).filter((k) => k !== 'driverError' && !except.includes(k));
  expect(fields).toEqual(expect.arrayContaining(['query', 'parameters', 'code']));
  for (const field of fields) expect((sharded as unknown as Record<string, unknown>)[field], field).toEqual((plain as unknown as Record<string, unknown>)[field]);
  expect(sharded.driverError.constructor).toBe(plain.driverError.constructor);
  const driverFields = (e: unknown) => Object.fromEntries(Object.entries(e as object).filter(([k]) => !except.includes(k)));
  expect(driverFields(sharded.driverError)).toEqual(driverFields(plain.driverError));
}

describe.each(backends)('driver errors on %s keep their TypeORM shape', (backend) => {
  let fx: Fixture;
  afterEach(async () => fx?.close());

  const seed = async () => {
    for (const ds of [fx.plain, fx.sharded]) {
      await ds.getRepository(Order).insert([order(1), order(2), order(3)]);
      await ds.getRepository(Region).insert({ id: 1, name: 'north' });
    }
  };

  it('duplicate key on an insert into a sharded table', async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    await seed();
    const { plain, sharded } = await errorsOf(fx, (ds) => ds.getRepository(Order).insert(order(2)));
    expect((plain as QueryFailedError & { code?: string }).code).toBe(backend === 'sqlite' ? 'SQLITE_CONSTRAINT_PRIMARYKEY' : 'ER_DUP_ENTRY');
    expectSameError(plain, sharded, fx.sharded.shardOf(Order, '2'));
    expect(sharded.physicalQuery).toMatch(/^INSERT INTO [`"]orders[`"]/);
  });

  it('duplicate key in a multi-row insert split over shards: the logical statement, the physical one beside it', async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    await seed();
    const rows = [order(50), order(51), order(2), order(52)];
    const { plain, sharded } = await errorsOf(fx, (ds) => ds.getRepository(Order).insert(rows));
    // mysql2's `sql` is the statement it sent, values inlined: the physical one on a shard.
    expectSameError(plain, sharded, fx.sharded.shardOf(Order, '2'), ['sql']);
    expect(sharded.physicalQuery).not.toBe(sharded.query);
    if (backend === 'mariadb') expect(sharded.sql).toMatch(/VALUES \('2'/);
  });

  it('duplicate key on an insert into a broadcast table (reported by the default shard, nothing written elsewhere)', async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    await seed();
    const { plain, sharded } = await errorsOf(fx, (ds) => ds.getRepository(Region).insert({ id: 1, name: 'again' }));
    expectSameError(plain, sharded, 's0');
    for (const name of fx.sharded.shardNames) {
      expect(await fx.sharded.getShardDataSource(name).query('SELECT name FROM regions')).toEqual([{ name: 'north' }]);
    }
  });

  it('duplicate key inside a transaction (a pinned shard connection), which then rolls back', async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    await seed();
    const { plain, sharded } = await errorsOf(fx, (ds) =>
      ds.transaction(async (em) => {
        await em.getRepository(Order).insert(order(10));
        await em.getRepository(Order).insert(order(3));
      }),
    );
    expectSameError(plain, sharded, fx.sharded.shardOf(Order, '3'));
    expect(await fx.sharded.getRepository(Order).countBy({ id: '10' })).toBe(0);
    // The data source carries on.
    await fx.sharded.getRepository(Order).insert(order(10));
    expect(await fx.sharded.getRepository(Order).countBy({ id: In(['1', '2', '3', '10']) })).toBe(4);
  });

  it('duplicate key on a broadcast table inside a transaction', async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    await seed();
    const { plain, sharded } = await errorsOf(fx, (ds) => ds.transaction((em) => em.getRepository(Region).insert({ id: 1, name: 'again' })));
    expectSameError(plain, sharded, 's0');
  });

  it('a raw query with parameters, and a failing scattered read', async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    await seed();
    const q = backend === 'sqlite' ? 'INSERT INTO "orders" ("id", "buyerId", "amount", "createdAt") VALUES (?, ?, ?, ?)' : 'INSERT INTO `orders` (`id`, `buyerId`, `amount`, `createdAt`) VALUES (?, ?, ?, ?)';
    const duplicate = await errorsOf(fx, (ds) => ds.query(q, ['1', 1, true, '2024-01-01 00:00:00']));
    expectSameError(duplicate.plain, duplicate.sharded, fx.sharded.shardOf(Order, '1'));
    // SQLite reports booleans as 0/1, as TypeORM's runner does.
    expect(duplicate.sharded.parameters).toEqual(backend === 'sqlite' ? ['1', 1, 1, '2024-01-01 00:00:00'] : ['1', 1, true, '2024-01-01 00:00:00']);

    await fx.plain.query('DROP TABLE orders');
    await fx.sharded.getShardDataSource('s2').query('DROP TABLE orders');
    const missing = await errorsOf(fx, (ds) => ds.getRepository(Order).find({ where: { buyerId: 1 }, order: { id: 'ASC' }, skip: 1, take: 2 }));
    // MariaDB names the database in its message: the shard's, not the plain one's.
    expectSameError(missing.plain, missing.sharded, 's2', backend === 'mariadb' ? ['message', 'sqlMessage', 'sql'] : []);
    expect(missing.sharded.physicalQuery).toMatch(/LIMIT 3\b/);
  });
});

describe.each(backends)('the direct driver path of a shard on %s', (backend) => {
  it("fails with the QueryFailedError TypeORM's own runner raises for the same statement", async () => {
    const fx = await openFixture(backend, ENTITIES, 2);
    try {
      const shard = fx.sharded.getShardDataSource('s0');
      const target = dataSourceTarget('s0', 0, shard);
      const sql = 'SELECT * FROM no_such_table WHERE id = ?';
      const direct = (await target.execute(sql, [true], 'master').catch((e: unknown) => e)) as QueryFailedError;
      const viaRunner = (await shard.query(sql, [true]).catch((e: unknown) => e)) as QueryFailedError;
      expect(direct).toBeInstanceOf(QueryFailedError);
      expect({ ...direct, message: direct.message }).toEqual({ ...viaRunner, message: viaRunner.message });
    } finally {
      await fx.close();
    }
  });
});

describe('non-driver failures stay sharding errors', () => {
  it('PartialCommitError is a ShardingError and not a QueryFailedError', () => {
    const error = new PartialCommitError(['s0'], 's1', new Error('lost connection'));
    expect(error).toBeInstanceOf(ShardingError);
    expect(error).not.toBeInstanceOf(QueryFailedError);
    expect(error.code).toBe('SHARDING_PARTIAL_COMMIT');
  });
});

describe.runIf(backends.includes('mariadb'))('driver errors while streaming from MariaDB shards', () => {
  // A deep page is streamed from the shards (offset + count > streamThreshold) the plain way; by
  // windows (the default) each shard's window is read whole: either fails for the logical statement.
  it.each([
    [false, /LIMIT 1010/],
    [true, /LIMIT \d+ OFFSET [1-9]\d*$/],
  ])('a shard failing mid-stream raises a ShardQueryError for the logical statement (pageWindows: %s)', async (pageWindows, physical) => {
    const fx = await openFixture('mariadb', ENTITIES, 4, { pageWindows });
    try {
      await fx.sharded.getRepository(Order).insert(Array.from({ length: 20 }, (_, i) => order(i + 1)));
      await fx.sharded.getShardDataSource('s1').query('DROP TABLE orders');
      const qb = fx.sharded.getRepository(Order).createQueryBuilder('o').orderBy('o.id').skip(990).take(20);
      const error = (await qb.getMany().then(() => undefined, (e: unknown) => e)) as ShardQueryError;
      expect(error).toBeInstanceOf(QueryFailedError);
      expect(error).toMatchObject({ shard: 's1', code: 'ER_NO_SUCH_TABLE', errno: 1146 });
      expect(error.query).toMatch(/^SELECT .* FROM `orders` `o`/);
      expect(error.physicalQuery).toMatch(physical);
    } finally {
      await fx.close();
    }
  });
});
