import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { UnsupportedShardingError } from '../packages/typeorm-sharding/src/index.js';
import { ENTITIES, Order } from './support/entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];

/** Secondary index names of one table in one database. */
async function indexesOf(ds: DataSource, table: string): Promise<string[]> {
  const sql =
    ds.options.type === 'better-sqlite3'
      ? "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name NOT LIKE 'sqlite_autoindex%'"
      : "SELECT DISTINCT INDEX_NAME AS name FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME <> 'PRIMARY'";
  return ((await ds.query(sql, [table])) as { name: string }[]).map((r) => r.name).sort();
}

/** Every shard holds the plain database's indexes of the sharded and broadcast tables; `buyers` (unsharded) lives on s0 only. */
async function expectIndexesMatchPlain(fx: Fixture): Promise<void> {
  for (const shard of fx.sharded.shardNames) {
    const ds = fx.sharded.getShardDataSource(shard);
    for (const table of ['orders', 'regions']) expect(await indexesOf(ds, table), `${table} on ${shard}`).toEqual(await indexesOf(fx.plain, table));
    expect(await indexesOf(ds, 'buyers'), `buyers on ${shard}`).toEqual(shard === 's0' ? await indexesOf(fx.plain, 'buyers') : []);
  }
}

/** Runs one statement on both sources; both must succeed, or both fail. */
async function both(fx: Fixture, sql: string): Promise<void> {
  const [sharded, plain] = await Promise.allSettled([fx.sharded.query(sql), fx.plain.query(sql)]);
  expect(sharded.status, `${sql} on the sharded source: ${sharded.status === 'rejected' ? (sharded.reason as Error).message : 'ok'}`).toBe(plain.status);
}

