import { describe, expect, it } from 'vitest';
import { parameterize } from '../../parameterize/index.js';
import { analyze } from '../../plan/analyze.js';
import { fakeRules } from '../../plan/testing/fake-rules.js';
import { NO_HINTS, hintNames, hintSet } from '../../router/hints/hint.js';
import type { StatementDescriptor } from '../../router/statement.js';
import { describeShape } from './statement-shape.js';
import { StatementRouting } from './statement-routing.js';

const rules = fakeRules();
const shapeOf = (sql: string, parameters: unknown[] = []) => {
  const p = parameterize(sql, parameters, 'mysql');
  return describeShape(p, analyze(p, rules, 'mysql'));
};

type Facts = Pick<StatementDescriptor, 'kind' | 'locking' | 'readsSessionState' | 'hasAggregates' | 'hasGroupBy' | 'fullScan'>;
const read: Facts = { kind: 'select', locking: 'none', readsSessionState: false, hasAggregates: false, hasGroupBy: false, fullScan: false };

// SQL as TypeORM (or a user) sends it → what the router is told of its shape.
const CASES: [string, string, unknown[], Partial<Facts>][] = [
  ['a point read', 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`id` = ?', [1], {}],
  ['a read by another column: every shard', 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`buyerId` = ?', [1], { fullScan: true }],
  ['an IN on the key', 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`id` IN (?, ?)', [1, 2], {}],
  ['a key OR another column', 'SELECT `id` FROM `orders` WHERE `id` = ? OR `buyerId` = ?', [1, 2], { fullScan: true }],
  ['a COUNT over every shard', 'SELECT COUNT(*) AS `cnt` FROM `orders` `o`', [], { hasAggregates: true, fullScan: true }],
  ['a GROUP BY', 'SELECT `buyerId`, SUM(`id`) AS `s` FROM `orders` GROUP BY `buyerId`', [], { hasAggregates: true, hasGroupBy: true, fullScan: true }],
  ['FOR UPDATE', 'SELECT `id` FROM `orders` WHERE `id` = ? FOR UPDATE', [1], { locking: 'for-update' }],
  ['LOCK IN SHARE MODE', 'SELECT `id` FROM `orders` WHERE `id` = ? LOCK IN SHARE MODE', [1], { locking: 'for-share' }],
  ['FOR SHARE (MySQL 8) on an unsharded table', 'SELECT `id` FROM `users` WHERE `id` = ? FOR SHARE', [1], { locking: 'for-share' }],
  ['LAST_INSERT_ID()', 'SELECT LAST_INSERT_ID() AS `id`', [], { readsSessionState: true }],
  ['an unsharded table', 'SELECT `id` FROM `users` WHERE `id` = ?', [1], {}],
  ['a string that looks like a lock', "SELECT `id` FROM `orders` WHERE `note` = 'FOR UPDATE'", [], { fullScan: true }],
  ['SELECT … INTO a variable', 'SELECT `id` INTO @x FROM `users` WHERE `id` = ?', [1], { kind: 'other' }],
  ['an INSERT', 'INSERT INTO `orders`(`id`, `buyerId`) VALUES (?, ?)', [1, 2], { kind: 'insert' }],
  ['a REPLACE', 'REPLACE INTO `users`(`id`) VALUES (?)', [1], { kind: 'insert' }],
  ['an UPDATE', 'UPDATE `orders` SET `buyerId` = ? WHERE `id` = ?', [1, 2], { kind: 'update' }],
  ['a DELETE', 'DELETE FROM `orders` WHERE `id` = ?', [1], { kind: 'delete' }],
  ['DDL', 'ALTER TABLE `orders` ADD `x` int', [], { kind: 'ddl' }],
  ['START TRANSACTION', 'START TRANSACTION', [], { kind: 'transaction' }],
  ['SHOW', 'SHOW TABLES', [], { kind: 'other' }],
];

describe('the router descriptor of a statement shape', () => {
  it.each(CASES)('%s', (_, sql, parameters, expected) => {
    const { shapeKey, ...facts } = shapeOf(sql, parameters);
    expect(facts).toEqual({ ...read, ...expected });
    expect(shapeKey).toBe(parameterize(sql, parameters, 'mysql').key);
  });

  it('is computed once per plan; hints come from each text, the shard count from the statements', () => {
    const p = parameterize('/* FORCE_MASTER */ SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`id` = ?', [1], 'mysql');
    const plan = analyze(p, rules, 'mysql');
    const texts: string[] = [];
    const routing = new StatementRouting((sql) => {
      texts.push(sql);
      return sql.startsWith('/* FORCE_MASTER */') ? hintSet(['FORCE_MASTER']) : NO_HINTS;
    });
    const statements = [
      { shard: 0, sql: 'a', parameters: [] },
      { shard: 0, sql: 'b', parameters: [] },
      { shard: 2, sql: 'c', parameters: [], branches: [{ shard: 2, sql: 'c2', parameters: [] }, { shard: 3, sql: 'c3', parameters: [] }] },
    ];
    const routed = routing.attach(statements, p, plan);
    expect(routed.map((s) => s.route?.shardCount)).toEqual([3, 3, 3]);
    expect(hintNames(routed[0]!.route!.hints!)).toEqual(['FORCE_MASTER']);
    expect(routed[2]!.branches!.every((b) => b.route === routed[2]!.route)).toBe(true);
    const again = routing.attach(statements.slice(0, 1), parameterize('SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`id` = ?', [5], 'mysql'), plan);
    expect(again[0]!.route).toMatchObject({ shardCount: 1, hints: NO_HINTS, kind: 'select', shapeKey: routed[0]!.route!.shapeKey });
    expect(texts).toHaveLength(2);
  });
});
