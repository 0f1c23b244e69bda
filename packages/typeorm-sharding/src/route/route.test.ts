import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalKeyString } from '../algorithms/index.js';
import { parameterize, type ParameterizedSql, type SqlDialect } from '../parameterize/index.js';
import { analyze } from '../plan/analyze.js';
import { PlanCache } from '../plan/plan-cache.js';
import type { KeyCondition } from '../plan/plan.js';
import { fakeRules, FOUR_SHARDS, shardNamesOf, SHOP_TABLES } from '../plan/testing/fake-rules.js';
import { DIALECTS, typeormSql } from '../plan/testing/typeorm-sql.js';
import type { ShardingRules } from '../rules/index.js';
import { shardsOf } from './evaluate-condition.js';
import { routeByKey } from './route.js';
import type { Route, RouteSettings } from './route-types.js';

const DEFAULT_SETTINGS: RouteSettings = { pruning: true, maxInValuesPerQuery: 256 };
const rulesByCount = new Map<number, ShardingRules>();
const rulesOf = (count: number): ShardingRules => {
  let rules = rulesByCount.get(count);
  if (!rules) rulesByCount.set(count, (rules = fakeRules(SHOP_TABLES, count === 4 ? FOUR_SHARDS : shardNamesOf(count))));
  return rules;
};
const plans = new PlanCache(100);

/** Plans (cached by shape) and routes one statement; a unit is written `s1 l0=(1,5,9)`: shard and the items of each cut list. */
function route(sql: string, parameters: readonly unknown[], dialect: SqlDialect, shardCount = 4, settings = DEFAULT_SETTINGS): { p: ParameterizedSql; route: Route } {
  const rules = rulesOf(shardCount);
  const p = parameterize(sql, parameters, dialect);
  const plan = plans.getOrCreate(`${dialect}:${p.key}`, () => analyze(p, rulesOf(4), dialect));
  if (plan.kind !== 'select' && plan.kind !== 'write') throw new Error(`not a routed statement: ${plan.kind}`);
  const key = rules.ruleOf(plan.table)!.shardKey!;
  return { p, route: routeByKey(plan.condition, plan.prunableLists, p, key, shardCount, settings) };
}

function describeRoute(r: Route): string | string[] {
  if (r.kind === 'nowhere') return 'nowhere';
  return r.units.map((u) =>
    [`s${u.shard}`, ...[...u.lists].sort((a, b) => a[0] - b[0]).map(([list, items]) => `l${list}=(${items.map((i) => String(i.value)).join(',')})`)].join(' '),
  );
}

interface RouteCase {
  readonly name: string;
  /** MySQL spelling (backticks, `?`); the SQLite one writes numbers into the text. */
  readonly query: string;
  readonly parameters?: readonly unknown[];
  readonly shards?: number;
  readonly settings?: Partial<RouteSettings>;
  readonly expected: string | readonly string[];
}

const FIND = 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?, ?, ?, ?)))';
const FIND3 = 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?, ?)))';
const OR2 = 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((((`Order`.`id` = ?))) OR (((`Order`.`id` = ?))))';

