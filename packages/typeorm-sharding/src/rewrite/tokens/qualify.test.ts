import { describe, expect, it } from 'vitest';
import { lexedOf, parameterize } from '../../parameterize/index.js';
import { withoutDatabase } from '../address-shard.js';
import { applyTokens } from '../sql-token.js';
import { tablePositions } from '../table-sites.js';
import { QualificationSites, qualifyTokens, type AddressShape } from './qualify.js';

const isTable = (name: string) => ['orders', 'order_items', 'regions'].includes(name.toLowerCase());

/** The statement for database `shard_3`, or undefined when its tables cannot all be qualified. */
function qualified(sql: string, shape: AddressShape): string | undefined {
  const p = parameterize(sql, Array.from({ length: sql.split('?').length - 1 }, (_, i) => i), 'mysql');
  const sites = new QualificationSites(isTable).of(p, shape);
  return sites && applyTokens(p, qualifyTokens(sites, 'shard_3')).sql;
}

describe('qualification', () => {
  it.each([
    ['a SELECT whose table references are all known', 'SELECT o.id FROM `orders` o JOIN order_items i ON i.orderId = o.id WHERE o.id IN (?, ?)', { kind: 'select', references: 2 }, 'SELECT o.id FROM `shard_3`.`orders` o JOIN `shard_3`.order_items i ON i.orderId = o.id WHERE o.id IN (?, ?)'],
    ['a comma join after a JOIN', 'SELECT 1 FROM orders o JOIN regions r ON r.id = o.regionId, order_items i WHERE 1', { kind: 'select', references: 3 }, 'SELECT 1 FROM `shard_3`.orders o JOIN `shard_3`.regions r ON r.id = o.regionId, `shard_3`.order_items i WHERE 1'],
    ['a derived table', 'SELECT x.id FROM (SELECT id FROM orders, regions) x, order_items', { kind: 'select', references: 3 }, 'SELECT x.id FROM (SELECT id FROM `shard_3`.orders, `shard_3`.regions) x, `shard_3`.order_items'],
    ['commas of the select list and of functions are no tables', 'SELECT id, COALESCE(a, b) FROM orders WHERE id IN (1, 2)', { kind: 'select', references: 1 }, 'SELECT id, COALESCE(a, b) FROM `shard_3`.orders WHERE id IN (1, 2)'],
    ['a table keeps its spelling', 'SELECT 1 FROM Orders', { kind: 'select', references: 1 }, 'SELECT 1 FROM `shard_3`.Orders'],
    ['a parenthesised join (its first table too), and a derived table joined after it', 'SELECT 1 FROM orders o LEFT JOIN (order_items i INNER JOIN regions r ON r.id = i.regionId) ON i.orderId = o.id JOIN (SELECT id FROM regions) x ON x.id = o.regionId', { kind: 'select', references: 4 }, 'SELECT 1 FROM `shard_3`.orders o LEFT JOIN (`shard_3`.order_items i INNER JOIN `shard_3`.regions r ON r.id = i.regionId) ON i.orderId = o.id JOIN (SELECT id FROM `shard_3`.regions) x ON x.id = o.regionId'],
    ['INSERT INTO t', 'INSERT INTO `orders`(`id`) VALUES (?)', { kind: 'write' }, 'INSERT INTO `shard_3`.`orders`(`id`) VALUES (?)'],
    ['INSERT IGNORE … ON DUPLICATE KEY UPDATE', 'INSERT IGNORE INTO orders (id) VALUES (1) ON DUPLICATE KEY UPDATE id = id', { kind: 'write' }, 'INSERT IGNORE INTO `shard_3`.orders (id) VALUES (1) ON DUPLICATE KEY UPDATE id = id'],
    ['UPDATE t SET', 'UPDATE `orders` SET `note` = ? WHERE `id` IN (?, ?)', { kind: 'write' }, 'UPDATE `shard_3`.`orders` SET `note` = ? WHERE `id` IN (?, ?)'],
    ['DELETE FROM t', 'DELETE FROM `orders` WHERE `id` = ?', { kind: 'write' }, 'DELETE FROM `shard_3`.`orders` WHERE `id` = ?'],
  ] as const)('qualifies %s (and removing the prefix gives the text back)', (_label, sql, shape, expected) => {
    const out = qualified(sql, shape);
    expect(out).toBe(expected);
    expect(withoutDatabase(out!, 'shard_3')).toBe(sql);
  });

  it.each([
    ['a SELECT with a table the planner counted but did not find', 'SELECT id FROM orders, audit_log', { kind: 'select', references: 2 }],
    ['a table qualified already', 'SELECT 1 FROM other.orders', { kind: 'select', references: 1 }],
    ['a WITH clause (its names are no tables)', 'WITH x AS (SELECT id FROM orders) SELECT id FROM x', { kind: 'select', references: 1 }],
    ['an UPDATE with a subquery', 'UPDATE orders SET note = 1 WHERE id IN (SELECT orderId FROM order_items)', { kind: 'write' }],
    ['a multi-table UPDATE', 'UPDATE orders o JOIN order_items i ON i.orderId = o.id SET o.note = 1', { kind: 'write' }],
    ['INSERT … SELECT', 'INSERT INTO orders (id) SELECT orderId FROM order_items', { kind: 'write' }],
    ['a write to an unknown table', 'INSERT INTO audit_log (id) VALUES (1)', { kind: 'write' }],
  ] as const)('leaves %s unqualified (it runs with the shard as default database)', (_label, sql, shape) => {
    expect(qualified(sql, shape)).toBeUndefined();
  });

  it('finds the sites once per text: every binding of a cached text shares them', () => {
    const sites = new QualificationSites(isTable);
    const first = parameterize('SELECT o.id FROM orders o WHERE o.id IN (?, ?)', [1, 2], 'mysql');
    // A second binding of the same text (as the text cache makes it) shares the first one's memo.
    const second = Object.assign(Object.create(first) as typeof first, { parameters: [3, 4] });
    expect(sites.of(second, { kind: 'select', references: 1 })).toBe(sites.of(first, { kind: 'select', references: 1 }));
    expect(tablePositions(first.sql, lexedOf(first, 'mysql'), isTable).positions).toEqual([17]);
  });
});
