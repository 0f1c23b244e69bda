import { describe, expect, it } from 'vitest';
import { UnsupportedShardingError } from '../../errors/index.js';
import { parameterize, type SqlDialect } from '../../parameterize/index.js';
import { fakeRules, SHOP_TABLES, type FakeTable } from '../../plan/testing/fake-rules.js';
import { applyTokens } from '../sql-token.js';
import { LayoutNamings, tableNameTokens } from './table-names.js';

// orders and order_items have 4 tables per shard; customers 2; every other table none.
const TABLES: FakeTable[] = SHOP_TABLES.map((t) =>
  t.table === 'orders' || t.table === 'order_items' ? { ...t, key: { ...t.key!, tables: 4 } } : t.table === 'customers' ? { ...t, key: { ...t.key!, tables: 2 } } : t,
);
const rules = fakeRules(TABLES);

/** The statement as physical table 2 of its layout would be sent it; the input itself when it names no layout table. */
function forTable(sql: string, dialect: SqlDialect, table = 2): string {
  const p = parameterize(sql, Array.from({ length: sql.split('?').length - 1 }, () => 1), dialect);
  const naming = new LayoutNamings(dialect, (name) => rules.ruleOf(name)?.shardKey?.layout).of(p);
  return naming ? applyTokens(p, tableNameTokens(naming, table)).sql : sql;
}

