import { describe, expect, it } from 'vitest';
import { parameterize } from '../parameterize/index.js';
import { analyze } from '../plan/analyze.js';
import { fakeRules, SHOP_TABLES, type FakeTable } from '../plan/testing/fake-rules.js';
import { insertRowsOf } from '../write/insert-rows.js';
import { routeInsert } from '../write/route-insert.js';
import { routeByKey } from './route.js';
import type { Route, RouteSettings } from './route-types.js';

// orders: mod over 4 shards, 2 tables per shard (shard = id % 4, table = floor(id / 4) % 2);
// codes: hash of a string key, 4 tables per shard.
const TABLES: FakeTable[] = SHOP_TABLES.map((t) =>
  t.table === 'orders' ? { ...t, key: { ...t.key!, tables: 2 } } : t.table === 'codes' ? { ...t, key: { ...t.key!, tables: 4 } } : t,
);
const rules = fakeRules(TABLES);
const DEFAULTS: RouteSettings = { pruning: true, maxInValuesPerQuery: 256 };

function route(sql: string, parameters: readonly unknown[], settings: Partial<RouteSettings> = {}): string | string[] {
  const p = parameterize(sql, parameters, 'mysql');
  const plan = analyze(p, rules, 'mysql');
  if (plan.kind !== 'select' && plan.kind !== 'write') throw new Error(`not routed: ${plan.kind}`);
  const r: Route = routeByKey(plan.condition, plan.prunableLists, p, rules.ruleOf(plan.table)!.shardKey!, 4, { ...DEFAULTS, ...settings });
  if (r.kind === 'nowhere') return 'nowhere';
  return r.units.map((u) => [`s${u.shard}/t${u.table}`, ...[...u.lists].map(([l, items]) => `l${l}=(${items.map((i) => String(i.value)).join(',')})`)].join(' '));
}

const FIND = (n: number) => `SELECT \`o\`.\`id\` FROM \`orders\` \`o\` WHERE \`o\`.\`id\` IN (${Array(n).fill('?').join(', ')})`;

const CASES: readonly { name: string; sql: string; parameters?: unknown[]; settings?: Partial<RouteSettings>; expected: string | string[] }[] = [
  {
    name: 'the article ids: each table of each shard gets its own values, in partition order',
    sql: FIND(5),
    parameters: [1, 2, 4, 5, 9],
    expected: ['s0/t1 l0=(4)', 's1/t0 l0=(1,9)', 's1/t1 l0=(5)', 's2/t0 l0=(2)'],
  },
  { name: 'one key: one table of one shard', sql: 'SELECT id FROM orders WHERE id = ?', parameters: [5], expected: ['s1/t1'] },
  { name: 'ORs of equalities', sql: 'SELECT id FROM orders WHERE id = ? OR id = ?', parameters: [3, 7], expected: ['s3/t0', 's3/t1'] },
  {
    name: 'no key condition: every table of every shard',
    sql: 'SELECT id FROM orders WHERE buyerId = ?',
    parameters: [1],
    expected: ['s0/t0', 's0/t1', 's1/t0', 's1/t1', 's2/t0', 's2/t1', 's3/t0', 's3/t1'],
  },
  { name: 'batches are per table', sql: FIND(3), parameters: [1, 9, 17], settings: { maxInValuesPerQuery: 2 }, expected: ['s1/t0 l0=(1,9)', 's1/t0 l0=(17)'] },
  {
    name: 'pruning off: every table gets the whole list',
    sql: FIND(2),
    parameters: [1, 5],
    settings: { pruning: false },
    expected: ['s0/t0', 's0/t1', 's1/t0', 's1/t1', 's2/t0', 's2/t1', 's3/t0', 's3/t1'],
  },
  { name: 'a value that names no one key reaches every table', sql: 'SELECT id FROM orders WHERE id IN (?, ?)', parameters: [5, 2.5], expected: ['s0/t0 l0=(2.5)', 's0/t1 l0=(2.5)', 's1/t0 l0=(2.5)', 's1/t1 l0=(5,2.5)', 's2/t0 l0=(2.5)', 's2/t1 l0=(2.5)', 's3/t0 l0=(2.5)', 's3/t1 l0=(2.5)'] },
  { name: 'an empty list reaches nothing', sql: 'SELECT id FROM orders WHERE id IN (?) AND id IN (?)', parameters: [1, 2], expected: 'nowhere' },
  // 'abc' (bucket 450) → shard 1, table 450 % 4 = 2 (golden vectors).
  { name: 'hash: bucket % tables', sql: 'SELECT code FROM codes WHERE code = ?', parameters: ['abc'], expected: ['s1/t2'] },
  { name: 'UPDATE … WHERE key IN', sql: 'UPDATE orders SET note = ? WHERE id IN (?, ?, ?)', parameters: ['x', 4, 12, 8], expected: ['s0/t0 l0=(8)', 's0/t1 l0=(4,12)'] },
];

describe('routing a table-per-shard layout', () => {
  it.each(CASES)('$name', (c) => {
    expect(route(c.sql, c.parameters ?? [], c.settings)).toEqual(c.expected);
  });

  it('splits an INSERT by shard and table, every row checked first', () => {
    const p = parameterize('INSERT INTO orders (id, buyerId) VALUES (1, 1), (5, 2), (9, 3), (2, 4), (13, 5)', [], 'mysql');
    const units = routeInsert(p, insertRowsOf(p, 'mysql'), 0, rules.ruleOf('orders')!.shardKey!, 'orders');
    expect(units).toEqual([
      { shard: 1, table: 0, rows: [0, 2] },
      { shard: 1, table: 1, rows: [1, 4] },
      { shard: 2, table: 0, rows: [3] },
    ]);
  });

  it('without a layout a unit names no table', () => {
    const p = parameterize('SELECT id FROM order_items WHERE orderId = ?', [5], 'mysql');
    const plan = analyze(p, rules, 'mysql');
    if (plan.kind !== 'select') throw new Error(plan.kind);
    const r = routeByKey(plan.condition, plan.prunableLists, p, rules.ruleOf('order_items')!.shardKey!, 4, DEFAULTS);
    expect(r.kind === 'units' && r.units.map((u) => ({ shard: u.shard, table: u.table }))).toEqual([{ shard: 1, table: undefined }]);
  });
});
