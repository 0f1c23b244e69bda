import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UnsupportedShardingError } from '../errors/index.js';
import type { ShardTarget } from '../execute/shard-target.js';
import type { SqlDialect } from '../parameterize/index.js';
import { fakeRules } from '../plan/testing/fake-rules.js';
import { DIALECTS, typeormSql, type SqlWithParams } from '../plan/testing/typeorm-sql.js';
import { MissingShardKeyError } from '../write/route-insert.js';
import { ShardingEngine } from './sharding-engine.js';
import { fakeEngine, refusingTarget, type FakeEngineOptions } from './testing/fake-engine.js';

type Statement = readonly [shard: string, sql: string, parameters: readonly unknown[]];

interface ExplainCase {
  readonly name: string;
  /** MySQL spelling; the SQLite spelling of the input and of the expected statements is derived. */
  readonly query: string;
  readonly parameters?: readonly unknown[];
  readonly options?: FakeEngineOptions;
  readonly statements?: readonly Statement[];
  readonly error?: { readonly type: Function; readonly message: string };
}

const every = (sql: string, parameters: readonly unknown[] = []): Statement[] => ['s0', 's1', 's2', 's3'].map((s) => [s, sql, parameters]);

const FIND = 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?, ?, ?, ?)))';
const findOn = (list: string) => `SELECT \`Order\`.\`id\` AS \`Order_id\` FROM \`orders\` \`Order\` WHERE ((\`Order\`.\`id\` IN (${list})))`;
const PAGE =
  'SELECT `Order`.`id` AS `Order_id`, `Order`.`buyerId` AS `Order_buyerId` FROM `orders` `Order` ' +
  'WHERE ((`Order`.`id` IN (?, ?, ?, ?, ?)) AND (`Order`.`buyerId` = ?)) ORDER BY `Order`.`regionId` DESC LIMIT 20 OFFSET 20';
const pageOn = (list: string) =>
  'SELECT `Order`.`id` AS `Order_id`, `Order`.`buyerId` AS `Order_buyerId` , `Order`.`regionId` AS `__shard_sort_0` FROM `orders` `Order` ' +
  `WHERE ((\`Order\`.\`id\` IN (${list})) AND (\`Order\`.\`buyerId\` = ?)) ORDER BY \`Order\`.\`regionId\` DESC LIMIT 40 OFFSET 0`;

