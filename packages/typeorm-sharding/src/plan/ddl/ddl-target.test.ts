import { describe, expect, it } from 'vitest';
import type { SqlDialect } from '../../parameterize/index.js';
import { ddlTargetOf, type DdlTarget } from './ddl-target.js';

const tables = (groups: string[][], reads: string[] = []): DdlTarget => ({ kind: 'tables', groups, reads });
const objects = (object: 'index' | 'trigger' | 'view', ...names: string[]): DdlTarget => ({
  kind: 'objects',
  object,
  names: names.map((n) => (n.includes('.') ? { qualifier: n.split('.')[0], name: n.split('.')[1]! } : { name: n, qualifier: undefined })),
});

/** [sql, dialect, expected]; `both` runs on the two dialects. */
const CASES: readonly [string, SqlDialect | 'both', DdlTarget][] = [
  // every quoting names the same table
  ['CREATE INDEX i ON orders (total)', 'both', tables([['orders']])],
  ['CREATE INDEX i ON orders(total)', 'both', tables([['orders']])],
  ['CREATE INDEX `i` ON `orders` (`total`)', 'both', tables([['orders']])],
  ['CREATE UNIQUE INDEX "IDX_1" ON "orders" ("buyerId", "note")', 'sqlite', tables([['orders']])],
  ['CREATE INDEX IF NOT EXISTS i ON main.orders (a)', 'sqlite', tables([['orders']])],
  ['CREATE INDEX i USING BTREE ON orders (a)', 'mysql', tables([['orders']])],
  ['CREATE TABLE orders(id int)', 'both', tables([['orders']])],
  ['CREATE TEMPORARY TABLE IF NOT EXISTS `orders` (`id` int)', 'mysql', tables([['orders']])],
  // a foreign key's target decides nothing
  ['CREATE TABLE "audit" ("id" integer, CONSTRAINT "FK_1" FOREIGN KEY ("r") REFERENCES "regions" ("id"))', 'sqlite', tables([['audit']])],
  ['CREATE TABLE t AS SELECT id FROM orders', 'both', tables([['t']], ['id', 'FROM', 'orders'])],
  ['CREATE TRIGGER tr AFTER INSERT ON orders BEGIN UPDATE users SET n = 1; END', 'sqlite', tables([['orders']])],
  ['CREATE DEFINER=`root`@`localhost` TRIGGER tr BEFORE INSERT ON `orders` FOR EACH ROW SET NEW.a = 1', 'mysql', tables([['orders']])],
  ['ALTER TABLE orders ADD COLUMN x int', 'both', tables([['orders']])],
  ['ALTER TABLE `orders` ADD CONSTRAINT `FK_1` FOREIGN KEY (`regionId`) REFERENCES `regions`(`id`) ON DELETE CASCADE', 'mysql', tables([['orders']])],
  ['ALTER TABLE "temporary_orders" RENAME TO "orders"', 'sqlite', tables([['temporary_orders', 'orders']])],
  ['ALTER TABLE "orders" RENAME COLUMN "a" TO "b"', 'sqlite', tables([['orders']])],
  // SQLite: RENAME a TO b renames a column
  ['ALTER TABLE orders RENAME a TO b', 'sqlite', tables([['orders']])],
  // MySQL: RENAME [TO|AS] x renames the table, RENAME INDEX does not
  ['ALTER TABLE orders RENAME orders_v2', 'mysql', tables([['orders', 'orders_v2']])],
  ['ALTER TABLE orders RENAME INDEX a TO b, RENAME AS orders_v2', 'mysql', tables([['orders', 'orders_v2']])],
  ['DROP TABLE "orders"', 'sqlite', tables([['orders']])],
  ['DROP TABLE IF EXISTS orders, users CASCADE', 'mysql', tables([['orders'], ['users']])],
  ['DROP TEMPORARY TABLE `orders`', 'mysql', tables([['orders']])],
  ['TRUNCATE TABLE orders', 'mysql', tables([['orders']])],
  ['TRUNCATE orders', 'mysql', tables([['orders']])],
  ['RENAME TABLE orders TO old_orders, a TO b', 'mysql', tables([['orders', 'old_orders'], ['a', 'b']])],
  ['OPTIMIZE TABLE orders, users', 'mysql', tables([['orders'], ['users']])],
  ['ANALYZE NO_WRITE_TO_BINLOG TABLE orders', 'mysql', tables([['orders']])],
  ['ANALYZE "orders"', 'sqlite', tables([['orders']])],
  ['ANALYZE', 'sqlite', { kind: 'database' }],
  // objects named without their table
  ['DROP INDEX "IDX_1"', 'sqlite', objects('index', 'IDX_1')],
  ['DROP INDEX IF EXISTS main.IDX_1', 'sqlite', objects('index', 'main.IDX_1')],
  ['DROP INDEX `IDX_1` ON `orders`', 'mysql', tables([['orders']])],
  ['DROP TRIGGER IF EXISTS tr', 'both', objects('trigger', 'tr')],
  ['DROP VIEW v1, v2', 'both', objects('view', 'v1', 'v2')],
  ['CREATE OR REPLACE ALGORITHM=MERGE VIEW v AS SELECT id FROM regions', 'mysql', { kind: 'view', name: 'v', reads: ['SELECT', 'id', 'FROM', 'regions'] }],
  // forms it does not read
  ['CREATE DATABASE shop', 'both', { kind: 'unknown' }],
  ['DROP PROCEDURE p', 'both', { kind: 'unknown' }],
  ['RENAME USER a TO b', 'mysql', { kind: 'unknown' }],
  ['DROP TABLE', 'both', { kind: 'unknown' }],
];

describe('ddlTargetOf', () => {
  const runs = CASES.flatMap(([sql, d, expected]) => (d === 'both' ? (['mysql', 'sqlite'] as const) : [d]).map((dialect) => [`${dialect}: ${sql}`, sql, dialect, expected] as const));
  it.each(runs)('%s', (_name, sql, dialect, expected) => {
    expect(ddlTargetOf(sql, dialect)).toEqual(expected);
  });

  it('reads comments as nothing: a table named only in a comment is not a target', () => {
    expect(ddlTargetOf('CREATE INDEX i /* ON orders */ ON users (a)', 'sqlite')).toEqual(tables([['users']]));
  });
});
