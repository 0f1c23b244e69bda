import { describe, expect, it } from 'vitest';
import { UnsupportedShardingError } from '../errors/index.js';
import type { ShardTarget } from '../execute/shard-target.js';
import { fakeRules, FOUR_SHARDS, SHOP_TABLES, type FakeTable } from '../plan/testing/fake-rules.js';
import { ShardingEngine } from './sharding-engine.js';
import { fakeEngine, refusingTarget } from './testing/fake-engine.js';

// orders and order_items (binding tables): mod over 4 shards, 2 tables per shard database.
const TABLES: FakeTable[] = SHOP_TABLES.map((t) => (t.table === 'orders' || t.table === 'order_items' ? { ...t, key: { ...t.key!, tables: 2 } } : t));

/** Four shard databases d0 … d3 on one server, statements coalesced per server. */
function onOneServer(maxBranches = 16): ShardingEngine {
  const targets: ShardTarget[] = FOUR_SHARDS.map((name, i) => ({ ...refusingTarget(name, i), server: 'A', database: `d${i}` }));
  return new ShardingEngine(fakeRules(TABLES), targets, 'mysql', {
    pruning: true, maxInValuesPerQuery: 256, planCacheSize: 100, concurrency: 1, globalQueue: undefined, onPhysicalQuery: undefined, coalesce: { maxBranches },
  });
}

type Statement = [shard: string, sql: string, parameters: unknown[]];
const shown = (engine: ShardingEngine, sql: string, parameters: unknown[] = []): Statement[] =>
  engine.explain(sql, parameters).map((s) => [s.shard, s.sql, [...s.parameters]]);