const CASES: readonly ExplainCase[] = [
  {
    name: 'the article example: find(In([1, 2, 4, 5, 9])) over 4 shards',
    query: FIND,
    parameters: [1, 2, 4, 5, 9],
    statements: [
      ['s0', findOn('?'), [4]],
      ['s1', findOn('?, ?, ?'), [1, 5, 9]],
      ['s2', findOn('?'), [2]],
    ],
  },
  {
    name: 'a page of the article example: order, skip 20, take 20 (the Atlas post-mortem shape)',
    query: PAGE,
    parameters: [1, 2, 4, 5, 9, 7],
    statements: [
      ['s0', pageOn('?'), [4, 7]],
      ['s1', pageOn('?, ?, ?'), [1, 5, 9, 7]],
      ['s2', pageOn('?'), [2, 7]],
    ],
  },
  {
    name: 'maxInValuesPerQuery 2: four statements',
    query: FIND,
    parameters: [1, 2, 4, 5, 9],
    options: { maxInValuesPerQuery: 2 },
    statements: [
      ['s0', findOn('?'), [4]],
      ['s1', findOn('?, ?'), [1, 5]],
      ['s1', findOn('?'), [9]],
      ['s2', findOn('?'), [2]],
    ],
  },
  {
    name: 'pruning: false: the whole list to every shard',
    query: FIND,
    parameters: [1, 2, 4, 5, 9],
    options: { pruning: false },
    statements: every(FIND, [1, 2, 4, 5, 9]),
  },
  { name: 'In([]): nothing runs', query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((0=1))', statements: [] },
  {
    name: 'findOneBy({ id }): one shard, untouched',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` = ?)) LIMIT 1',
    parameters: [6],
    statements: [['s2', 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` = ?)) LIMIT 1', [6]]],
  },
  {
    name: 'where: [{ id: 1 }, { id: 2 }]',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((((`Order`.`id` = ?))) OR (((`Order`.`id` = ?))))',
    parameters: [1, 2],
    // Each shard gets only its own term of the OR.
    statements: [
      ['s1', 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((((`Order`.`id` = ?))) )', [1]],
      ['s2', 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ( (((`Order`.`id` = ?))))', [2]],
    ],
  },
  {
    name: 'count() without a key condition: every shard',
    query: 'SELECT COUNT(1) AS `cnt` FROM `orders` `Order` WHERE ((`Order`.`buyerId` = ?))',
    parameters: [7],
    statements: every('SELECT COUNT(1) AS `cnt` FROM `orders` `Order` WHERE ((`Order`.`buyerId` = ?))', [7]),
  },
  {
    name: 'unsharded table: the default shard, as is',
    query: 'SELECT `U`.`id` AS `U_id` FROM `users` `U` WHERE `U`.`id` IN (?, ?)',
    parameters: [1, 2],
    statements: [['s0', 'SELECT `U`.`id` AS `U_id` FROM `users` `U` WHERE `U`.`id` IN (?, ?)', [1, 2]]],
  },
  {
    name: 'write to a broadcast table: every shard',
    query: 'UPDATE `regions` SET `name` = ? WHERE `id` = ?',
    parameters: ['north', 1],
    statements: every('UPDATE `regions` SET `name` = ? WHERE `id` = ?', ['north', 1]),
  },
  {
    name: 'DDL of a sharded table: every shard',
    query: 'ALTER TABLE `orders` ADD `extra` int NULL',
    statements: every('ALTER TABLE `orders` ADD `extra` int NULL'),
  },
  {
    name: 'update() by ids',
    query: 'UPDATE `orders` SET `note` = ? WHERE `id` IN (?, ?, ?)',
    parameters: ['x', 1, 2, 5],
    statements: [
      ['s1', 'UPDATE `orders` SET `note` = ? WHERE `id` IN (?, ?)', ['x', 1, 5]],
      ['s2', 'UPDATE `orders` SET `note` = ? WHERE `id` IN (?)', ['x', 2]],
    ],
  },
  {
    name: 'delete() by id',
    query: 'DELETE FROM `orders` WHERE `id` = ?',
    parameters: [5],
    statements: [['s1', 'DELETE FROM `orders` WHERE `id` = ?', [5]]],
  },
  {
    name: 'insert() of three rows',
    query: 'INSERT INTO `orders`(`id`, `buyerId`, `note`) VALUES (?, ?, ?), (?, ?, ?), (?, ?, ?)',
    parameters: [1, 1, 'a', 2, 2, 'b', 5, 3, 'c'],
    statements: [
      ['s1', 'INSERT INTO `orders`(`id`, `buyerId`, `note`) VALUES (?, ?, ?), (?, ?, ?)', [1, 1, 'a', 5, 3, 'c']],
      ['s2', 'INSERT INTO `orders`(`id`, `buyerId`, `note`) VALUES (?, ?, ?)', [2, 2, 'b']],
    ],
  },
  { name: 'START TRANSACTION is session control: no statement', query: 'START TRANSACTION', statements: [] },
  { name: 'BEGIN TRANSACTION', query: 'BEGIN TRANSACTION', statements: [] },
  { name: 'SAVEPOINT typeorm_1', query: 'SAVEPOINT typeorm_1', statements: [] },
  { name: 'COMMIT', query: 'COMMIT', statements: [] },
  {
    name: 'a subquery with LIMIT on one shard is fine',
    query: 'SELECT `x`.`id` AS `id` FROM (SELECT `id` FROM `orders` WHERE `id` = ? LIMIT 5) `x`',
    parameters: [1],
    statements: [['s1', 'SELECT `x`.`id` AS `id` FROM (SELECT `id` FROM `orders` WHERE `id` = ? LIMIT 5) `x`', [1]]],
  },
  {
    name: 'a subquery with LIMIT over several shards cannot be merged',
    query: 'SELECT `x`.`id` AS `id` FROM (SELECT `id` FROM `orders` WHERE `id` IN (?, ?) LIMIT 5) `x`',
    parameters: [1, 2],
    error: { type: UnsupportedShardingError, message: 'a subquery with LIMIT' },
  },
  {
    name: 'sharded ⨝ unsharded is refused',
    query: 'SELECT `Order`.`id` AS `Order_id`, `U`.`id` AS `U_id` FROM `orders` `Order` LEFT JOIN `users` `U` ON `U`.`id`=`Order`.`buyerId` WHERE `Order`.`id` = ?',
    parameters: [1],
    error: { type: UnsupportedShardingError, message: 'unsharded table "users"' },
  },
  {
    name: 'an INSERT row with a NULL key is refused',
    query: 'INSERT INTO `orders`(`id`, `buyerId`, `note`) VALUES (?, ?, ?), (?, ?, ?)',
    parameters: [1, 1, 'a', null, 2, 'b'],
    error: { type: MissingShardKeyError, message: 'Row 2' },
  },
];

describe.each(DIALECTS)('ShardingEngine.explain (%s)', (dialect) => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const engine = fakeEngine(dialect, c.options);
    const input = typeormSql(c.query, c.parameters ?? [], dialect);
    if (c.error) {
      expect(() => engine.explain(input.sql, input.parameters)).toThrow(c.error.type as never);
      expect(() => engine.explain(input.sql, input.parameters)).toThrow(c.error.message);
      return;
    }
    const expected = (c.statements ?? []).map(([shard, sql, parameters]) => {
      const spelled = typeormSql(sql, parameters, dialect);
      return { shard, sql: spelled.sql, parameters: spelled.parameters };
    });
    expect(engine.explain(input.sql, input.parameters), input.sql).toEqual(expected);
  });
});

