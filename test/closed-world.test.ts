import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnsupportedShardingError } from '../packages/typeorm-sharding/src/index.js';
import { Buyer, ENTITIES, Order, OrderItem, Region } from './support/entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';
import { BUYERS, ITEMS, ORDERS, REGIONS } from './support/subquery-rows.js';

// Closed world (DESIGN.md §8, issue 14): a statement over sharded tables gives one database's
// rows or an UnsupportedShardingError — never the answer of one shard, or of each shard alone.
// Each case runs on a 4-shard source and on one plain DataSource with the same rows.

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];


interface Case {
  readonly what: string;
  readonly sql: string;
  readonly parameters?: readonly unknown[];
  /** `same`: the sharded source answers the plain database's rows; `refused`: it raises UnsupportedShardingError matching the text. */
  readonly expect: 'same' | RegExp;
  /** The rows' order is fixed by ORDER BY. */
  readonly ordered?: boolean;
  readonly on?: readonly Backend[];
}

const CASES: readonly Case[] = [
  // ── CTEs ──────────────────────────────────────────────────────────────────────────────────
  { what: 'a CTE over a sharded table counts every shard (was: the default shard only)', sql: 'WITH t AS (SELECT id FROM orders) SELECT COUNT(*) AS n FROM t', expect: 'same' },
  { what: 'a CTE over a sharded table, filtered and ordered outside', sql: 'WITH t AS (SELECT id, amount FROM orders WHERE buyerId = ?) SELECT id, amount FROM t ORDER BY amount DESC, id', parameters: [2], expect: 'same', ordered: true },
  { what: 'a CTE routed by its key condition', sql: 'WITH t AS (SELECT id, note FROM orders WHERE id IN (?, ?, ?)) SELECT id, note FROM t ORDER BY id', parameters: ['3', '17', '40'], expect: 'same', ordered: true },
  { what: 'a CTE with a column list', sql: 'WITH t(k, a) AS (SELECT id, amount FROM orders) SELECT SUM(a) AS s, COUNT(k) AS n FROM t', expect: 'same' },
  { what: 'a CTE over a sharded table referenced twice is refused', sql: 'WITH t AS (SELECT id, buyerId FROM orders) SELECT a.id FROM t a JOIN t b ON a.buyerId = b.buyerId AND a.id <> b.id', expect: /referenced 2 times/ },
  { what: 'a CTE that groups a sharded table is refused over several shards', sql: 'WITH t AS (SELECT buyerId, COUNT(*) AS c FROM orders GROUP BY buyerId) SELECT buyerId, c FROM t', expect: /GROUP BY over several shards/ },
  { what: 'a recursive CTE over a sharded table is refused', sql: 'WITH RECURSIVE t(id) AS (SELECT id FROM orders WHERE id = ? UNION ALL SELECT t.id + 1 FROM t WHERE t.id < ?) SELECT id FROM t', parameters: ['1', 5], expect: /recursive CTE "t" reads sharded table "orders"/ },
  { what: 'a recursive CTE that reads no sharded table is a constant on every shard', sql: 'WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 6) SELECT o.id, o.amount FROM orders o JOIN n ON o.id = n.x ORDER BY o.id', expect: 'same', ordered: true },
  { what: 'a CTE over a broadcast table joined to a sharded one', sql: 'WITH r AS (SELECT id, name FROM regions WHERE id < 3) SELECT o.id, r.name FROM orders o JOIN r ON r.id = o.buyerId ORDER BY o.id', expect: 'same', ordered: true },

  // ── windows ───────────────────────────────────────────────────────────────────────────────
  {
    what: 'top 2 per buyer in a derived table is refused (was: computed per shard, 4× the rows)',
    sql: 'SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY buyerId ORDER BY amount DESC, id) rn FROM orders) x WHERE rn <= 2',
    expect: /PARTITION BY does not hold the shard key of "orders"/,
  },
  { what: 'a window partitioned by the shard key is shard-local (derived table)', sql: 'SELECT id, rn FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY id ORDER BY amount) rn FROM orders) x WHERE rn = 1 ORDER BY id', expect: 'same', ordered: true },
  {
    what: 'a window partitioned by the shard key over a binding join is shard-local',
    sql: 'SELECT o.id, i.sku, COUNT(*) OVER (PARTITION BY o.id) AS n FROM orders o JOIN order_items i ON i.orderId = o.id ORDER BY o.id, i.sku, i.id',
    expect: 'same',
    ordered: true,
  },
  { what: 'a window without PARTITION BY is refused', sql: 'SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS rn FROM orders', expect: /ROW_NUMBER\(\) OVER/ },

  // ── EXISTS ────────────────────────────────────────────────────────────────────────────────
  { what: 'an uncorrelated EXISTS runs first across the shards (was: counted per shard)', sql: 'SELECT COUNT(*) AS n FROM orders WHERE EXISTS (SELECT 1 FROM orders WHERE amount > ?)', parameters: [47], expect: 'same' },
  { what: 'the fix the refusal names: a scalar COUNT subquery runs first', sql: 'SELECT COUNT(*) AS n FROM orders WHERE (SELECT COUNT(*) FROM orders WHERE amount > ?) > 0', parameters: [47], expect: 'same' },
  { what: 'an uncorrelated EXISTS over another sharded table runs first too', sql: 'SELECT o.id FROM orders o WHERE EXISTS (SELECT 1 FROM order_items i WHERE i.sku = ?) ORDER BY o.id', parameters: ['s1'], expect: 'same', ordered: true },
  { what: 'an uncorrelated EXISTS in a CTE statement is refused, naming the fix', sql: 'WITH t AS (SELECT id FROM orders) SELECT COUNT(*) AS n FROM t WHERE EXISTS (SELECT 1 FROM order_items i WHERE i.sku = ?)', parameters: ['s1'], expect: /EXISTS .* not correlated .* > 0/ },
  { what: 'EXISTS correlated on the shard key is shard-local', sql: 'SELECT o.id FROM orders o WHERE EXISTS (SELECT 1 FROM order_items i WHERE i.orderId = o.id AND i.sku = ?) ORDER BY o.id', parameters: ['s1'], expect: 'same', ordered: true },
  { what: 'NOT EXISTS correlated on the shard key is shard-local', sql: 'SELECT o.id FROM orders o WHERE NOT EXISTS (SELECT 1 FROM order_items i WHERE i.orderId = o.id) ORDER BY o.id', expect: 'same', ordered: true },

  // ── session state ─────────────────────────────────────────────────────────────────────────
  { what: 'SQL_CALC_FOUND_ROWS is refused (was: rejected by the server inside UNION ALL)', sql: 'SELECT SQL_CALC_FOUND_ROWS id FROM orders ORDER BY id LIMIT 5', expect: /SQL_CALC_FOUND_ROWS/, on: ['mariadb'] },
  { what: 'a user variable is refused', sql: 'SELECT id FROM orders WHERE buyerId = @nobody', expect: /user variable @nobody/, on: ['mariadb'] },
];