describe('explain() of table-per-shard layouts', () => {
  it('SQLite: one statement per table of each shard, each with its own values', () => {
    expect(shown(fakeEngine('sqlite', { tables: TABLES }), 'SELECT "o"."id" FROM "orders" "o" WHERE "o"."id" IN (?, ?, ?, ?, ?)', [1, 2, 4, 5, 9])).toEqual([
      ['s0', 'SELECT "o"."id" FROM "orders_1" "o" WHERE "o"."id" IN (?)', [4]],
      ['s1', 'SELECT "o"."id" FROM "orders_0" "o" WHERE "o"."id" IN (?, ?)', [1, 9]],
      ['s1', 'SELECT "o"."id" FROM "orders_1" "o" WHERE "o"."id" IN (?)', [5]],
      ['s2', 'SELECT "o"."id" FROM "orders_0" "o" WHERE "o"."id" IN (?)', [2]],
    ]);
  });

  it('MySQL: the tables of one server are one UNION ALL, each branch qualified with its database', () => {
    const explained = onOneServer().explain('SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`id` IN (?, ?, ?, ?, ?)', [1, 2, 4, 5, 9]);
    expect(explained).toEqual([
      {
        shard: 's0',
        shards: ['s0', 's1', 's2'],
        sql:
          '(SELECT `o`.`id` FROM `d0`.`orders_1` `o` WHERE `o`.`id` IN (?)) UNION ALL (SELECT `o`.`id` FROM `d1`.`orders_0` `o` WHERE `o`.`id` IN (?, ?)) UNION ALL ' +
          '(SELECT `o`.`id` FROM `d1`.`orders_1` `o` WHERE `o`.`id` IN (?)) UNION ALL (SELECT `o`.`id` FROM `d2`.`orders_0` `o` WHERE `o`.`id` IN (?))',
        parameters: [4, 1, 9, 5, 2],
      },
    ]);
  });

  it('a page over every table: each branch sends offset + count from row 0, the server sorts and cuts the union again', () => {
    const [s] = onOneServer(8).explain('SELECT `o`.`id`, `o`.`buyerId` FROM `orders` `o` ORDER BY `o`.`id` DESC LIMIT 2 OFFSET 3');
    const branch = (d: number, t: number) => `(SELECT \`o\`.\`id\`, \`o\`.\`buyerId\` FROM \`d${d}\`.\`orders_${t}\` \`o\` ORDER BY \`o\`.\`id\` DESC LIMIT 5 OFFSET 0)`;
    expect(s!.sql).toBe(`${[0, 1, 2, 3].flatMap((d) => [branch(d, 0), branch(d, 1)]).join(' UNION ALL ')} ORDER BY \`id\` DESC LIMIT 5`);
    expect(s!.shards).toEqual(['s0', 's1', 's2', 's3']);
  });

  it('a binding join goes table by table', () => {
    expect(shown(fakeEngine('mysql', { tables: TABLES }), 'SELECT o.id, i.sku FROM orders o JOIN order_items i ON i.orderId = o.id WHERE o.id = ?', [5])).toEqual([
      ['s1', 'SELECT o.id, i.sku FROM orders_1 o JOIN order_items_1 i ON i.orderId = o.id WHERE o.id = ?', [5]],
    ]);
  });

  it('a multi-row INSERT is split by shard and table', () => {
    expect(shown(onOneServer(), 'INSERT INTO `orders` (`id`, `buyerId`) VALUES (?, ?), (?, ?), (?, ?)', [1, 10, 5, 50, 9, 90])).toEqual([
      ['s1', 'INSERT INTO `d1`.`orders_0` (`id`, `buyerId`) VALUES (?, ?), (?, ?)', [1, 10, 9, 90]],
      ['s1', 'INSERT INTO `d1`.`orders_1` (`id`, `buyerId`) VALUES (?, ?)', [5, 50]],
    ]);
  });

  it('DDL runs on every table of every shard, its index names suffixed per table', () => {
    const out = shown(fakeEngine('sqlite', { tables: TABLES }), 'CREATE INDEX "IDX_b" ON "orders" ("buyerId")');
    expect(out).toEqual(FOUR_SHARDS.flatMap((s) => [0, 1].map((t): Statement => [s, `CREATE INDEX "IDX_b_${t}" ON "orders_${t}" ("buyerId")`, []])));
  });

  it('an aggregate that can match nothing still answers from table 0 of the default shard', () => {
    expect(shown(fakeEngine('mysql', { tables: TABLES }), 'SELECT COUNT(*) AS n FROM orders WHERE id IN (?) AND id IN (?)', [1, 2])).toEqual([
      ['s0', 'SELECT COUNT(*) AS n FROM orders_0 WHERE id IN (?) AND id IN (?)', [1, 2]],
    ]);
  });

  it('an index dropped by its name alone is also looked for as each table\'s (SQLite)', () => {
    expect(shown(fakeEngine('sqlite', { tables: TABLES }), 'DROP INDEX "IDX_b"')).toEqual(FOUR_SHARDS.map((s): Statement => [s, 'DROP INDEX "IDX_b"', []]));
  });

  it('refuses a schema read of a laid-out table by its logical name (TypeORM\'s getTable / hasColumn), naming the fix', () => {
    const engine = fakeEngine('sqlite', { tables: TABLES });
    expect(() => engine.explain('SELECT * FROM "sqlite_master" WHERE "type" = \'table\' AND "name" IN (\'orders\')')).toThrow(/write the migration step as SQL/i);
    expect(() => engine.explain('PRAGMA table_info("orders")')).toThrow(UnsupportedShardingError);
    expect(() => onOneServer().explain("SELECT * FROM `INFORMATION_SCHEMA`.`COLUMNS` WHERE `TABLE_SCHEMA` = 'd0' AND `TABLE_NAME` = 'order_items'")).toThrow(/order_items_0 … order_items_1/);
    // Other tables' schema reads run as before.
    expect(shown(engine, 'PRAGMA table_info("regions")')).toEqual([['s0', 'PRAGMA table_info("regions")', []]]);
  });

  it('refuses a join of tables with different layouts, naming the fix', () => {
    const engine = fakeEngine('mysql', { tables: TABLES });
    expect(() => engine.explain('SELECT o.id FROM orders o JOIN customers c ON c.id = o.id')).toThrow(UnsupportedShardingError);
    expect(() => engine.explain('SELECT o.id FROM orders o JOIN customers c ON c.id = o.id')).toThrow(/same @Sharded\(\{ tables \}\)/);
  });
});