describe('ShardingEngine.explain', () => {
  it('SQLite, exactly as TypeORM writes the article example', () => {
    const engine = fakeEngine('sqlite');
    expect(engine.explain('SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE (("Order"."id" IN (1, 2, 4, 5, 9)))')).toEqual([
      { shard: 's0', sql: 'SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE (("Order"."id" IN (4)))', parameters: [] },
      { shard: 's1', sql: 'SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE (("Order"."id" IN (1, 5, 9)))', parameters: [] },
      { shard: 's2', sql: 'SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE (("Order"."id" IN (2)))', parameters: [] },
    ]);
  });

  it('never asks a shard for a connection', () => {
    let asked = 0;
    const counting = (name: string, index: number): ShardTarget => ({
      ...refusingTarget(name, index),
      createRunner: () => {
        asked++;
        throw new Error('no connection in explain()');
      },
    });
    const names = ['s0', 's1', 's2', 's3'];
    const engine = new ShardingEngine(fakeRules(), names.map(counting), 'mysql', {
      pruning: true,
      maxInValuesPerQuery: 256,
      planCacheSize: 10,
      concurrency: 1,
      globalQueue: undefined,
      onPhysicalQuery: undefined,
    });
    engine.explain(PAGE, [1, 2, 4, 5, 9, 7]);
    engine.explain('INSERT INTO `orders`(`id`, `buyerId`, `note`) VALUES (?, ?, ?)', [1, 1, 'a']);
    engine.explain('START TRANSACTION');
    expect(asked).toBe(0);
  });

  // Regression (fixed): UPDATE/DELETE … LIMIT n (TypeORM's UpdateQueryBuilder.limit() on MySQL) is sent to
  // every shard with the same LIMIT, so up to n × shards rows change instead of n. A write
  // with LIMIT that reaches several shards must be refused (or routed to one shard).
  it.each([
    ['UPDATE', 'UPDATE `orders` SET `note` = ? WHERE `buyerId` = ? LIMIT 2', ['x', 7]],
    ['DELETE', 'DELETE FROM `orders` WHERE `buyerId` = ? LIMIT 2', [7]],
  ] as const)('%s … LIMIT over several shards is refused, not run with LIMIT on each shard', (_verb, sql, parameters) => {
    expect(() => fakeEngine('mysql').explain(sql, parameters)).toThrow(UnsupportedShardingError);
  });

  it('UPDATE … LIMIT routed to one shard is fine', () => {
    expect(fakeEngine('mysql').explain('UPDATE `orders` SET `note` = ? WHERE `id` = ? LIMIT 1', ['x', 5])).toEqual([
      { shard: 's1', sql: 'UPDATE `orders` SET `note` = ? WHERE `id` = ? LIMIT 1', parameters: ['x', 5] },
    ]);
  });

  // Regression (fixed): a sharded table inside NOT EXISTS (…) is routed and pruned like one inside EXISTS,
  // and the per-shard answers are concatenated. Each shard answers "is *my* part of the list
  // missing?", so a row comes back when any id is missing, while one database answers
  // "are all of them missing?". Such a statement must be refused when it reaches several shards.
  it('NOT EXISTS over a sharded table on several shards is refused', () => {
    const sql =
      'SELECT 1 AS "row_exists" FROM (SELECT 1 AS dummy_column) "dummy_table" ' +
      'WHERE NOT EXISTS (SELECT 1 FROM "orders" "Order" WHERE "Order"."id" IN (1, 2)) LIMIT 1';
    expect(() => fakeEngine('sqlite').explain(sql)).toThrow(UnsupportedShardingError);
  });
});

