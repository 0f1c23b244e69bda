import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { In } from 'typeorm';
import { UnsupportedShardingError } from '../packages/typeorm-sharding/src/index.js';
import { ENTITIES, Order, OrderItem } from './support/entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];
const NOTES = ['apple', 'Apple', 'APPLE', 'banana', 'Banana', 'cherry', null, 'Éclair', 'eclair', 'zebra', ''];

function orders(): Partial<Order>[] {
  return Array.from({ length: 240 }, (_, i) => ({
    id: String(i + 1),
    buyerId: (i * 7) % 9,
    note: NOTES[(i * 5) % NOTES.length]!,
    amount: ((i * 37) % 50) - 10,
    createdAt: new Date(Date.UTC(2024, 0, 1 + (i % 17), (i * 3) % 24)),
  }));
}
function items(): Partial<OrderItem>[] {
  return Array.from({ length: 400 }, (_, i) => ({ id: String(i + 1), orderId: String((i % 120) + 1), sku: `sku-${i % 13}` }));
}

/** Rows as comparable data: numbers and numeric strings unified, dates as ISO text. */
function normalize(rows: unknown[]): unknown[] {
  return rows.map((row) =>
    Object.fromEntries(
      Object.entries(row as Record<string, unknown>).map(([k, v]) => {
        if (v instanceof Date) return [k, v.toISOString()];
        if (typeof v === 'bigint') return [k, Number(v)];
        if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return [k, Number(v)];
        return [k, v];
      }),
    ),
  );
}

