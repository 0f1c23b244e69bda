import { describe, expect, it } from 'vitest';
import { parameterize } from '../parameterize/index.js';
import { withoutDatabase } from './address-shard.js';
import { forDatabase, qualifiedTemplate } from './qualified-template.js';

const isTable = (name: string) => ['orders', 'order_items'].includes(name.toLowerCase());
type Shape = Parameters<typeof qualifiedTemplate>[1];

/** The statement for database `shard_3` from its template, or undefined when it has none. */
function qualified(sql: string, parameters: unknown[], shape: Shape): string | undefined {
  const template = qualifiedTemplate(parameterize(sql, parameters, 'mysql'), shape, isTable);
  return template && forDatabase(template.p.sql, 'shard_3');
}

describe('qualifiedTemplate', () => {
  it.each([
    ['a SELECT whose table references are all known', 'SELECT o.id FROM `orders` o JOIN order_items i ON i.orderId = o.id WHERE o.id IN (?, ?)', { kind: 'select', references: 2 }, 'SELECT o.id FROM `shard_3`.`orders` o JOIN `shard_3`.order_items i ON i.orderId = o.id WHERE o.id IN (?, ?)'],
    ['INSERT INTO t', 'INSERT INTO `orders`(`id`) VALUES (?)', { kind: 'write' }, 'INSERT INTO `shard_3`.`orders`(`id`) VALUES (?)'],
    ['INSERT IGNORE … ON DUPLICATE KEY UPDATE', 'INSERT IGNORE INTO orders (id) VALUES (1) ON DUPLICATE KEY UPDATE id = id', { kind: 'write' }, 'INSERT IGNORE INTO `shard_3`.orders (id) VALUES (1) ON DUPLICATE KEY UPDATE id = id'],
    ['UPDATE t SET', 'UPDATE `orders` SET `note` = ? WHERE `id` IN (?, ?)', { kind: 'write' }, 'UPDATE `shard_3`.`orders` SET `note` = ? WHERE `id` IN (?, ?)'],
    ['DELETE FROM t', 'DELETE FROM `orders` WHERE `id` = ?', { kind: 'write' }, 'DELETE FROM `shard_3`.`orders` WHERE `id` = ?'],
  ] as const)('qualifies %s (and removing the prefix gives the text back)', (_label, sql, shape, expected) => {
    const out = qualified(sql, Array.from({ length: sql.split('?').length - 1 }, (_, i) => i), shape);
    expect(out).toBe(expected);
    expect(withoutDatabase(out!, 'shard_3')).toBe(sql);
  });

  it('moves the value slots and IN lists with the text it inserts', () => {
    const p = parameterize('SELECT o.id FROM orders o WHERE o.note = ? AND o.id IN (?, ?, ?) LIMIT 5', ['x', 1, 2, 3], 'mysql');
    const template = qualifiedTemplate(p, { kind: 'select', references: 1 }, isTable)!;
    const q = template.p;
    for (const slot of q.slots) expect(q.sql.slice(slot.start, slot.end)).toBe(p.sql.slice(p.slots[q.slots.indexOf(slot)]!.start, p.slots[q.slots.indexOf(slot)]!.end));
    const list = q.inLists[0]!;
    expect(q.sql.slice(list.open, list.close + 1)).toBe('(?, ?, ?)');
    expect(list.items.map((i) => q.sql.slice(i.start, i.end))).toEqual(['?', '?', '?']);
    // Made once per parameterized statement.
    expect(qualifiedTemplate(p, { kind: 'select', references: 1 }, isTable)).toBe(template);
  });

  it.each([
    ['a SELECT with a table the planner counted but did not find', 'SELECT id FROM orders, audit_log', { kind: 'select', references: 2 }],
    ['a WITH clause (its names are no tables)', 'WITH x AS (SELECT id FROM orders) SELECT id FROM x', { kind: 'select', references: 1 }],
    ['an UPDATE with a subquery', 'UPDATE orders SET note = 1 WHERE id IN (SELECT orderId FROM order_items)', { kind: 'write' }],
    ['a multi-table UPDATE', 'UPDATE orders o JOIN order_items i ON i.orderId = o.id SET o.note = 1', { kind: 'write' }],
    ['INSERT … SELECT', 'INSERT INTO orders (id) SELECT orderId FROM order_items', { kind: 'write' }],
    ['a write to an unknown table', 'INSERT INTO audit_log (id) VALUES (1)', { kind: 'write' }],
  ] as const)('has no template for %s (it runs with the shard as default database)', (_label, sql, shape) => {
    expect(qualified(sql, [], shape)).toBeUndefined();
  });
});