describe('plan cache: one entry per statement shape', () => {
  const LENGTHS = [1, 2, 3, 4, 5, 8, 13, 99, 100, 101, 255, 256, 257, 1000, 4096, 9999, 10000];
  const findOf = (n: number, dialect: SqlDialect, offset = 0): SqlWithParams => {
    const ids = Array.from({ length: n }, (_, i) => i + 1 + offset);
    return typeormSql(
      `SELECT \`Order\`.\`id\` AS \`Order_id\` FROM \`orders\` \`Order\` WHERE ((\`Order\`.\`id\` IN (${ids.map(() => '?').join(', ')}))) ORDER BY \`Order\`.\`id\` ASC LIMIT ${n}`,
      ids,
      dialect,
    );
  };

  it.each(DIALECTS)('IN lists of 1 … 10,000 values share one plan (%s)', (dialect) => {
    const engine = fakeEngine(dialect);
    for (const n of LENGTHS) {
      const { sql, parameters } = findOf(n, dialect);
      // ids 1…n, mod 4, batches of 256: Σ ceil(n_s / 256) statements
      const perShard = [0, 1, 2, 3].map((s) => Math.floor((n - s) / 4) + (s === 0 ? 0 : 1)).map((k) => Math.max(k, 0));
      const expected = perShard.reduce((total, k) => total + Math.ceil(k / 256), 0);
      expect(engine.explain(sql, parameters)).toHaveLength(expected);
    }
    expect(engine.planCacheStats).toMatchObject({ size: 1, misses: 1, hits: LENGTHS.length - 1 });
  });

  it.each(DIALECTS)('random lengths and values, one entry (%s)', (dialect) => {
    const engine = fakeEngine(dialect);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 0, max: 1_000_000 }), (n, offset) => {
        const { sql, parameters } = findOf(n, dialect, offset);
        engine.explain(sql, parameters);
        expect(engine.planCacheStats.size).toBe(1);
      }),
      { numRuns: 12 },
    );
  });

  it('SQLite: a list of numbers and a list mixing numbers and ? share one plan', () => {
    const engine = fakeEngine('sqlite');
    engine.explain('SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE (("Order"."id" IN (1, 2, 3)))');
    engine.explain('SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE (("Order"."id" IN (1, ?, 3)))', ['2']);
    expect(engine.planCacheStats.size).toBe(1);
  });

  it('different shapes are different entries', () => {
    const engine = fakeEngine('mysql');
    engine.explain(FIND, [1, 2, 4, 5, 9]);
    engine.explain(PAGE, [1, 2, 4, 5, 9, 7]);
    engine.explain('DELETE FROM `orders` WHERE `id` = ?', [5]);
    engine.explain(FIND, [3, 4, 5, 6, 7]);
    expect(engine.planCacheStats).toMatchObject({ size: 3, misses: 3, hits: 1 });
  });
});
