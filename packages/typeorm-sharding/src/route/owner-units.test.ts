import { describe, expect, it } from 'vitest';
import { ShardingInternalError } from '../errors/index.js';
import { parameterize } from '../parameterize/index.js';
import { analyze } from '../plan/analyze.js';
import { fakeRules, SHOP_TABLES, type FakeTable } from '../plan/testing/fake-rules.js';
import { ownerRoute } from './owner-units.js';
import { routeByKey } from './route.js';
import type { Route } from './route-types.js';

// orders: mod over 4 shards; with a layout, 2 tables per shard.
const LAYOUT: FakeTable[] = SHOP_TABLES.map((t) => (t.table === 'orders' ? { ...t, key: { ...t.key!, tables: 2 } } : t));
const SETTINGS = { pruning: true, maxInValuesPerQuery: 256 };

function both(tables: readonly FakeTable[], sql: string, parameters: unknown[], shards: number[]): { owners: Route | undefined; cut: Route } {
  const rules = fakeRules(tables);
  const p = parameterize(sql, parameters, 'mysql');
  const plan = analyze(p, rules, 'mysql');
  if (plan.kind !== 'select') throw new Error(`not a select: ${plan.kind}`);
  const key = rules.ruleOf(plan.table)!.shardKey!;
  const only = new Set(shards);
  const owners = ownerRoute(only, plan.condition, plan.prunableLists, plan.prunableOrs, key, 4);
  const all = routeByKey(plan.condition, plan.prunableLists, p, key, 4, SETTINGS, plan.prunableOrs);
  const kept = all.kind === 'units' ? all.units.filter((u) => only.has(u.shard)) : [];
  return { owners, cut: kept.length === 0 ? { kind: 'nowhere' } : { kind: 'units', units: kept } };
}

const BY_NOTE = 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`note` = ?';

describe('ownerRoute', () => {
  it.each([
    ['one owner shard', SHOP_TABLES, [2]],
    ['several, given out of order', SHOP_TABLES, [3, 0, 2]],
    ['every table of the owner shards under a layout', LAYOUT, [1, 3]],
    ['no owner: nowhere', SHOP_TABLES, []],
  ] as const)('gives the units routeByKey gives, cut to the owners: %s', (_, tables, shards) => {
    const { owners, cut } = both(tables, BY_NOTE, ['x'], [...shards]);
    expect(owners).toEqual(cut);
  });

  it('leaves a statement that routes by its shard key too to routeByKey', () => {
    expect(both(SHOP_TABLES, 'SELECT id FROM orders WHERE note = ? AND id IN (?, ?)', ['x', 1, 2], [1]).owners).toBeUndefined();
    expect(both(SHOP_TABLES, 'SELECT id FROM orders WHERE note = ? AND id = ?', ['x', 1], [1]).owners).toBeUndefined();
  });

  it('refuses an owner shard outside the topology as a bug, not a shard to skip', () => {
    expect(() => both(SHOP_TABLES, BY_NOTE, ['x'], [9])).toThrow(ShardingInternalError);
  });
});
