import { describe, expect, it } from 'vitest';
import { parameterize } from '../../parameterize/index.js';
import { analyze } from '../analyze.js';
import { mysqlWeightKey } from '../typing/column-order.js';
import type { SelectPlan } from '../plan.js';
import { fakeRules } from '../testing/fake-rules.js';

// How the planner applies column orders (column-order.ts) to ORDER BY, GROUP BY, DISTINCT
// and MIN/MAX of a scattered MySQL SELECT.
const rules = fakeRules([
  {
    table: 'items',
    distribution: 'sharded',
    columns: { id: 'bigint', status: 'enum', name: 'varchar', at: 'datetime', n: 'int', shape: 'point' },
    key: { column: 'id' },
  },
]);

function plan(sql: string): SelectPlan {
  const p = analyze(parameterize(sql, [], 'mysql'), rules, 'mysql');
  if (p.kind !== 'select') throw new Error(`not a SELECT plan: ${p.kind}`);
  return p;
}

describe('column orders in the plan (MySQL)', () => {
  it('ORDER BY an ENUM: by the derived declaration position, not the label', () => {
    const p = plan('SELECT `i`.`id` AS `id`, `i`.`status` AS `s` FROM `items` `i` ORDER BY `i`.`status` DESC LIMIT 40');
    expect(p.derivedColumns).toEqual([{ expression: '(`i`.`status` + 0)', alias: '__shard_key_0', slots: [] }]);
    expect(p.merge).toEqual({
      kind: 'ordered',
      orderBy: [{ column: '__shard_key_0', direction: 'DESC', type: 'numeric', collation: 'binary' }],
      strip: ['__shard_key_0'],
    });
  });

  it('GROUP BY status ORDER BY status: one derived key groups and orders, so groups stream from the merge sort', () => {
    const p = plan('SELECT `i`.`status` AS `s`, COUNT(*) AS `c` FROM `items` `i` GROUP BY `i`.`status` ORDER BY `i`.`status` ASC');
    expect(p.derivedColumns).toEqual([{ expression: '(`i`.`status` + 0)', alias: '__shard_key_0', slots: [] }]);
    expect(p.merge).toMatchObject({
      orderBy: [{ column: '__shard_key_0', direction: 'ASC', type: 'numeric' }],
      groupBy: [{ column: '__shard_key_0', collation: 'binary' }],
    });
  });

  it('GROUP BY a column that is not selected: its key is selected for the merge', () => {
    const p = plan('SELECT COUNT(*) AS `c` FROM `items` `i` GROUP BY `i`.`n`');
    expect(p.unmergeable).toBeUndefined();
    expect(p.derivedColumns).toEqual([{ expression: '`i`.`n`', alias: '__shard_group_0', slots: [] }]);
    expect(p.merge).toMatchObject({ groupBy: [{ column: '__shard_group_0', collation: 'binary' }] });
  });

  it('MIN/MAX of text: each shard\'s value travels with the weight key of that value', () => {
    const p = plan('SELECT MIN(`i`.`name`) AS `lo`, MAX(`i`.`at`) AS `hi` FROM `items` `i`');
    expect(p.derivedColumns).toEqual([
      { expression: mysqlWeightKey('MIN(`i`.`name`)'), alias: '__shard_extreme_0', slots: [] },
      { expression: 'MAX((`i`.`at` + 0))', alias: '__shard_extreme_1', slots: [] },
    ]);
    expect(p.merge).toMatchObject({
      aggregates: [
        { alias: 'lo', fn: 'MIN', type: 'mysql-weight', collation: 'binary', keyColumn: '__shard_extreme_0' },
        { alias: 'hi', fn: 'MAX', type: 'numeric', collation: 'binary', keyColumn: '__shard_extreme_1' },
      ],
    });
  });

  it('ORDER BY the alias of MAX(text): by the merged aggregate\'s key column, selected or not', () => {
    const p = plan('SELECT `i`.`n` AS `g`, MAX(`i`.`name`) AS `m` FROM `items` `i` GROUP BY `i`.`n` ORDER BY `m` DESC');
    expect(p.derivedColumns).toEqual([{ expression: mysqlWeightKey('MAX(`i`.`name`)'), alias: '__shard_extreme_0', slots: [] }]);
    expect(p.merge).toMatchObject({
      orderBy: [{ column: '__shard_extreme_0', direction: 'DESC', type: 'mysql-weight' }],
      aggregates: [{ alias: 'm', fn: 'MAX', keyColumn: '__shard_extreme_0' }],
    });
    // Not selected: the shards add the aggregate and its key, the merge keeps the winner's key to order by.
    const hidden = plan('SELECT `i`.`n` AS `g` FROM `items` `i` GROUP BY `i`.`n` ORDER BY MAX(`i`.`name`)');
    expect(hidden.unmergeable).toBeUndefined();
    expect(hidden.merge).toMatchObject({ orderBy: [{ column: '__shard_extreme_1', type: 'mysql-weight' }], aggregates: [{ alias: '__shard_agg_0', fn: 'MAX', keyColumn: '__shard_extreme_1' }] });
  });

  it('ORDER BY the alias of SUM: numbers (MySQL returns DECIMAL sums as strings)', () => {
    const p = plan('SELECT `i`.`n` AS `g`, SUM(`i`.`n`) AS `s` FROM `items` `i` GROUP BY `i`.`n` ORDER BY `s` DESC');
    expect(p.merge).toMatchObject({ orderBy: [{ column: 's', direction: 'DESC', type: 'numeric' }] });
  });

  it('DISTINCT over shards: rows are the same when their keys are (text by weight, numbers by value)', () => {
    const p = plan('SELECT DISTINCT `i`.`name` AS `v`, `i`.`n` AS `n` FROM `items` `i` ORDER BY `i`.`name`');
    expect(p.derivedColumns).toEqual([{ expression: mysqlWeightKey('`i`.`name`'), alias: '__shard_key_0', slots: [] }]);
    expect(p.merge).toMatchObject({
      distinct: { columns: [{ column: '__shard_key_0', collation: 'binary' }, { column: 'n', collation: 'binary' }] },
    });
  });

  it('a spatial column cannot be merged: the plan says why (refused only when several shards answer)', () => {
    for (const sql of [
      'SELECT `i`.`id` AS `id` FROM `items` `i` ORDER BY `i`.`shape` LIMIT 3',
      'SELECT `i`.`shape` AS `v`, COUNT(*) AS `c` FROM `items` `i` GROUP BY `i`.`shape`',
      'SELECT MIN(`i`.`shape`) AS `v` FROM `items` `i`',
    ]) {
      expect(plan(sql).unmergeable, sql).toMatch(/column "shape": spatial values have no order/);
    }
  });
});
