import { describe, expect, it } from 'vitest';
import { parameterize, type SqlDialect } from '../parameterize/index.js';
import { analyze } from '../plan/analyze.js';
import { fakeRules } from '../plan/testing/fake-rules.js';
import { insertHeadOf } from '../plan/write/insert-head.js';
import { insertRowsOf } from './insert-rows.js';
import { unitStatement } from '../rewrite/rewriter.js';
import { insertRowTokens } from './rewrite-insert.js';
import { MissingShardKeyError, routeInsert } from './route-insert.js';

const rules = fakeRules();

/** parameterize → analyze → insertRowsOf → routeInsert → insertRowTokens; statements as `[shard, sql, parameters]`. */
function splitInsert(sql: string, parameters: readonly unknown[], dialect: SqlDialect): [string, string, unknown[]][] {
  const p = parameterize(sql, parameters, dialect);
  const plan = analyze(p, rules, dialect);
  if (plan.kind !== 'insert') throw new Error(`not an insert plan: ${plan.kind}`);
  const rows = insertRowsOf(p, dialect);
  const units = routeInsert(p, rows, plan.keyColumnIndex!, rules.ruleOf(plan.table)!.shardKey!, plan.table);
  return units.map((u) => unitStatement(u, p, insertRowTokens(p, rows, u), {})).map((s) => [`s${s.shard}`, s.sql, [...s.parameters]]);
}

interface InsertCase {
  readonly name: string;
  readonly dialect: SqlDialect;
  readonly sql: string;
  readonly parameters: readonly unknown[];
  readonly statements: readonly (readonly [string, string, readonly unknown[]])[];
}

const M = 'INSERT INTO `orders`(`id`, `buyerId`, `note`) VALUES ';
const S = 'INSERT INTO "orders"("id", "buyerId", "note") VALUES ';

const CASES: readonly InsertCase[] = [
  {
    name: 'SQLite save() of two orders: numbers inline, NULL for a missing note',
    dialect: 'sqlite',
    sql: S + '(?, 1, NULL), (?, 2, ?)',
    parameters: ['1', '2', 'b'],
    statements: [
      ['s1', S + '(?, 1, NULL)', ['1']],
      ['s2', S + '(?, 2, ?)', ['2', 'b']],
    ],
  },
  {
    name: 'MySQL save() of two orders: DEFAULT for a missing note',
    dialect: 'mysql',
    sql: M + '(?, ?, DEFAULT), (?, ?, ?)',
    parameters: [1, 1, 2, 2, 'b'],
    statements: [
      ['s1', M + '(?, ?, DEFAULT)', [1, 1]],
      ['s2', M + '(?, ?, ?)', [2, 2, 'b']],
    ],
  },
  {
    name: 'rows of one shard that are not adjacent are joined, parameters in row order',
    dialect: 'mysql',
    sql: M + '(?, ?, ?), (?, ?, ?), (?, ?, ?)',
    parameters: [1, 10, 'a', 2, 20, 'b', 5, 50, 'c'],
    statements: [
      ['s1', M + '(?, ?, ?), (?, ?, ?)', [1, 10, 'a', 5, 50, 'c']],
      ['s2', M + '(?, ?, ?)', [2, 20, 'b']],
    ],
  },
  {
    name: 'SQLite keys written into the text; shards in index order',
    dialect: 'sqlite',
    sql: S + '(7, 1, ?), (4, 2, ?), (3, 3, ?)',
    parameters: ['a', 'b', 'c'],
    statements: [
      ['s0', S + '(4, 2, ?)', ['b']],
      ['s3', S + '(7, 1, ?), (3, 3, ?)', ['a', 'c']],
    ],
  },
  {
    name: 'every row on one shard: the statement goes unchanged',
    dialect: 'mysql',
    sql: M + '(?, ?, ?), (?, ?, ?)',
    parameters: [1, 1, 'a', 5, 2, 'b'],
    statements: [['s1', M + '(?, ?, ?), (?, ?, ?)', [1, 1, 'a', 5, 2, 'b']]],
  },
  {
    name: "key spellings: '5' and 5 go to the same shard",
    dialect: 'mysql',
    sql: M + '(?, ?, ?), (?, ?, ?)',
    parameters: ['5', 1, 'a', 9, 2, 'b'],
    statements: [['s1', M + '(?, ?, ?), (?, ?, ?)', ['5', 1, 'a', 9, 2, 'b']]],
  },
  {
    name: 'functions with parentheses and commas inside a row',
    dialect: 'mysql',
    sql: M + '(?, COALESCE(?, ?), ?), (?, NOW(), ?)',
    parameters: [1, 2, 3, 'a', 2, 'b'],
    statements: [
      ['s1', M + '(?, COALESCE(?, ?), ?)', [1, 2, 3, 'a']],
      ['s2', M + '(?, NOW(), ?)', [2, 'b']],
    ],
  },
  {
    name: 'ON DUPLICATE KEY UPDATE tail and its parameter go with every statement',
    dialect: 'mysql',
    sql: M + '(?, ?, ?), (?, ?, ?) ON DUPLICATE KEY UPDATE `note` = VALUES(`note`), `buyerId` = ?',
    parameters: [1, 1, 'a', 2, 2, 'b', 99],
    statements: [
      ['s1', M + '(?, ?, ?) ON DUPLICATE KEY UPDATE `note` = VALUES(`note`), `buyerId` = ?', [1, 1, 'a', 99]],
      ['s2', M + '(?, ?, ?) ON DUPLICATE KEY UPDATE `note` = VALUES(`note`), `buyerId` = ?', [2, 2, 'b', 99]],
    ],
  },
  {
    name: 'SQLite RETURNING tail',
    dialect: 'sqlite',
    sql: S + '(1, 1, ?), (2, 2, ?) RETURNING "id"',
    parameters: ['a', 'b'],
    statements: [
      ['s1', S + '(1, 1, ?) RETURNING "id"', ['a']],
      ['s2', S + '(2, 2, ?) RETURNING "id"', ['b']],
    ],
  },
  {
    name: 'the key column is the second one (order_items.orderId)',
    dialect: 'sqlite',
    sql: 'INSERT INTO "order_items"("id", "orderId", "sku", "qty") VALUES (100, 1, ?, 1), (101, 2, ?, 3)',
    parameters: ['x', 'y'],
    statements: [
      ['s1', 'INSERT INTO "order_items"("id", "orderId", "sku", "qty") VALUES (100, 1, ?, 1)', ['x']],
      ['s2', 'INSERT INTO "order_items"("id", "orderId", "sku", "qty") VALUES (101, 2, ?, 3)', ['y']],
    ],
  },
];

