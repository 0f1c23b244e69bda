import { describe, expect, it } from 'vitest';
import { qualifyForSchema } from './qualify-statement.js';

const S = '"tsh_shard_2".';

describe('qualifyForSchema', () => {
  it.each([
    ['SELECT "o"."id" FROM "orders" "o" WHERE "o"."id" IN (1, 2)', `SELECT "o"."id" FROM ${S}"orders" "o" WHERE "o"."id" IN (1, 2)`],
    ['SELECT * FROM orders o JOIN items i ON i.order_id = o.id, regions', `SELECT * FROM ${S}orders o JOIN ${S}items i ON i.order_id = o.id, ${S}regions`],
    ['SELECT * FROM orders WHERE id IN (SELECT order_id FROM items WHERE sku = ?)', `SELECT * FROM ${S}orders WHERE id IN (SELECT order_id FROM ${S}items WHERE sku = ?)`],
    ['SELECT * FROM (SELECT id FROM orders) t', `SELECT * FROM (SELECT id FROM ${S}orders) t`],
    ['SELECT * FROM orders UNION ALL SELECT * FROM old_orders', `SELECT * FROM ${S}orders UNION ALL SELECT * FROM ${S}old_orders`],
    ['SELECT value FROM json_each(?)', 'SELECT value FROM json_each(?)'],
    ['SELECT * FROM "main"."orders"', 'SELECT * FROM "main"."orders"'],
    ['SELECT name FROM sqlite_master WHERE type = \'index\'', `SELECT name FROM ${S}sqlite_master WHERE type = 'index'`],
    ['INSERT INTO "orders"("id", "total") VALUES (1, 2) RETURNING "id"', `INSERT INTO ${S}"orders"("id", "total") VALUES (1, 2) RETURNING "id"`],
    ['INSERT OR REPLACE INTO orders (id) VALUES (?)', `INSERT OR REPLACE INTO ${S}orders (id) VALUES (?)`],
    ['INSERT INTO "temporary_orders"("id") SELECT "id" FROM "orders"', `INSERT INTO ${S}"temporary_orders"("id") SELECT "id" FROM ${S}"orders"`],
    ['INSERT INTO orders (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET total = excluded.total', `INSERT INTO ${S}orders (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET total = excluded.total`],
    ['UPDATE "orders" SET "total" = "total" + 1 WHERE "id" = 3', `UPDATE ${S}"orders" SET "total" = "total" + 1 WHERE "id" = 3`],
    ['UPDATE OR IGNORE orders SET total = (SELECT MAX(total) FROM orders) WHERE id = 1', `UPDATE OR IGNORE ${S}orders SET total = (SELECT MAX(total) FROM ${S}orders) WHERE id = 1`],
    ['DELETE FROM "orders" WHERE "id" IN (1, 2)', `DELETE FROM ${S}"orders" WHERE "id" IN (1, 2)`],
    ['CREATE TABLE "orders" ("id" integer PRIMARY KEY, "region" integer REFERENCES "regions" ("id"))', `CREATE TABLE ${S}"orders" ("id" integer PRIMARY KEY, "region" integer REFERENCES "regions" ("id"))`],
    ['CREATE TABLE IF NOT EXISTS orders (id int)', `CREATE TABLE IF NOT EXISTS ${S}orders (id int)`],
    ['CREATE UNIQUE INDEX "IDX_x" ON "orders" ("total")', `CREATE UNIQUE INDEX ${S}"IDX_x" ON "orders" ("total")`],
    ['DROP INDEX IF EXISTS "IDX_x"', `DROP INDEX IF EXISTS ${S}"IDX_x"`],
    ['DROP TABLE "orders"', `DROP TABLE ${S}"orders"`],
    ['ALTER TABLE "temporary_orders" RENAME TO "orders"', `ALTER TABLE ${S}"temporary_orders" RENAME TO "orders"`],
    ['ALTER TABLE orders ADD COLUMN note varchar', `ALTER TABLE ${S}orders ADD COLUMN note varchar`],
    ['CREATE TRIGGER t AFTER INSERT ON orders BEGIN UPDATE totals SET n = n + 1; END', `CREATE TRIGGER ${S}t AFTER INSERT ON orders BEGIN UPDATE totals SET n = n + 1; END`],
    ['CREATE VIEW v AS SELECT * FROM orders', `CREATE VIEW ${S}v AS SELECT * FROM orders`],
    ['PRAGMA table_info("orders")', `PRAGMA ${S}table_info("orders")`],
  ])('%s', (sql, expected) => {
    expect(qualifyForSchema(sql, 'tsh_shard_2')).toBe(expected);
  });

  it('reads each statement alone (its token buffer is reused)', () => {
    expect(qualifyForSchema('SELECT * FROM "main"."orders"', 'tsh_shard_2')).toBe('SELECT * FROM "main"."orders"');
    expect(qualifyForSchema('DELETE FROM orders', 'tsh_shard_2')).toBe(`DELETE FROM ${S}orders`);
    expect(qualifyForSchema('SELECT f(x) FROM t', 'tsh_shard_2')).toBe(`SELECT f(x) FROM ${S}t`);
    expect(qualifyForSchema('UPDATE t', 'tsh_shard_2')).toBe(`UPDATE ${S}t`);
  });

  it.each([
    ['a CTE', 'WITH t AS (SELECT 1) SELECT * FROM t'],
    ['a TEMP table', 'CREATE TEMP TABLE x (id int)'],
    ['a virtual table', 'CREATE VIRTUAL TABLE f USING fts5(body)'],
    ['an unknown statement', 'VACUUM'],
    ['a qualified PRAGMA', 'PRAGMA main.table_info(orders)'],
  ])('refuses %s', (_label, sql) => {
    expect(qualifyForSchema(sql, 'tsh_shard_2')).toBeUndefined();
  });
});
