import { describe, expect, it } from 'vitest';
import { parameterize, type ParameterizedSql, type SqlDialect } from '../parameterize/index.js';
import { analyze } from '../plan/analyze.js';
import { fakeRules } from '../plan/testing/fake-rules.js';
import { DIALECTS, typeormSql } from '../plan/testing/typeorm-sql.js';
import { routeByKey, type RouteSettings, type RouteUnit } from '../route/index.js';
import type { PhysicalStatement } from './physical-statement.js';
import { rewriteUnit, type RewriteContext } from './rewriter.js';
import { rewriteContextOf } from './testing/rewrite-context.js';

const rules = fakeRules();

/** parameterize → analyze → routeByKey → rewriteUnit, as the engine wires them; statements as `[shard, sql, parameters]`. */
function rewriteAll(sql: string, parameters: readonly unknown[], dialect: SqlDialect, settings: RouteSettings): [string, string, unknown[]][] {
  const p = parameterize(sql, parameters, dialect);
  const plan = analyze(p, rules, dialect);
  if (plan.kind !== 'select' && plan.kind !== 'write') throw new Error(`not a routed plan: ${plan.kind}`);
  const route = routeByKey(plan.condition, plan.prunableLists, p, rules.ruleOf(plan.table)!.shardKey!, 4, settings);
  if (route.kind === 'nowhere') return [];
  const ctx = rewriteContextOf(plan, p, dialect, route.units.length > 1);
  return route.units.map((u) => rewriteUnit(u, ctx)).map((s) => [`s${s.shard}`, s.sql, [...s.parameters]]);
}

interface RewriteCase {
  readonly name: string;
  /** MySQL spelling; the SQLite spelling of the input and of every expected statement is derived. */
  readonly query: string;
  readonly parameters?: readonly unknown[];
  readonly settings?: Partial<RouteSettings>;
  /** `[shard, sql, parameters]` per physical statement, in route order. */
  readonly statements: readonly (readonly [string, string, readonly unknown[]])[];
}

const ARTICLE =
  'SELECT `Order`.`id` AS `Order_id`, `Order`.`buyerId` AS `Order_buyerId` FROM `orders` `Order` ' +
  'WHERE ((`Order`.`id` IN (?, ?, ?, ?, ?)) AND (`Order`.`buyerId` = ?)) ORDER BY `Order`.`regionId` DESC LIMIT 2 OFFSET 1';
const articleOn = (list: string) =>
  'SELECT `Order`.`id` AS `Order_id`, `Order`.`buyerId` AS `Order_buyerId` , `Order`.`regionId` AS `__shard_sort_0` FROM `orders` `Order` ' +
  `WHERE ((\`Order\`.\`id\` IN (${list})) AND (\`Order\`.\`buyerId\` = ?)) ORDER BY \`Order\`.\`regionId\` DESC LIMIT 3 OFFSET 0`;

const DISTINCT_PAGE = (list: string, limit: string) =>
  'SELECT DISTINCT `distinctAlias`.`Order_id` AS `ids_Order_id`, `distinctAlias`.`Order_id` FROM ' +
  '(SELECT `Order`.`id` AS `Order_id`, `I`.`id` AS `I_id` FROM `orders` `Order` LEFT JOIN `order_items` `I` ON `I`.`orderId`=`Order`.`id` ' +
  `WHERE ((\`Order\`.\`id\` IN (${list})))) \`distinctAlias\` ORDER BY \`distinctAlias\`.\`Order_id\` ASC ${limit}`;

