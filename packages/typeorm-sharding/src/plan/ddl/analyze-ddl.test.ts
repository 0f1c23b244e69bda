import { describe, expect, it } from 'vitest';
import { UnsupportedShardingError } from '../../errors/index.js';
import { fakeEngine } from '../../engine/testing/fake-engine.js';
import { parameterize, type SqlDialect } from '../../parameterize/index.js';
import { analyze } from '../analyze.js';
import { fakeRules } from '../testing/fake-rules.js';

// Fixture: `orders` sharded by `id` (mod over s0..s3), `regions` broadcast, `users` unsharded.
const rules = fakeRules();
const planOf = (sql: string, dialect: SqlDialect) => analyze(parameterize(sql, [], dialect), rules, dialect);
const EVERY = ['s0', 's1', 's2', 's3'];

/** [sql, dialect, expected shards, parameters]: statements whose routing must not depend on quoting. */
const ROUTES: readonly [string, SqlDialect, string[], unknown[]?][] = [
  ['CREATE INDEX i ON orders (buyerId)', 'mysql', EVERY],
  ['CREATE INDEX i ON orders(buyerId)', 'sqlite', EVERY],
  ['CREATE INDEX `i` ON `orders` (`buyerId`)', 'mysql', EVERY],
  ['CREATE INDEX "i" ON "orders" ("buyerId")', 'sqlite', EVERY],
  ['CREATE INDEX i ON ORDERS (buyerId)', 'mysql', EVERY],
  ['ALTER TABLE orders ADD COLUMN x int', 'sqlite', EVERY],
  ['CREATE TABLE regions(id int)', 'mysql', EVERY],
  ['DROP TABLE orders', 'sqlite', EVERY],
  ['TRUNCATE orders', 'mysql', EVERY],
  ['CREATE INDEX i ON users (name)', 'mysql', ['s0']],
  ['CREATE TABLE audit (id int, region int REFERENCES regions(id))', 'sqlite', ['s0']],
  ['DROP TABLE users', 'sqlite', ['s0']],
  // TypeORM's SQLite rebuild of `orders`
  ['CREATE TABLE "temporary_orders" ("id" bigint PRIMARY KEY NOT NULL, "note" varchar)', 'sqlite', EVERY],
  ['INSERT INTO "temporary_orders"("id", "note") SELECT "id", "note" FROM "orders"', 'sqlite', EVERY],
  ['ALTER TABLE "temporary_orders" RENAME TO "orders"', 'sqlite', EVERY],
  ['ALTER TABLE "orders" RENAME TO "temporary_orders"', 'sqlite', EVERY],
  ['INSERT INTO "orders"("id", "note") SELECT "id", "note" FROM "temporary_orders"', 'sqlite', EVERY],
  ['INSERT INTO "temporary_regions"("id", "name") SELECT "id", "name" FROM "regions"', 'sqlite', EVERY],
  ['CREATE TABLE "temporary_users" ("id" integer)', 'sqlite', ['s0']],
  ['INSERT INTO "temporary_users"("id") SELECT "id" FROM "users"', 'sqlite', ['s0']],
  // schema reads: the default shard holds every table
  ['PRAGMA table_xinfo("orders")', 'sqlite', ['s0']],
  ['PRAGMA index_list("orders")', 'sqlite', ['s0']],
  ['PRAGMA index_info("IDX_1")', 'sqlite', ['s0']],
  ['PRAGMA foreign_key_list("orders")', 'sqlite', ['s0']],
  // settings apply per database
  ['PRAGMA foreign_keys = OFF', 'sqlite', EVERY],
  ['PRAGMA foreign_keys(0)', 'sqlite', EVERY],
  // unquoted DML routes as quoted DML does
  ['SELECT id FROM orders WHERE id IN (1, 2)', 'sqlite', ['s1', 's2']],
  ['SELECT id FROM orders WHERE id IN (?, ?)', 'mysql', ['s1', 's2'], [1, 2]],
  ['UPDATE orders SET note = ? WHERE id = 5', 'sqlite', ['s1'], ['x']],
  ['DELETE FROM orders WHERE id = ?', 'mysql', ['s1'], [5]],
  ['INSERT INTO orders(id, buyerId) VALUES (5, 1)', 'sqlite', ['s1']],
  ['INSERT orders(id, buyerId) VALUES (5, 1)', 'mysql', ['s1']],
  ['SELECT COUNT(*) AS n FROM orders', 'sqlite', EVERY],
];