describe('INSERT split per shard', () => {
  it.each(CASES.map((c) => [`${c.name} (${c.dialect})`, c] as const))('%s', (_name, c) => {
    expect(splitInsert(c.sql, c.parameters, c.dialect)).toEqual(c.statements);
  });
});

describe('INSERT rows without a usable key are refused whole', () => {
  const cases: readonly [string, SqlDialect, string, readonly unknown[], RegExp][] = [
    ['a NULL parameter (MySQL)', 'mysql', M + '(?, ?, ?)', [null, 1, 'a'], /Row 1 .* has NULL for shard key "id"/],
    ['an undefined parameter (MySQL)', 'mysql', M + '(?, ?, ?)', [undefined, 1, 'a'], /Row 1 .* has NULL for shard key "id"/],
    ['DEFAULT (MySQL)', 'mysql', 'INSERT INTO `orders`(`id`, `buyerId`, `note`) VALUES (DEFAULT, ?, ?)', [1, 'b'], /Row 1 .* has DEFAULT for shard key "id"/],
    ['a NULL literal (SQLite)', 'sqlite', S + '(NULL, 1, ?)', ['b'], /Row 1 .* has NULL for shard key "id"/],
    ['a NULL in the second row only: nothing is written', 'sqlite', S + '(1, 1, ?), (?, 2, ?)', ['a', null, 'b'], /Row 2 .* has NULL/],
    ['an expression, not a value', 'mysql', M + '(? + 1, ?, ?)', [1, 1, 'a'], /Row 1 .* has \? \+ 1 for shard key "id"/],
  ];
  it.each(cases)('%s', (_name, dialect, sql, parameters, message) => {
    let thrown: unknown;
    try {
      splitInsert(sql, parameters, dialect);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(MissingShardKeyError);
    expect((thrown as MissingShardKeyError).code).toBe('SHARDING_MISSING_KEY');
    expect((thrown as MissingShardKeyError).stage).toBe('write');
    expect((thrown as Error).message).toMatch(message);
  });
});

describe('insertHeadOf', () => {
  const cases: readonly [string, SqlDialect, { table: string; columns: string[] | undefined; fromSelect: boolean }][] = [
    ['INSERT INTO "orders"("id", "buyerId") VALUES (1, 2)', 'sqlite', { table: 'orders', columns: ['id', 'buyerId'], fromSelect: false }],
    ['INSERT INTO `orders`(`id`, `buyerId`) VALUES (?, ?)', 'mysql', { table: 'orders', columns: ['id', 'buyerId'], fromSelect: false }],
    ['INSERT IGNORE INTO `shop`.`orders` (`id`) VALUES (?)', 'mysql', { table: 'orders', columns: ['id'], fromSelect: false }],
    ['REPLACE INTO `orders` (`id`) VALUE (?)', 'mysql', { table: 'orders', columns: ['id'], fromSelect: false }],
    ['INSERT OR REPLACE INTO "orders" ("id") VALUES (1)', 'sqlite', { table: 'orders', columns: ['id'], fromSelect: false }],
    ['INSERT INTO "we""ird" ("a""b") VALUES (1)', 'sqlite', { table: 'we"ird', columns: ['a"b'], fromSelect: false }],
    ['INSERT INTO `orders` VALUES (?, ?)', 'mysql', { table: 'orders', columns: undefined, fromSelect: false }],
    ['INSERT INTO `orders` (`id`) SELECT `id` FROM `old`', 'mysql', { table: 'orders', columns: ['id'], fromSelect: true }],
  ];
  it.each(cases)('%s', (sql, dialect, expected) => {
    expect(insertHeadOf(sql, dialect)).toEqual(expected);
  });
});

describe('insertRowsOf', () => {
  it('cuts VALUES into rows and items, nested parentheses and strings included', () => {
    const sql = `INSERT INTO "t"("a", "b", "c") VALUES (1, 'x, (y)', COALESCE(?, 2)), ( 3 ,NULL,'z' ) ON CONFLICT DO NOTHING`;
    const p = parameterize(sql, [7], 'sqlite');
    const rows = insertRowsOf(p, 'sqlite').rows;
    expect(rows.map((r) => sql.slice(r.start, r.end))).toEqual([`(1, 'x, (y)', COALESCE(?, 2))`, `( 3 ,NULL,'z' )`]);
    expect(rows.map((r) => r.items.map((i) => sql.slice(i.start, i.end)))).toEqual([
      ['1', `'x, (y)'`, 'COALESCE(?, 2)'],
      ['3', 'NULL', `'z'`],
    ]);
  });
});