const CASES: readonly RewriteCase[] = [
  {
    name: 'the article example scattered: each shard gets its values, LIMIT offset+count from 0, the derived ORDER BY column before FROM',
    query: ARTICLE,
    parameters: [1, 2, 4, 5, 9, 7],
    statements: [
      ['s0', articleOn('?'), [4, 7]],
      ['s1', articleOn('?, ?, ?'), [1, 5, 9, 7]],
      ['s2', articleOn('?'), [2, 7]],
    ],
  },
  {
    name: 'one shard, one statement: the text and parameters are sent untouched (LIMIT and OFFSET kept)',
    query: ARTICLE,
    parameters: [1, 5, 9, 13, 17, 7],
    statements: [['s1', ARTICLE, [1, 5, 9, 13, 17, 7]]],
  },
  {
    name: 'one shard, a NULL and a duplicate dropped: only the list changes',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?, ?, ?))) ORDER BY `Order`.`createdAt` DESC LIMIT 2 OFFSET 1',
    parameters: [1, null, 5, 1],
    statements: [['s1', 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?))) ORDER BY `Order`.`createdAt` DESC LIMIT 2 OFFSET 1', [1, 5]]],
  },
  {
    name: 'batches on one shard are several statements: LIMIT rewritten, derived column added',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?, ?))) ORDER BY `Order`.`regionId` ASC LIMIT 5 OFFSET 10',
    parameters: [1, 5, 9],
    settings: { maxInValuesPerQuery: 2 },
    statements: [
      ['s1', 'SELECT `Order`.`id` AS `Order_id` , `Order`.`regionId` AS `__shard_sort_0` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?))) ORDER BY `Order`.`regionId` ASC LIMIT 15 OFFSET 0', [1, 5]],
      ['s1', 'SELECT `Order`.`id` AS `Order_id` , `Order`.`regionId` AS `__shard_sort_0` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?))) ORDER BY `Order`.`regionId` ASC LIMIT 15 OFFSET 0', [9]],
    ],
  },
  {
    name: 'a leading comment is kept byte for byte',
    query: '/* comment */ SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?)))',
    parameters: [1, 2],
    statements: [
      ['s1', '/* comment */ SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?)))', [1]],
      ['s2', '/* comment */ SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?)))', [2]],
    ],
  },
  {
    name: 'LIMIT without OFFSET scattered: unchanged (offset 0 + count)',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?))) ORDER BY `Order`.`id` ASC LIMIT 10',
    parameters: [1, 2],
    statements: [
      ['s1', 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?))) ORDER BY `Order`.`id` ASC LIMIT 10', [1]],
      ['s2', 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?))) ORDER BY `Order`.`id` ASC LIMIT 10', [2]],
    ],
  },
  {
    name: 'relations + skip/take: the inner IN list is cut, the outer page becomes LIMIT 3 OFFSET 0',
    query: DISTINCT_PAGE('?, ?, ?', 'LIMIT 2 OFFSET 1'),
    parameters: [1, 2, 5],
    statements: [
      ['s1', DISTINCT_PAGE('?, ?', 'LIMIT 3 OFFSET 0'), [1, 5]],
      ['s2', DISTINCT_PAGE('?', 'LIMIT 3 OFFSET 0'), [2]],
    ],
  },
  {
    name: 'count(): COUNT(1) per shard',
    query: 'SELECT COUNT(1) AS `cnt` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?, ?)))',
    parameters: [1, 2, 5],
    statements: [
      ['s1', 'SELECT COUNT(1) AS `cnt` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?)))', [1, 5]],
      ['s2', 'SELECT COUNT(1) AS `cnt` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?)))', [2]],
    ],
  },
  {
    name: 'exists(): the list inside EXISTS is cut; LIMIT 1 stays',
    query: 'SELECT 1 AS `row_exists` FROM (SELECT 1 AS dummy_column) `dummy_table` WHERE EXISTS (SELECT 1 FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?)))) LIMIT 1',
    parameters: [1, 2],
    statements: [
      ['s1', 'SELECT 1 AS `row_exists` FROM (SELECT 1 AS dummy_column) `dummy_table` WHERE EXISTS (SELECT 1 FROM `orders` `Order` WHERE ((`Order`.`id` IN (?)))) LIMIT 1', [1]],
      ['s2', 'SELECT 1 AS `row_exists` FROM (SELECT 1 AS dummy_column) `dummy_table` WHERE EXISTS (SELECT 1 FROM `orders` `Order` WHERE ((`Order`.`id` IN (?)))) LIMIT 1', [2]],
    ],
  },
  {
    name: 'parameters before, inside and after the list keep their order',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`note` = ? AND `Order`.`id` IN (?, ?, ?) AND `Order`.`note` <> ?',
    parameters: ['a', 1, 2, 5, 'b'],
    statements: [
      ['s1', 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`note` = ? AND `Order`.`id` IN (?, ?) AND `Order`.`note` <> ?', ['a', 1, 5, 'b']],
      ['s2', 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`note` = ? AND `Order`.`id` IN (?) AND `Order`.`note` <> ?', ['a', 2, 'b']],
    ],
  },
  {
    name: 'an IN list on another column goes whole',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` IN (?, ?) AND `Order`.`buyerId` IN (?, ?)',
    parameters: [1, 2, 30, 40],
    statements: [
      ['s1', 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` IN (?) AND `Order`.`buyerId` IN (?, ?)', [1, 30, 40]],
      ['s2', 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` IN (?) AND `Order`.`buyerId` IN (?, ?)', [2, 30, 40]],
    ],
  },
  {
    name: 'OR of equalities: the same statement to each shard it names',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((((`Order`.`id` = ?))) OR (((`Order`.`id` = ?))))',
    parameters: [1, 2],
    statements: [
      ['s1', 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((((`Order`.`id` = ?))) OR (((`Order`.`id` = ?))))', [1, 2]],
      ['s2', 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((((`Order`.`id` = ?))) OR (((`Order`.`id` = ?))))', [1, 2]],
    ],
  },
  {
    name: 'pruning: false: the original statement to every shard',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?)))',
    parameters: [1, 2],
    settings: { pruning: false },
    statements: ['s0', 's1', 's2', 's3'].map((s) => [s, 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?)))', [1, 2]] as const),
  },
  {
    name: 'unqualified derived ORDER BY column of raw SQL',
    query: 'SELECT `id` FROM `orders` WHERE `id` IN (?, ?) ORDER BY `regionId` DESC LIMIT 3',
    parameters: [1, 2],
    statements: [
      ['s1', 'SELECT `id` , `regionId` AS `__shard_sort_0` FROM `orders` WHERE `id` IN (?) ORDER BY `regionId` DESC LIMIT 3', [1]],
      ['s2', 'SELECT `id` , `regionId` AS `__shard_sort_0` FROM `orders` WHERE `id` IN (?) ORDER BY `regionId` DESC LIMIT 3', [2]],
    ],
  },
  {
    name: 'UPDATE: the SET parameter stays, the list is cut',
    query: 'UPDATE `orders` SET `note` = ? WHERE `id` IN (?, ?, ?)',
    parameters: ['x', 1, 2, 5],
    statements: [
      ['s1', 'UPDATE `orders` SET `note` = ? WHERE `id` IN (?, ?)', ['x', 1, 5]],
      ['s2', 'UPDATE `orders` SET `note` = ? WHERE `id` IN (?)', ['x', 2]],
    ],
  },
  {
    name: 'DELETE with a cut list',
    query: 'DELETE FROM `orders` WHERE `id` IN (?, ?, ?)',
    parameters: [4, 8, 3],
    statements: [
      ['s0', 'DELETE FROM `orders` WHERE `id` IN (?, ?)', [4, 8]],
      ['s3', 'DELETE FROM `orders` WHERE `id` IN (?)', [3]],
    ],
  },
];

describe.each(DIALECTS)('rewriteUnit cases (%s)', (dialect) => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const input = typeormSql(c.query, c.parameters ?? [], dialect);
    const expected = c.statements.map(([shard, sql, parameters]) => {
      const spelled = typeormSql(sql, parameters, dialect);
      return [shard, spelled.sql, spelled.parameters];
    });
    const settings = { pruning: true, maxInValuesPerQuery: 256, ...c.settings };
    expect(rewriteAll(input.sql, input.parameters, dialect, settings), input.sql).toEqual(expected);
  });
});

describe('rewriteUnit, dialect-specific', () => {
  const settings: RouteSettings = { pruning: true, maxInValuesPerQuery: 256 };

  it('GROUP BY across shards: the LIMIT is lifted with the dialect\'s "no limit"', () => {
    const q = 'SELECT `Order`.`buyerId` AS `b`, COUNT(`Order`.`id`) AS `cnt` FROM `orders` `Order` WHERE `Order`.`id` IN (?, ?) GROUP BY `Order`.`buyerId` ORDER BY `Order`.`buyerId` ASC LIMIT 3';
    const [mysql] = rewriteAll(q, [1, 2], 'mysql', settings);
    expect(mysql![1]).toBe(q.replace('IN (?, ?)', 'IN (?)').replace('LIMIT 3', 'LIMIT 18446744073709551615'));
    const sqlite = typeormSql(q, [1, 2], 'sqlite').sql;
    const [first] = rewriteAll(sqlite, [], 'sqlite', settings);
    expect(first![1]).toBe(sqlite.replace('IN (1, 2)', 'IN (1)').replace('LIMIT 3', 'LIMIT -1'));
  });

  it('SQLite skip without take (`LIMIT -1 OFFSET n`) scattered stays unlimited from offset 0', () => {
    const sql = 'SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE "Order"."id" IN (1, 2) ORDER BY "Order"."id" ASC LIMIT -1 OFFSET 5';
    expect(rewriteAll(sql, [], 'sqlite', settings).map((s) => s[1])).toEqual([
      'SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE "Order"."id" IN (1) ORDER BY "Order"."id" ASC LIMIT -1 OFFSET 0',
      'SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE "Order"."id" IN (2) ORDER BY "Order"."id" ASC LIMIT -1 OFFSET 0',
    ]);
  });

  // BUG: MySQL's documented "all rows from offset n" idiom is `LIMIT 18446744073709551615 OFFSET n`
  // (the largest BIGINT UNSIGNED). Scattered, the count becomes offset + count =
  // 18446744073709551620, which MySQL rejects. The sum must be capped at the maximum.
  it('MySQL `LIMIT 18446744073709551615 OFFSET 5` scattered keeps the maximum count', () => {
    const sql = 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` IN (?, ?) ORDER BY `Order`.`id` ASC LIMIT 18446744073709551615 OFFSET 5';
    expect(rewriteAll(sql, [1, 2], 'mysql', settings).map((s) => s[1])).toEqual([
      'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` IN (?) ORDER BY `Order`.`id` ASC LIMIT 18446744073709551615 OFFSET 0',
      'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` IN (?) ORDER BY `Order`.`id` ASC LIMIT 18446744073709551615 OFFSET 0',
    ]);
  });

  it('MySQL `LIMIT ?, ?` parameters are replaced, not the text', () => {
    const sql = 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` IN (?, ?) ORDER BY `Order`.`id` ASC LIMIT ?, ?';
    expect(rewriteAll(sql, [1, 2, 5, 10], 'mysql', settings)).toEqual([
      ['s1', sql.replace('IN (?, ?)', 'IN (?)'), [1, 0, 15]],
      ['s2', sql.replace('IN (?, ?)', 'IN (?)'), [2, 0, 15]],
    ]);
  });

  it('MySQL `LIMIT ? OFFSET ?` parameters', () => {
    const sql = 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` ORDER BY `Order`.`id` ASC LIMIT ? OFFSET ?';
    const statements = rewriteAll(sql, [20, 40], 'mysql', settings);
    expect(statements).toHaveLength(4);
    for (const s of statements) expect(s.slice(1)).toEqual([sql, [60, 0]]);
  });

  // Regression: when groups span shards the shards get no limit; a `?` count became the text
  // '18446744073709551615', which mysql2 quotes and MariaDB rejects.
  it('MySQL `LIMIT ?` of a query whose groups span shards: "no limit" as a number parameter', () => {
    const sql = 'SELECT DISTINCT `Order`.`buyerId` AS `b` FROM `orders` `Order` ORDER BY `b` ASC LIMIT ? OFFSET ?';
    for (const s of rewriteAll(sql, [5, 2], 'mysql', settings)) expect(s[2]).toEqual([18446744073709551615n, 0]);
  });

  it('a capped shallow page: each shard its window from row 0 and its shard index in `__shard_branch`, after the derived columns', () => {
    const sql = 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` ORDER BY `Order`.`buyerId` DESC LIMIT 20';
    const p = parameterize(sql, [], 'mysql');
    const plan = analyze(p, rules, 'mysql');
    if (plan.kind !== 'select') throw new Error(plan.kind);
    const ctx = { ...rewriteContextOf(plan, p, 'mysql', true), window: { start: 0, rows: 7 }, branchTag: '__shard_branch' };
    expect(rewriteUnit({ shard: 3, lists: new Map() }, ctx).sql).toBe(
      'SELECT `Order`.`id` AS `Order_id` , `Order`.`buyerId` AS `__shard_sort_0` , 3 AS `__shard_branch` FROM `orders` `Order` ORDER BY `Order`.`buyerId` DESC LIMIT 7',
    );
    const withOffset = parameterize(`${sql} OFFSET 5`, [], 'mysql');
    const planned = analyze(withOffset, rules, 'mysql');
    if (planned.kind !== 'select') throw new Error(planned.kind);
    expect(rewriteUnit({ shard: 0, lists: new Map() }, { ...rewriteContextOf(planned, withOffset, 'mysql', true), window: { start: 0, rows: 9 } }).sql).toMatch(/LIMIT 9 OFFSET 0$/);
  });

  it('MySQL `LIMIT offset, count` literals', () => {
    const sql = 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` ORDER BY `Order`.`id` ASC LIMIT 5, 10';
    for (const s of rewriteAll(sql, [], 'mysql', settings)) expect(s[1]).toBe(sql.replace('LIMIT 5, 10', 'LIMIT 0, 15'));
  });

  it('the derived column goes before the top-level FROM, not one inside parentheses', () => {
    const sql = 'SELECT EXTRACT(YEAR FROM `Order`.`createdAt`) AS `y` FROM `orders` `Order` ORDER BY `Order`.`buyerId` DESC';
    for (const s of rewriteAll(sql, [], 'mysql', settings)) {
      expect(s[1]).toBe('SELECT EXTRACT(YEAR FROM `Order`.`createdAt`) AS `y` , `Order`.`buyerId` AS `__shard_sort_0` FROM `orders` `Order` ORDER BY `Order`.`buyerId` DESC');
    }
  });
});