describe('routing of DDL and DML does not depend on quoting', () => {
  it.each(ROUTES)('%s (%s)', (sql, dialect, expected, parameters = []) => {
    expect(fakeEngine(dialect).explain(sql, parameters).map((s) => s.shard)).toEqual(expected);
  });

  it('DROP INDEX without a table is planned for the shards that hold the index (asked at run time)', () => {
    expect(planOf('DROP INDEX "IDX_1"', 'sqlite')).toEqual({ kind: 'where-exists', object: 'index', name: 'IDX_1' });
    expect(planOf('DROP INDEX IF EXISTS main."IDX_1"', 'sqlite')).toEqual({ kind: 'where-exists', object: 'index', name: 'IDX_1' });
    expect(planOf('DROP TRIGGER `tr`', 'mysql')).toEqual({ kind: 'where-exists', object: 'trigger', name: 'tr' });
    expect(planOf('DROP VIEW v', 'mysql')).toEqual({ kind: 'where-exists', object: 'view', name: 'v' });
    // explain() cannot ask the shards: it lists every candidate
    expect(fakeEngine('sqlite').explain('DROP INDEX i').map((s) => s.shard)).toEqual(EVERY);
  });

  it('MySQL DROP INDEX … ON names its table', () => {
    expect(planOf('DROP INDEX i ON orders', 'mysql')).toMatchObject({ kind: 'all-shards' });
    expect(planOf('DROP INDEX i ON users', 'mysql')).toMatchObject({ kind: 'default-shard' });
  });
});

/** [sql, dialect, fragment of the message]: DDL that cannot be placed exactly is refused. */
const REFUSED: readonly [string, SqlDialect, string][] = [
  ['DROP TABLE orders, users', 'mysql', 'write one statement per table'],
  ['TRUNCATE TABLE users, orders', 'mysql', 'write one statement per table'],
  ['CREATE TABLE copy AS SELECT * FROM orders', 'sqlite', 'with only that shard\'s rows'],
  ['CREATE TABLE regions AS SELECT * FROM orders', 'mysql', 'on each shard'],
  ['CREATE VIEW v AS SELECT id FROM orders', 'sqlite', 'a view lives on one shard'],
  ['CREATE PROCEDURE p() SELECT * FROM orders', 'mysql', 'cannot be told'],
  ['DROP VIEW a, b', 'mysql', 'Drop one per statement'],
  ['DROP INDEX other.i', 'sqlite', 'names a database'],
  ['INSERT INTO users(id) SELECT id FROM orders', 'sqlite', 'copy only the default shard\'s rows'],
  ['INSERT INTO "temporary_orders"("id", "note") SELECT "note", "id" FROM "orders"', 'sqlite', 'with "id" into itself'],
  ['INSERT INTO "temporary_orders"("id") SELECT "o"."id" FROM "orders" "o" JOIN "users" "u" ON "u"."id" = "o"."id"', 'sqlite', 'must copy "orders" alone'],
];

describe('DDL that cannot be placed exactly', () => {
  it.each(REFUSED)('%s (%s)', (sql, dialect, message) => {
    let thrown: unknown;
    try {
      planOf(sql, dialect);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UnsupportedShardingError);
    expect((thrown as Error).message).toContain(message);
  });

  it('keeps DDL of views over broadcast and unsharded tables on the default shard', () => {
    expect(planOf('CREATE VIEW v AS SELECT r.id, u.name FROM regions r JOIN users u ON u.id = r.id', 'mysql')).toMatchObject({ kind: 'default-shard' });
  });

  it('runs DDL of unknown forms that name no sharded table on the default shard', () => {
    expect(planOf('CREATE PROCEDURE p() SELECT 1', 'mysql')).toMatchObject({ kind: 'default-shard' });
    expect(planOf('ANALYZE', 'sqlite')).toMatchObject({ kind: 'all-shards' });
  });
});
