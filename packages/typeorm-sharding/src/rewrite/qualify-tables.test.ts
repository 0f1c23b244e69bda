import { describe, expect, it } from 'vitest';
import { qualifyTables } from './qualify-tables.js';

const isTable = (name: string) => ['orders', 'order_items', 'regions'].includes(name.toLowerCase());

describe('qualifyTables', () => {
  it.each([
    ['FROM and JOIN', 'SELECT o.id FROM `orders` `o` LEFT JOIN `order_items` `i` ON `i`.`orderId` = `o`.`id`', 'SELECT o.id FROM `db`.`orders` `o` LEFT JOIN `db`.`order_items` `i` ON `i`.`orderId` = `o`.`id`', 2],
    ['a comma join', 'SELECT o.id FROM orders o, order_items i WHERE i.orderId = o.id', 'SELECT o.id FROM `db`.orders o, `db`.order_items i WHERE i.orderId = o.id', 2],
    ['a comma join after a JOIN', 'SELECT 1 FROM orders o JOIN regions r ON r.id = o.regionId, order_items i WHERE 1', 'SELECT 1 FROM `db`.orders o JOIN `db`.regions r ON r.id = o.regionId, `db`.order_items i WHERE 1', 3],
    ['commas of the select list and of functions are not tables', 'SELECT id, COALESCE(a, b) FROM orders WHERE id IN (1, 2)', 'SELECT id, COALESCE(a, b) FROM `db`.orders WHERE id IN (1, 2)', 1],
    ['a derived table', 'SELECT x.id FROM (SELECT id FROM orders, regions) x, order_items', 'SELECT x.id FROM (SELECT id FROM `db`.orders, `db`.regions) x, `db`.order_items', 3],
    ['already qualified', 'SELECT 1 FROM other.orders', 'SELECT 1 FROM other.orders', 0],
    ['a table keeps its spelling (removing the prefix gives the text back)', 'SELECT 1 FROM Orders', 'SELECT 1 FROM `db`.Orders', 1],
  ])('%s', (_label, sql, expected, count) => {
    expect(qualifyTables(sql, 'db', isTable)).toEqual({ sql: expected, qualified: count });
  });
});