describe('rewriteUnit with hand-made contexts', () => {
  const unitKeeping = (p: ParameterizedSql, shard: number, keep: readonly number[]): RouteUnit => ({
    shard,
    lists: new Map([[0, keep.map((i) => p.inLists[0]!.items[i]!)]]),
  });
  const context = (p: ParameterizedSql, dialect: SqlDialect, fields: Partial<RewriteContext>): RewriteContext => ({
    p,
    dialect,
    scatter: true,
    limit: undefined,
    page: undefined,
    cutHaving: false,
    derivedColumns: [],
    extraGroupBy: [],
    itemAliases: [],
    ...fields,
  });

  it('a unit keeping every item returns the original text and parameter array', () => {
    const p = parameterize('SELECT `id` FROM `orders` WHERE `id` IN (?, ?)', [1, 5], 'mysql');
    const s: PhysicalStatement = rewriteUnit(unitKeeping(p, 1, [0, 1]), context(p, 'mysql', { scatter: false }));
    expect(s).toEqual({ shard: 1, sql: p.sql, parameters: [1, 5] });
    expect(s.parameters).toBe(p.parameters);
  });

  it('keeps the chosen items in their order, with their own spelling', () => {
    const p = parameterize(`SELECT "id" FROM "orders" WHERE "id" IN (1, '005', ?, 9)`, ['13'], 'sqlite');
    expect(rewriteUnit(unitKeeping(p, 1, [1, 2]), context(p, 'sqlite', {}))).toEqual({
      shard: 1,
      sql: `SELECT "id" FROM "orders" WHERE "id" IN ('005', ?)`,
      parameters: ['13'],
    });
  });

  it('derived columns are re-quoted for SQLite, escaping quotes in names', () => {
    const p = parameterize('SELECT "x"."id" AS "id" FROM "orders" "x" ORDER BY "x"."b" DESC', [], 'sqlite');
    const derivedColumns = [
      { expression: '`x`.`b`', alias: '__shard_sort_0', slots: [] },
      { expression: '`we"ird`.`a``b`', alias: '__shard_sort_1', slots: [] },
    ];
    expect(rewriteUnit({ shard: 0, lists: new Map() }, context(p, 'sqlite', { derivedColumns })).sql).toBe(
      'SELECT "x"."id" AS "id" , "x"."b" AS "__shard_sort_0", "we""ird"."a`b" AS "__shard_sort_1" FROM "orders" "x" ORDER BY "x"."b" DESC',
    );
    const m = parameterize('SELECT `x`.`id` AS `id` FROM `orders` `x` ORDER BY `x`.`b` DESC', [], 'mysql');
    expect(rewriteUnit({ shard: 0, lists: new Map() }, context(m, 'mysql', { derivedColumns: derivedColumns.slice(0, 1) })).sql).toBe(
      'SELECT `x`.`id` AS `id` , `x`.`b` AS `__shard_sort_0` FROM `orders` `x` ORDER BY `x`.`b` DESC',
    );
  });

  it('without scatter neither LIMIT nor derived columns change', () => {
    const p = parameterize('SELECT `x`.`id` AS `id` FROM `orders` `x` ORDER BY `x`.`b` DESC LIMIT 10 OFFSET 30', [], 'mysql');
    const ctx = context(p, 'mysql', { scatter: false, limit: { countSlot: 0, offsetSlot: 1 }, derivedColumns: [{ expression: '`x`.`b`', alias: '__shard_sort_0', slots: [] }] });
    expect(rewriteUnit({ shard: 2, lists: new Map() }, ctx)).toEqual({ shard: 2, sql: p.sql, parameters: [] });
  });
});