describe.each(backends)('DDL routing on %s', (backend) => {
  let fx: Fixture;
  afterEach(async () => fx?.close());

  const sqlite = backend === 'sqlite';
  const dropIndex = (name: string, table: string) => (sqlite ? `DROP INDEX ${name}` : `DROP INDEX ${name} ON ${table}`);

  it('CREATE INDEX reaches every shard of a sharded or broadcast table whatever its quoting, and DROP INDEX every shard that holds the index', async () => {
    fx = await openFixture(backend, ENTITIES, 3);
    const q = sqlite ? '"' : '`';
    for (const sql of [
      'CREATE INDEX idx_orders_buyer ON orders (buyerId)',
      'CREATE INDEX idx_orders_note ON orders(note)',
      `CREATE INDEX ${q}idx_orders_amount${q} ON ${q}orders${q} (${q}amount${q})`,
      'CREATE UNIQUE INDEX idx_regions_name ON regions (name)',
      'CREATE INDEX idx_buyers_name ON buyers (name)',
    ]) {
      await both(fx, sql);
    }
    await expectIndexesMatchPlain(fx);
    expect(await indexesOf(fx.sharded.getShardDataSource('s2'), 'orders')).toEqual(['idx_orders_amount', 'idx_orders_buyer', 'idx_orders_note']);

    fx.physical.length = 0;
    await both(fx, dropIndex('idx_orders_buyer', 'orders'));
    await both(fx, dropIndex(`${q}idx_buyers_name${q}`, 'buyers'));
    await both(fx, dropIndex('idx_regions_name', 'regions'));
    await expectIndexesMatchPlain(fx);
    const drops = fx.physical.filter((e) => /^DROP INDEX/i.test(e.sql) && !e.error);
    expect(drops.filter((e) => /idx_orders_buyer/.test(e.sql)).map((e) => e.shard)).toEqual(['s0', 's1', 's2']);
    expect(drops.filter((e) => /idx_buyers_name/.test(e.sql)).map((e) => e.shard)).toEqual(['s0']);
  });

  it('DROP INDEX of a missing index answers as one database: an error, or nothing with IF EXISTS', async () => {
    fx = await openFixture(backend, ENTITIES, 3);
    await both(fx, dropIndex('idx_missing', 'orders'));
    await both(fx, sqlite ? 'DROP INDEX IF EXISTS idx_missing' : 'DROP INDEX IF EXISTS idx_missing ON orders');
    await expect(fx.sharded.query(dropIndex('idx_missing', 'orders'))).rejects.toThrow(sqlite ? /no such index/ : /check that .* exists/i);
  });

  it('a trigger on a sharded table fires on every shard; DROP TRIGGER removes it from every shard', async () => {
    fx = await openFixture(backend, ENTITIES, 3);
    const create = sqlite
      ? "CREATE TRIGGER trg_orders_note AFTER INSERT ON orders BEGIN UPDATE orders SET note = 'from trigger' WHERE id = NEW.id; END"
      : "CREATE TRIGGER trg_orders_note BEFORE INSERT ON orders FOR EACH ROW SET NEW.note = 'from trigger'";
    await both(fx, create);
    const rows = [1, 2, 3, 4, 5, 6].map((id) => ({ id: String(id), buyerId: 1, note: null, amount: id, createdAt: new Date(Date.UTC(2024, 0, id)) }));
    await fx.sharded.getRepository(Order).insert(rows);
    await fx.plain.getRepository(Order).insert(rows);
    const notes = 'SELECT id, note FROM orders ORDER BY id';
    expect(await fx.sharded.query(notes)).toEqual(await fx.plain.query(notes));
    expect(new Set(((await fx.sharded.query(notes)) as { note: string }[]).map((r) => r.note))).toEqual(new Set(['from trigger']));

    fx.physical.length = 0;
    await both(fx, 'DROP TRIGGER trg_orders_note');
    expect(fx.physical.filter((e) => /^DROP TRIGGER/.test(e.sql)).map((e) => e.shard)).toEqual(['s0', 's1', 's2']);
    await fx.sharded.getRepository(Order).insert({ ...rows[0]!, id: '7' });
    expect(await fx.sharded.query('SELECT note FROM orders WHERE id = 7')).toEqual([{ note: null }]);
  });

  it('ALTER TABLE without quotes changes every shard', async () => {
    fx = await openFixture(backend, ENTITIES, 3);
    await both(fx, 'ALTER TABLE orders ADD COLUMN extra int');
    for (const shard of fx.sharded.shardNames) {
      const table = await fx.sharded.getShardDataSource(shard).createQueryRunner().getTable('orders');
      expect(table?.findColumnByName('extra'), shard).toBeDefined();
    }
  });

  it('routes raw DML with unquoted table names as TypeORM\'s quoted statements: the same rows as one database', async () => {
    fx = await openFixture(backend, ENTITIES, 3);
    const values = [1, 2, 3, 4, 5, 6].map((id) => `(${id}, ${id % 2}, ${id * 10}, '2024-01-0${id} 00:00:00')`).join(', ');
    for (const sql of [
      `INSERT INTO orders(id, buyerId, amount, createdAt) VALUES ${values}`,
      'UPDATE orders SET amount = amount + 1 WHERE id IN (1, 2, 5)',
      'DELETE FROM orders WHERE id = 3',
      'INSERT INTO regions(id, name) VALUES (1, \'north\')',
    ]) {
      await both(fx, sql);
    }
    for (const sql of ['SELECT id, amount FROM orders ORDER BY id', 'SELECT id FROM orders WHERE id IN (2, 4, 6) ORDER BY id', 'SELECT COUNT(*) AS n FROM orders', 'SELECT name FROM regions']) {
      expect(await fx.sharded.query(sql), sql).toEqual(await fx.plain.query(sql));
    }
    for (const shard of fx.sharded.shardNames) {
      const ids = ((await fx.sharded.getShardDataSource(shard).query('SELECT id FROM orders ORDER BY id')) as { id: unknown }[]).map((r) => Number(r.id));
      expect(ids, shard).toEqual([1, 2, 4, 5, 6].filter((id) => fx.sharded.shardOf(Order, id) === shard));
      expect(await fx.sharded.getShardDataSource(shard).query('SELECT name FROM regions'), shard).toEqual([{ name: 'north' }]);
    }
  });

  it('refuses DDL it cannot place exactly, before any shard runs it', async () => {
    fx = await openFixture(backend, ENTITIES, 3);
    fx.physical.length = 0;
    await expect(fx.sharded.query('DROP TABLE orders, buyers')).rejects.toBeInstanceOf(UnsupportedShardingError);
    await expect(fx.sharded.query('CREATE TABLE order_copy AS SELECT * FROM orders')).rejects.toBeInstanceOf(UnsupportedShardingError);
    await expect(fx.sharded.query('CREATE VIEW order_view AS SELECT id FROM orders')).rejects.toBeInstanceOf(UnsupportedShardingError);
    await expect(fx.sharded.query('INSERT INTO buyers (id, name) SELECT id, note FROM orders')).rejects.toBeInstanceOf(UnsupportedShardingError);
    expect(fx.physical).toEqual([]);
  });
});
