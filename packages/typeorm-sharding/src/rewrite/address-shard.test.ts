import { describe, expect, it } from 'vitest';
import { addressShard, withoutDatabase, type TableShape } from './address-shard.js';

const isTable = (name: string) => ['orders', 'order_items'].includes(name.toLowerCase());
const address = (sql: string, shape: TableShape) => addressShard({ shard: 0, sql, parameters: [] }, 'shard_3', shape, isTable);

describe('addressShard', () => {
  it.each([
    ['a SELECT whose table references are all known', 'SELECT o.id FROM `orders` o JOIN order_items i ON i.orderId = o.id', { kind: 'select', references: 2 }, 'SELECT o.id FROM `shard_3`.`orders` o JOIN `shard_3`.order_items i ON i.orderId = o.id'],
    ['INSERT INTO t', 'INSERT INTO `orders`(`id`) VALUES (?)', { kind: 'write' }, 'INSERT INTO `shard_3`.`orders`(`id`) VALUES (?)'],
    ['INSERT IGNORE … ON DUPLICATE KEY UPDATE', 'INSERT IGNORE INTO orders (id) VALUES (1) ON DUPLICATE KEY UPDATE id = id', { kind: 'write' }, 'INSERT IGNORE INTO `shard_3`.orders (id) VALUES (1) ON DUPLICATE KEY UPDATE id = id'],
    ['UPDATE t SET', 'UPDATE `orders` SET `note` = ? WHERE `id` IN (?, ?)', { kind: 'write' }, 'UPDATE `shard_3`.`orders` SET `note` = ? WHERE `id` IN (?, ?)'],
    ['DELETE FROM t', 'DELETE FROM `orders` WHERE `id` = ?', { kind: 'write' }, 'DELETE FROM `shard_3`.`orders` WHERE `id` = ?'],
  ] as const)('qualifies %s', (_label, sql, shape, expected) => {
    const out = address(sql, shape);
    expect(out).toMatchObject({ sql: expected, qualified: true });
    expect(withoutDatabase(out.sql, 'shard_3')).toBe(sql);
  });

  it.each([
    ['a SELECT with a table the planner counted but did not find', 'SELECT id FROM orders, audit_log', { kind: 'select', references: 2 }],
    ['a WITH clause (its names are no tables)', 'WITH x AS (SELECT id FROM orders) SELECT id FROM x', { kind: 'select', references: 1 }],
    ['an UPDATE with a subquery', 'UPDATE orders SET note = 1 WHERE id IN (SELECT orderId FROM order_items)', { kind: 'write' }],
    ['a multi-table UPDATE', 'UPDATE orders o JOIN order_items i ON i.orderId = o.id SET o.note = 1', { kind: 'write' }],
    ['INSERT … SELECT', 'INSERT INTO orders (id) SELECT orderId FROM order_items', { kind: 'write' }],
    ['a write to an unknown table', 'INSERT INTO audit_log (id) VALUES (1)', { kind: 'write' }],
    ['DDL', 'CREATE INDEX i ON orders (note)', { kind: 'other' }],
  ] as const)('leaves %s unqualified (it runs with the shard as default database)', (_label, sql, shape) => {
    expect(address(sql, shape)).toEqual({ shard: 0, sql, parameters: [] });
  });
});