describe.each(backends)('cross-shard merges equal one database (%s)', (backend) => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await openFixture(backend, ENTITIES, 4, { maxInValuesPerQuery: 50 });
    for (const ds of [fx.sharded, fx.plain]) {
      await ds.getRepository(Order).insert(orders());
      await ds.getRepository(OrderItem).insert(items());
    }
  });
  afterAll(async () => fx?.close());

  const raw: [string, string, unknown[]][] = [
    ['global aggregates', 'SELECT COUNT(*) AS c, SUM(amount) AS s, MIN(amount) AS mn, MAX(amount) AS mx, AVG(amount) AS av FROM orders', []],
    ['aggregates of an empty selection', 'SELECT COUNT(*) AS c, SUM(amount) AS s, MIN(amount) AS mn FROM orders WHERE amount > 1000', []],
    ['GROUP BY with ORDER BY', 'SELECT buyerId, COUNT(*) AS c, SUM(amount) AS s, AVG(amount) AS av FROM orders GROUP BY buyerId ORDER BY buyerId', []],
    ['GROUP BY with HAVING on a selected aggregate', 'SELECT buyerId, COUNT(*) AS c FROM orders GROUP BY buyerId HAVING COUNT(*) > 26 ORDER BY buyerId', []],
    ['HAVING on an aggregate not selected', 'SELECT buyerId FROM orders GROUP BY buyerId HAVING SUM(amount) >= 400 ORDER BY buyerId', []],
    ['ORDER BY an aggregate with LIMIT', 'SELECT buyerId, SUM(amount) AS s FROM orders GROUP BY buyerId ORDER BY s DESC, buyerId LIMIT 3', []],
    ['DISTINCT', 'SELECT DISTINCT buyerId FROM orders ORDER BY buyerId', []],
    ['DISTINCT with LIMIT/OFFSET', 'SELECT DISTINCT amount FROM orders ORDER BY amount DESC LIMIT 5 OFFSET 3', []],
    ['ORDER BY a column not selected', 'SELECT id FROM orders WHERE buyerId = 3 ORDER BY amount DESC, id ASC LIMIT 7 OFFSET 2', []],
    ['COUNT(DISTINCT shard key)', 'SELECT COUNT(DISTINCT id) AS c FROM orders WHERE amount > 5', []],
    ['binding join with aggregates', 'SELECT COUNT(*) AS c FROM orders o INNER JOIN order_items i ON i.orderId = o.id WHERE o.buyerId IN (1, 2)', []],
  ];
  for (const [title, sql, params] of raw) {
    it(title, async () => {
      const expected = await fx.plain.query(sql, params);
      const actual = await fx.sharded.query(sql, params);
      expect(normalize(actual)).toEqual(normalize(expected));
    });
  }

  it('orders text as the database does (case-insensitive collation on MariaDB, binary on SQLite)', async () => {
    const sql = 'SELECT id, note FROM orders ORDER BY note DESC, id ASC LIMIT 30 OFFSET 10';
    expect(normalize(await fx.sharded.query(sql))).toEqual(normalize(await fx.plain.query(sql)));
  });

  it('pages find() with order/skip/take like one database, for every page', async () => {
    for (let skip = 0; skip < 240; skip += 35) {
      const options = { order: { amount: 'DESC' as const, id: 'ASC' as const }, skip, take: 35 };
      const a = await fx.sharded.getRepository(Order).find(options);
      const b = await fx.plain.getRepository(Order).find(options);
      expect(a.map((o) => String(o.id))).toEqual(b.map((o) => String(o.id)));
    }
  });

  it('count, findAndCount, exists', async () => {
    const repoA = fx.sharded.getRepository(Order);
    const repoB = fx.plain.getRepository(Order);
    expect(await repoA.count({ where: { buyerId: 4 } })).toBe(await repoB.count({ where: { buyerId: 4 } }));
    const [rowsA, countA] = await repoA.findAndCount({ where: { buyerId: In([1, 2]) }, order: { id: 'ASC' }, skip: 5, take: 10 });
    const [rowsB, countB] = await repoB.findAndCount({ where: { buyerId: In([1, 2]) }, order: { id: 'ASC' }, skip: 5, take: 10 });
    expect(countA).toBe(countB);
    expect(rowsA.map((o) => String(o.id))).toEqual(rowsB.map((o) => String(o.id)));
    expect(await repoA.exists({ where: { buyerId: 8 } })).toBe(true);
    expect(await repoA.exists({ where: { buyerId: 99 } })).toBe(false);
  });

  it('relations with skip/take (TypeORM\'s two-query shape)', async () => {
    const options = { relations: { items: true }, where: { buyerId: In([0, 3, 5]) }, order: { id: 'ASC' as const }, skip: 4, take: 6 };
    const a = await fx.sharded.getRepository(Order).find(options);
    const b = await fx.plain.getRepository(Order).find(options);
    const shape = (list: Order[]) => list.map((o) => [String(o.id), o.items.map((i) => String(i.id)).sort()]);
    expect(shape(a)).toEqual(shape(b));
  });

  it('QueryBuilder getRawMany / getManyAndCount', async () => {
    const qa = () => fx.sharded.getRepository(Order).createQueryBuilder('o').where('o.amount > :x', { x: 20 }).orderBy('o.createdAt', 'DESC').addOrderBy('o.id', 'ASC');
    const qb = () => fx.plain.getRepository(Order).createQueryBuilder('o').where('o.amount > :x', { x: 20 }).orderBy('o.createdAt', 'DESC').addOrderBy('o.id', 'ASC');
    expect(normalize(await qa().limit(9).offset(4).getRawMany())).toEqual(normalize(await qb().limit(9).offset(4).getRawMany()));
    const [ea, ca] = await qa().skip(3).take(8).getManyAndCount();
    const [eb, cb] = await qb().skip(3).take(8).getManyAndCount();
    expect(ca).toBe(cb);
    expect(ea.map((o) => String(o.id))).toEqual(eb.map((o) => String(o.id)));
  });

  it('refuses what it cannot merge exactly, with a clear error', async () => {
    await expect(fx.sharded.query('SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS r FROM orders')).rejects.toBeInstanceOf(UnsupportedShardingError);
    await expect(fx.sharded.query('SELECT o.id FROM orders o JOIN order_items i ON i.id = o.id')).rejects.toThrow(/without equating their shard keys/);
    await expect(fx.sharded.query('SELECT o.id FROM orders o JOIN buyers b ON b.id = o.buyerId')).rejects.toThrow(/unsharded table "buyers"/);
  });
});