describe.each(backends)('closed world: one database\'s rows or a typed refusal (%s)', (backend) => {
  let fx: Fixture;
  const sqlite = backend === 'sqlite';

  beforeAll(async () => {
    fx = await openFixture(backend, ENTITIES, 4);
    for (const ds of [fx.plain, fx.sharded]) {
      await ds.getRepository(Order).insert(ORDERS);
      await ds.getRepository(OrderItem).insert(ITEMS);
      await ds.getRepository(Buyer).insert(BUYERS);
      await ds.getRepository(Region).insert(REGIONS);
    }
  });
  afterAll(async () => fx?.close());

  it.each(CASES.filter((c) => (c.on ?? backends).includes(backend)).map((c) => [c.what, c] as const))('%s', async (_what, c) => {
    const sql = sqlite ? c.sql.replace(/`/g, '"') : c.sql;
    const parameters = [...(c.parameters ?? [])];
    const plain = (await fx.plain.query(sql, parameters)) as unknown[];
    if (c.expect !== 'same') {
      const error = await fx.sharded.query(sql, parameters).then(() => undefined, (e: unknown) => e);
      expect(error, 'refused with a typed error').toBeInstanceOf(UnsupportedShardingError);
      expect((error as Error).message).toMatch(c.expect);
      return;
    }
    const sharded = (await fx.sharded.query(sql, parameters)) as unknown[];
    expect(plain.length, 'the case must return rows to mean anything').toBeGreaterThan(0);
    const text = (rows: unknown[]) => rows.map((r) => JSON.stringify(r));
    expect(c.ordered ? text(sharded) : text(sharded).sort()).toEqual(c.ordered ? text(plain) : text(plain).sort());
  });
});