const CASES: readonly [label: string, dialect: SqlDialect, sql: string, expected: string][] = [
  ['TypeORM\'s aliased FROM', 'mysql', 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` IN (?, ?)', 'SELECT `Order`.`id` AS `Order_id` FROM `orders_2` `Order` WHERE `Order`.`id` IN (?, ?)'],
  ['SQLite quoting', 'sqlite', 'SELECT "o"."id" FROM "orders" "o"', 'SELECT "o"."id" FROM "orders_2" "o"'],
  ['a bare name keeps its spelling', 'mysql', 'SELECT id FROM Orders WHERE id = 1', 'SELECT id FROM Orders_2 WHERE id = 1'],
  ['qualifiers of an unaliased table', 'mysql', 'SELECT orders.id, `orders`.`note` FROM orders WHERE orders.id = 1', 'SELECT orders_2.id, `orders_2`.`note` FROM orders_2 WHERE orders_2.id = 1'],
  ['a table aliased by its own name keeps its qualifiers', 'mysql', 'SELECT orders.id FROM orders orders', 'SELECT orders.id FROM orders_2 orders'],
  ['an alias named like a layout table is no table', 'mysql', 'SELECT orders.id FROM regions orders JOIN orders o ON o.regionId = orders.id', 'SELECT orders.id FROM regions orders JOIN orders_2 o ON o.regionId = orders.id'],
  ['a database in front of the table', 'mysql', 'SELECT shop.orders.id FROM shop.orders', 'SELECT shop.orders_2.id FROM shop.orders_2'],
  ['a column or database named like the table is no table', 'mysql', 'SELECT r.orders, orders FROM regions r JOIN orders.regions x ON x.id = r.id', 'SELECT r.orders, orders FROM regions r JOIN orders.regions x ON x.id = r.id'],
  ['binding tables of one layout, JOIN and comma join', 'mysql', 'SELECT o.id FROM orders o JOIN order_items i ON i.orderId = o.id, regions r', 'SELECT o.id FROM orders_2 o JOIN order_items_2 i ON i.orderId = o.id, regions r'],
  ['a comma join after a JOIN', 'mysql', 'SELECT 1 FROM regions r JOIN orders o ON o.regionId = r.id, order_items i', 'SELECT 1 FROM regions r JOIN orders_2 o ON o.regionId = r.id, order_items_2 i'],
  ['FROM subqueries and EXISTS', 'mysql', 'SELECT x.id FROM (SELECT id FROM orders) x WHERE EXISTS (SELECT 1 FROM order_items i WHERE i.orderId = x.id)', 'SELECT x.id FROM (SELECT id FROM orders_2) x WHERE EXISTS (SELECT 1 FROM order_items_2 i WHERE i.orderId = x.id)'],
  ['strings and comments are text', 'mysql', "SELECT 'orders' AS t /* orders */ FROM orders", "SELECT 'orders' AS t /* orders */ FROM orders_2"],
  ['INSERT', 'mysql', 'INSERT INTO `orders`(`id`, `buyerId`) VALUES (?, ?)', 'INSERT INTO `orders_2`(`id`, `buyerId`) VALUES (?, ?)'],
  ['INSERT IGNORE … ON DUPLICATE KEY UPDATE', 'mysql', 'INSERT IGNORE INTO orders (id) VALUES (1) ON DUPLICATE KEY UPDATE note = VALUES(note)', 'INSERT IGNORE INTO orders_2 (id) VALUES (1) ON DUPLICATE KEY UPDATE note = VALUES(note)'],
  ['UPDATE and DELETE', 'mysql', 'UPDATE LOW_PRIORITY orders SET note = ? WHERE orders.id = ?', 'UPDATE LOW_PRIORITY orders_2 SET note = ? WHERE orders_2.id = ?'],
  ['DELETE', 'sqlite', 'DELETE FROM "orders" WHERE "id" = ?', 'DELETE FROM "orders_2" WHERE "id" = ?'],
  ['CREATE TABLE with its indexes, keys and constraints (the primary key keeps its name)', 'mysql',
    'CREATE TABLE IF NOT EXISTS `orders` (`id` bigint NOT NULL, `b` int, INDEX `IDX_b` (`b`), UNIQUE INDEX `IDX_u` (`b`, `id`), KEY k1 (b), CONSTRAINT `PK_x` PRIMARY KEY (`id`), CONSTRAINT `FK_r` FOREIGN KEY (`b`) REFERENCES `regions` (`id`)) ENGINE=InnoDB',
    'CREATE TABLE IF NOT EXISTS `orders_2` (`id` bigint NOT NULL, `b` int, INDEX `IDX_b_2` (`b`), UNIQUE INDEX `IDX_u_2` (`b`, `id`), KEY k1_2 (b), CONSTRAINT `PK_x` PRIMARY KEY (`id`), CONSTRAINT `FK_r_2` FOREIGN KEY (`b`) REFERENCES `regions` (`id`)) ENGINE=InnoDB'],
  ['a foreign key between tables of one layout points to the table of the same index', 'mysql', 'ALTER TABLE `order_items` ADD CONSTRAINT `FK_o` FOREIGN KEY (`orderId`) REFERENCES `orders`(`id`) ON DELETE CASCADE', 'ALTER TABLE `order_items_2` ADD CONSTRAINT `FK_o_2` FOREIGN KEY (`orderId`) REFERENCES `orders_2`(`id`) ON DELETE CASCADE'],
  ['ALTER … DROP FOREIGN KEY / INDEX / CHECK, RENAME INDEX', 'mysql', 'ALTER TABLE orders DROP FOREIGN KEY FK_o, DROP INDEX IDX_b, DROP CHECK CHK_a, RENAME INDEX IDX_c TO IDX_d', 'ALTER TABLE orders_2 DROP FOREIGN KEY FK_o_2, DROP INDEX IDX_b_2, DROP CHECK CHK_a_2, RENAME INDEX IDX_c_2 TO IDX_d_2'],
  ['CREATE / DROP INDEX … ON', 'sqlite', 'CREATE UNIQUE INDEX IF NOT EXISTS "IDX_a" ON "orders" ("buyerId")', 'CREATE UNIQUE INDEX IF NOT EXISTS "IDX_a_2" ON "orders_2" ("buyerId")'],
  ['DROP INDEX … ON (MySQL)', 'mysql', 'DROP INDEX `IDX_a` ON `orders`', 'DROP INDEX `IDX_a_2` ON `orders_2`'],
  ['DROP TABLE lists', 'mysql', 'DROP TABLE IF EXISTS orders, `order_items`', 'DROP TABLE IF EXISTS orders_2, `order_items_2`'],
  ['TRUNCATE', 'mysql', 'TRUNCATE TABLE orders', 'TRUNCATE TABLE orders_2'],
  ['RENAME TABLE … TO', 'mysql', 'RENAME TABLE orders TO orders_old', 'RENAME TABLE orders_2 TO orders_old'],
  ["TypeORM's SQLite rebuild: the copy stands for its table", 'sqlite', 'INSERT INTO "temporary_orders"("id", "note") SELECT "id", "note" FROM "orders"', 'INSERT INTO "temporary_orders_2"("id", "note") SELECT "id", "note" FROM "orders_2"'],
  ['… and its rename back', 'sqlite', 'ALTER TABLE "temporary_orders" RENAME TO "orders"', 'ALTER TABLE "temporary_orders_2" RENAME TO "orders_2"'],
  ['SQLite column constraints are no names', 'sqlite', 'CREATE TABLE "orders" ("id" integer PRIMARY KEY NOT NULL, "b" varchar UNIQUE, CONSTRAINT "UQ_b" UNIQUE ("b"), CONSTRAINT "CHK_b" CHECK ("b" <> \'\'))', 'CREATE TABLE "orders_2" ("id" integer PRIMARY KEY NOT NULL, "b" varchar UNIQUE, CONSTRAINT "UQ_b_2" UNIQUE ("b"), CONSTRAINT "CHK_b_2" CHECK ("b" <> \'\'))'],
  ['a column rename is no table rename', 'sqlite', 'ALTER TABLE "orders" RENAME COLUMN "note" TO "orders"', 'ALTER TABLE "orders_2" RENAME COLUMN "note" TO "orders"'],
  ['a statement without layout tables is untouched', 'mysql', 'SELECT r.id FROM regions r', 'SELECT r.id FROM regions r'],
];

describe('table names of a layout', () => {
  it.each(CASES)('%s (%s)', (_label, dialect, sql, expected) => {
    expect(forTable(sql, dialect)).toBe(expected);
  });

  it('names the table of the unit: 0 … count − 1', () => {
    expect([0, 1, 3].map((t) => forTable('SELECT id FROM orders', 'mysql', t))).toEqual(['SELECT id FROM orders_0', 'SELECT id FROM orders_1', 'SELECT id FROM orders_3']);
  });

  it('refuses a statement naming tables of different layouts', () => {
    expect(() => forTable('SELECT o.id FROM orders o JOIN customers c ON c.id = o.id', 'mysql')).toThrow(UnsupportedShardingError);
    expect(() => forTable('SELECT o.id FROM orders o JOIN customers c ON c.id = o.id', 'mysql')).toThrow(/4 tables per shard.*2 tables per shard/);
  });

  it('finds the sites once per text', () => {
    const namings = new LayoutNamings('mysql', (name) => rules.ruleOf(name)?.shardKey?.layout);
    const p = parameterize('SELECT id FROM orders WHERE id = ?', [1], 'mysql');
    const again = Object.assign(Object.create(p) as typeof p, { parameters: [2] });
    expect(namings.of(again)).toBe(namings.of(p));
  });
});