const CASES: readonly RouteCase[] = [
  {
    name: 'the article example: mod 4, ids 1,2,4,5,9 → shard0 {4}, shard1 {1,5,9}, shard2 {2}, shard3 nothing',
    query: FIND,
    parameters: [1, 2, 4, 5, 9],
    expected: ['s0 l0=(4)', 's1 l0=(1,5,9)', 's2 l0=(2)'],
  },
  {
    name: 'batches of at most maxInValuesPerQuery = 2: four units',
    query: FIND,
    parameters: [1, 2, 4, 5, 9],
    settings: { maxInValuesPerQuery: 2 },
    expected: ['s0 l0=(4)', 's1 l0=(1,5)', 's1 l0=(9)', 's2 l0=(2)'],
  },
  {
    name: 'batch size 1: one unit per value',
    query: FIND,
    parameters: [9, 5, 1, 2, 4],
    settings: { maxInValuesPerQuery: 1 },
    expected: ['s0 l0=(4)', 's1 l0=(9)', 's1 l0=(5)', 's1 l0=(1)', 's2 l0=(2)'],
  },
  {
    name: "duplicates are sent once: 5, '5' and '005' are one key (first spelling kept)",
    query: FIND3,
    parameters: [5, '5', '005'],
    expected: ['s1 l0=(5)'],
  },
  {
    name: 'NULL items match nothing and are dropped',
    query: FIND3,
    parameters: [5, null, 9],
    expected: ['s1 l0=(5,9)'],
  },
  {
    name: 'an item that names no one key (2.5, a text that is no integer) goes to every shard with its list',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (?, ?, ?, ?)))',
    parameters: [5, 2.5, '9', '5abc'],
    expected: ['s0 l0=(2.5,5abc)', 's1 l0=(5,2.5,9,5abc)', 's2 l0=(2.5,5abc)', 's3 l0=(2.5,5abc)'],
  },
  {
    name: "key = a value that names no one key: every shard (the database decides: '5abc' finds row 5 on MySQL)",
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` = ? AND `Order`.`id` IN (?)',
    parameters: ['5abc', 5],
    expected: ['s1 l0=(5)'],
  },
  { name: 'key = 2.5 alone: every shard', query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` = ?', parameters: [2.5], expected: ['s0', 's1', 's2', 's3'] },
  {
    name: 'only NULLs: nowhere',
    query: FIND3,
    parameters: [null, null, null],
    expected: 'nowhere',
  },
  {
    name: 'AND of two IN lists whose shards do not meet: nowhere',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` IN (?) AND `Order`.`id` IN (?)',
    parameters: [1, 2],
    expected: 'nowhere',
  },
  {
    name: 'AND of two IN lists: the shards they share, each list cut to the shard',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` IN (?, ?) AND `Order`.`id` IN (?, ?)',
    parameters: [1, 5, 9, 2],
    expected: ['s1 l0=(1,5) l1=(9)'],
  },
  {
    name: 'IN AND = on the key: the equality narrows the shards, the list is cut',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` IN (?, ?, ?) AND `Order`.`id` = ?',
    parameters: [1, 2, 5, 9],
    expected: ['s1 l0=(1,5)'],
  },
  { name: 'OR of equalities on two shards', query: OR2, parameters: [1, 2], expected: ['s1', 's2'] },
  { name: 'OR of equalities on one shard', query: OR2, parameters: [1, 5], expected: ['s1'] },
  { name: 'OR of equalities, one NULL', query: OR2, parameters: [null, 2], expected: ['s2'] },
  {
    name: 'IN under an OR: the shards of its values, the list sent whole',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` IN (?, ?) OR `Order`.`id` = ?',
    parameters: [1, 2, 5],
    expected: ['s1', 's2'],
  },
  { name: 'In([]) written 0=1: nowhere', query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((0=1))', expected: 'nowhere' },
  { name: '1=1: every shard', query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((1=1))', expected: ['s0', 's1', 's2', 's3'] },
  {
    name: '0=1 inside an OR does not hide the other side',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((0=1)) OR `Order`.`id` = ?',
    parameters: [6],
    expected: ['s2'],
  },
  { name: 'key = value', query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` = ?', parameters: [7], expected: ['s3'] },
  {
    name: 'key = value AND key = other value on another shard: nowhere',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` = ? AND `Order`.`id` = ?',
    parameters: [1, 2],
    expected: 'nowhere',
  },
  { name: 'no WHERE: every shard', query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order`', expected: ['s0', 's1', 's2', 's3'] },
  {
    name: 'NOT IN: every shard',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` NOT IN (?, ?)',
    parameters: [1, 2],
    expected: ['s0', 's1', 's2', 's3'],
  },
  {
    name: 'pruning: false sends the whole list to every shard',
    query: FIND,
    parameters: [1, 2, 4, 5, 9],
    settings: { pruning: false },
    expected: ['s0', 's1', 's2', 's3'],
  },
  {
    name: 'pruning: false with a single key still broadcasts (the naive baseline)',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` = ?',
    parameters: [5],
    settings: { pruning: false },
    expected: ['s0', 's1', 's2', 's3'],
  },
  {
    name: 'pruning: false does not send an In([]) anywhere',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((0=1))',
    settings: { pruning: false },
    expected: 'nowhere',
  },
  {
    name: 'negative keys use the floored modulo: -1 and -5 → shard 3',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` IN (?, ?)',
    parameters: [-1, -5],
    expected: ['s3 l0=(-1,-5)'],
  },
  {
    name: 'BIGINT UNSIGNED keys beyond 2^53 are exact: 2^64 − 1 mod 4 = 3',
    query: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` IN (?, ?)',
    parameters: [18446744073709551615n, 9007199254740993n],
    expected: ['s1 l0=(9007199254740993)', 's3 l0=(18446744073709551615)'],
  },
  {
    name: 'one shard: everything goes to s0',
    query: FIND,
    parameters: [1, 2, 4, 5, 9],
    shards: 1,
    expected: ['s0 l0=(1,2,4,5,9)'],
  },
  {
    name: 'UPDATE … WHERE key IN (…) is routed like a SELECT',
    query: 'UPDATE `orders` SET `note` = ? WHERE `id` IN (?, ?, ?)',
    parameters: ['x', 1, 2, 5],
    expected: ['s1 l0=(1,5)', 's2 l0=(2)'],
  },
  {
    name: 'DELETE … WHERE key = ?',
    query: 'DELETE FROM `orders` WHERE `id` = ?',
    parameters: [4],
    expected: ['s0'],
  },
];

describe.each(DIALECTS)('routeByKey cases (%s)', (dialect) => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const { sql, parameters } = typeormSql(c.query, c.parameters ?? [], dialect);
    const settings = { ...DEFAULT_SETTINGS, ...c.settings };
    expect(describeRoute(route(sql, parameters, dialect, c.shards ?? 4, settings).route), sql).toEqual(c.expected);
  });
});

describe('routeByKey', () => {
  it("SQLite string literals '5' and '005' and the number 5 are one key", () => {
    const sql = `SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE "Order"."id" IN ('5', 5, '005', 9)`;
    expect(describeRoute(route(sql, [], 'sqlite').route)).toEqual(['s1 l0=(5,9)']);
  });

  it('a string key is hashed: the route agrees with the algorithm', () => {
    const codes = ['a', 'b', 'c', 'A', 'a'];
    const sql = 'SELECT `C`.`code` AS `c` FROM `codes` `C` WHERE `C`.`code` IN (?, ?, ?, ?, ?)';
    const algorithm = rulesOf(4).ruleOf('codes')!.shardKey!.algorithm;
    const byShard = new Map<number, string[]>();
    for (const code of new Set(codes)) byShard.set(algorithm.shardIndexOf(code), [...(byShard.get(algorithm.shardIndexOf(code)) ?? []), code]);
    const expected = [...byShard].sort((a, b) => a[0] - b[0]).map(([s, values]) => `s${s} l0=(${values.join(',')})`);
    expect(describeRoute(route(sql, codes, 'mysql').route)).toEqual(expected);
  });

  it("a number for a string key goes to every shard: MySQL compares them as numbers ('05' = 5)", () => {
    const algorithm = rulesOf(4).ruleOf('codes')!.shardKey!.algorithm;
    const sql = 'SELECT `C`.`code` AS `c` FROM `codes` `C` WHERE `C`.`code` = ?';
    expect(describeRoute(route(sql, [5], 'mysql').route)).toEqual(['s0', 's1', 's2', 's3']);
    expect(describeRoute(route(sql, [5n], 'mysql').route)).toEqual(['s0', 's1', 's2', 's3']);
    expect(describeRoute(route(sql, ['5'], 'mysql').route)).toEqual([`s${algorithm.shardIndexOf('5')}`]);
    const list = 'SELECT `C`.`code` AS `c` FROM `codes` `C` WHERE `C`.`code` IN (?, ?)';
    const ofA = `s${algorithm.shardIndexOf('a')}`;
    expect(describeRoute(route(list, ['a', 5], 'mysql').route)).toEqual(['s0', 's1', 's2', 's3'].map((s) => (s === ofA ? `${s} l0=(a,5)` : `${s} l0=(5)`)));
  });

  it('does not modify its inputs', () => {
    const { p } = route(typeormSql(FIND, [1, 2, 4, 5, 9], 'mysql').sql, [1, 2, 4, 5, 9], 'mysql');
    const before = JSON.stringify({ slots: p.slots, inLists: p.inLists, parameters: p.parameters });
    route(p.sql, p.parameters, 'mysql', 4, { pruning: true, maxInValuesPerQuery: 1 });
    expect(JSON.stringify({ slots: p.slots, inLists: p.inLists, parameters: p.parameters })).toBe(before);
  });

  it('1,000 values over 4 shards with batches of 100: Σ ceil(n_s / 100) units, every value exactly once', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => i * 7 + 3);
    const sql = `SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE (("Order"."id" IN (${ids.join(', ')})))`;
    const r = route(sql, [], 'sqlite', 4, { pruning: true, maxInValuesPerQuery: 100 }).route;
    checkPartition(r, ids, 4, 100, rulesOf(4).ruleOf('orders')!.shardKey!.algorithm.shardIndexOf);
    expect(r.kind === 'units' && r.units.length).toBe(12); // 250 per shard → 3 batches each
  });
});

/** Every distinct non-NULL value in exactly one unit of its own shard; Σ ceil(n_s / max) units, none larger than max. */
function checkPartition(r: Route, values: readonly unknown[], shardCount: number, max: number, shardOf: (v: unknown) => number): void {
  const distinct = new Map<string, number>();
  for (const v of values) if (v !== null) distinct.set(canonicalKeyString(v, 'integer'), shardOf(v));
  const perShard = new Array<number>(shardCount).fill(0);
  for (const shard of distinct.values()) perShard[shard]!++;
  const expectedUnits = perShard.reduce((n, count) => n + Math.ceil(count / max), 0);
  if (expectedUnits === 0) {
    expect(r.kind).toBe('nowhere');
    return;
  }
  expect(r.kind).toBe('units');
  if (r.kind !== 'units') return;
  expect(r.units).toHaveLength(expectedUnits);
  const seen = new Map<string, number>();
  let previousShard = -1;
  for (const unit of r.units) {
    expect(unit.shard).toBeGreaterThanOrEqual(previousShard);
    previousShard = unit.shard;
    const items = unit.lists.get(0)!;
    expect(items.length).toBeGreaterThan(0);
    expect(items.length).toBeLessThanOrEqual(max);
    for (const item of items) {
      const key = canonicalKeyString(item.value, 'integer');
      expect(distinct.get(key)).toBe(unit.shard);
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
  }
  expect(seen.size).toBe(distinct.size);
  for (const count of seen.values()) expect(count).toBe(1);
}

describe('routeByKey properties', () => {
  const valueArb = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: -50, max: 2000 }) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 2000 }).map((n) => String(n)) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 2000 }).map((n) => `00${n}`) },
    { weight: 1, arbitrary: fc.constant(null) },
  );

  it('partitions any IN list: each value once, on its shard, in Σ ceil(n_s / max) batches', () => {
    fc.assert(
      fc.property(
        fc.record({
          values: fc.array(valueArb, { minLength: 1, maxLength: 400 }),
          shardCount: fc.integer({ min: 1, max: 16 }),
          max: fc.integer({ min: 1, max: 120 }),
          table: fc.constantFrom('orders', 'customers'),
          dialect: fc.constantFrom<SqlDialect>('mysql', 'sqlite'),
        }),
        ({ values, shardCount, max, table, dialect }) => {
          const template = `SELECT \`T\`.\`id\` AS \`T_id\` FROM \`${table}\` \`T\` WHERE ((\`T\`.\`id\` IN (${values.map(() => '?').join(', ')})))`;
          const { sql, parameters } = typeormSql(template, values, dialect);
          const r = route(sql, parameters, dialect, shardCount, { pruning: true, maxInValuesPerQuery: max }).route;
          const algorithm = rulesOf(shardCount).ruleOf(table)!.shardKey!.algorithm;
          checkPartition(r, values, shardCount, max, (v) => algorithm.shardIndexOf(v));
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('routeByKey over numbers only (the usual TypeORM list: deduplicated without canonical text)', () => {
  it('partitions any list of integers, duplicates and -0 included, over up to 64 shards, shards ascending', () => {
    fc.assert(
      fc.property(
        fc.record({
          values: fc.array(fc.oneof(fc.integer({ min: -20, max: 300 }), fc.constant(-0)), { minLength: 1, maxLength: 300 }),
          shardCount: fc.integer({ min: 1, max: 64 }),
          max: fc.integer({ min: 1, max: 40 }),
        }),
        ({ values, shardCount, max }) => {
          const template = `SELECT \`T\`.\`id\` AS \`T_id\` FROM \`orders\` \`T\` WHERE ((\`T\`.\`id\` IN (${values.map(() => '?').join(', ')})))`;
          const r = route(template, values, 'mysql', shardCount, { pruning: true, maxInValuesPerQuery: max }).route;
          checkPartition(r, values, shardCount, max, (v) => rulesOf(shardCount).ruleOf('orders')!.shardKey!.algorithm.shardIndexOf(v));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('keeps the first of equal numbers, and 0 and -0 are one key', () => {
    const sql = 'SELECT `T`.`id` AS `T_id` FROM `orders` `T` WHERE ((`T`.`id` IN (?, ?, ?, ?, ?)))';
    const r = route(sql, [5, 9, 5, 0, -0], 'mysql').route;
    expect(r.kind === 'units' && r.units.flatMap((u) => u.lists.get(0)!.map((i) => i.paramIndex)).sort()).toEqual([0, 1, 3]);
  });
});

describe('shardsOf', () => {
  const key = rulesOf(4).ruleOf('orders')!.shardKey!;
  /** A ParameterizedSql with just the slot values and IN lists a condition reads. */
  const values = (slots: readonly unknown[], lists: readonly (readonly unknown[])[] = []): ParameterizedSql =>
    ({ slots: slots.map((value) => ({ value })), inLists: lists.map((items) => ({ items: items.map((value) => ({ value })) })) }) as never;
  const v = (slot: number): KeyCondition => ({ kind: 'values', refs: [{ kind: 'slot', slot }] });
  const cases: readonly { name: string; condition: KeyCondition; p: ParameterizedSql; expected: 'all' | number[] }[] = [
    { name: 'any', condition: { kind: 'any' }, p: values([]), expected: 'all' },
    { name: 'a slot', condition: v(0), p: values([6]), expected: [2] },
    { name: 'a NULL slot', condition: v(0), p: values([null]), expected: [] },
    { name: 'an IN list', condition: { kind: 'values', refs: [{ kind: 'in-list', list: 0 }] }, p: values([], [[1, 2, 5, null]]), expected: [1, 2] },
    { name: 'equal constants', condition: { kind: 'const-equal', left: 0, right: 1 }, p: values(['1', '1']), expected: 'all' },
    { name: 'different constants', condition: { kind: 'const-equal', left: 0, right: 1 }, p: values(['0', '1']), expected: [] },
    { name: 'NULL = NULL is not true', condition: { kind: 'const-equal', left: 0, right: 1 }, p: values([null, null]), expected: [] },
    { name: 'and: intersection', condition: { kind: 'and', terms: [v(0), v(1)] }, p: values([1, 5]), expected: [1] },
    { name: 'and with any: the other term', condition: { kind: 'and', terms: [{ kind: 'any' }, v(0)] }, p: values([3]), expected: [3] },
    { name: 'or: union', condition: { kind: 'or', terms: [v(0), v(1)] }, p: values([1, 2]), expected: [1, 2] },
    { name: 'or with any: all', condition: { kind: 'or', terms: [v(0), { kind: 'any' }] }, p: values([1]), expected: 'all' },
    {
      name: 'nested: (a OR b) AND c',
      condition: { kind: 'and', terms: [{ kind: 'or', terms: [v(0), v(1)] }, v(2)] },
      p: values([1, 2, 6]),
      expected: [2],
    },
  ];
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const result = shardsOf(c.condition, c.p, key);
    expect(result === 'all' ? 'all' : [...result].sort()).toEqual(c.expected);
  });

  // Regression (fixed): `:pA = :pB` between two constants is decided by comparing their text, but SQL
  // compares values: `1 = 1.0` is true on SQLite and MySQL, and so are MySQL's `'a' = 'A'`
  // (case-insensitive collation) and `TRUE = 1`. The statement is then sent nowhere and
  // returns no rows where one database returns them all. Only "certainly different"
  // constants may prune; anything else must stay `all`.
  it.each([
    ['1 = 1.0 (SQLite, inline literals)', 'sqlite', 'SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE 1 = 1.0', []],
    ['? = ? with 1 and "1.0" (MySQL)', 'mysql', 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ? = ?', [1, '1.0']],
    ["'a' = 'A' (MySQL, case-insensitive collation)", 'mysql', "SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE 'a' = 'A'", []],
  ] as const)('a constant comparison the database finds true is not routed nowhere: %s', (_name, dialect, sql, parameters) => {
    expect(describeRoute(route(sql, parameters, dialect).route)).toEqual(['s0', 's1', 's2', 's3']);
  });
});
