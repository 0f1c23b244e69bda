import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Column, DataSource, Entity, JoinColumn, ManyToOne, PrimaryColumn, QueryFailedError, Table, TableColumn, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { Broadcast, CrossServerTransactionError, PartialCommitError, Sharded, ShardKey, ShardedDataSource, UnsupportedShardingError, type ShardingOptions } from '../../packages/typeorm-sharding/src/index.js';

// Issue 11 on SQLite: a transaction over several shard files runs on the connection of the first
// shard it touches, with the other files ATTACHed, and commits once — atomically across the
// files (SQLite's super-journal). What cannot be made atomic is refused with
// CrossServerTransactionError before it runs: files mixed with in-memory shards, a file in WAL
// mode, more files than SQLite attaches, a statement whose tables cannot be named with certainty.
// In-memory shards commit one after the other (nothing of them survives a crash).

@Entity('sq_accounts')
@Sharded()
class Acct {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('int') balance!: number;
}

@Entity('sq_stock')
@Broadcast()
class Stock {
  @PrimaryColumn('int') id!: number;
  @Column('int') qty!: number;
}

@Entity('sq_products')
@Broadcast()
class Product {
  @PrimaryColumn('int') id!: number;
}

/** A sale whose product is checked at COMMIT (a deferred foreign key to a broadcast table). */
@Entity('sq_sales')
@Sharded()
class Sale {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('int') productId!: number;
  @ManyToOne(() => Product, { deferrable: 'INITIALLY DEFERRED' }) @JoinColumn({ name: 'productId' }) product?: Product;
}

const dirs: string[] = [];
const sources: ShardedDataSource[] = [];
afterEach(async () => {
  for (const ds of sources.splice(0)) await ds.destroy().catch(() => undefined);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `count` shards: files in a fresh directory, or in memory (`memory` lists the shards kept in memory). */
async function open(count: number, options: { memory?: readonly number[]; sharding?: ShardingOptions; migrations?: Function[]; synchronize?: boolean; busyTimeoutMs?: number } = {}): Promise<ShardedDataSource> {
  const dir = mkdtempSync(join(tmpdir(), 'tsh-sqlite-xa-'));
  dirs.push(dir);
  const ds = new ShardedDataSource({
    type: 'better-sqlite3',
    entities: [Acct, Stock, Product, Sale],
    synchronize: options.synchronize ?? true,
    migrations: options.migrations ?? [],
    shards: Array.from({ length: count }, (_, i) => ({ name: `s${i}`, database: options.memory?.includes(i) ? ':memory:' : join(dir, `s${i}.db`) })),
    sharding: options.sharding ?? {},
    ...(options.busyTimeoutMs === undefined ? {} : { timeout: options.busyTimeoutMs }),
  });
  sources.push(ds);
  return ds.initialize();
}

/** Account ids whose rows live on shards `a` and `b`. */
function idsOn(ds: ShardedDataSource, ...shards: string[]): number[] {
  return shards.map((shard) => {
    for (let id = 1; id < 10_000; id++) if (ds.shardOf(Acct, id) === shard) return id;
    throw new Error(`no id on ${shard}`);
  });
}

const balances = async (ds: ShardedDataSource) => (await ds.getRepository(Acct).find({ order: { id: 'ASC' } })).map((a) => `${a.id}=${a.balance}`);

describe('SQLite shard files: one transaction, one COMMIT', () => {
  it('commits and rolls back a transaction over three files as one, broadcast copies included', async () => {
    const ds = await open(4);
    const [a, b, c] = idsOn(ds, 's0', 's1', 's2') as [number, number, number];
    await ds.getRepository(Acct).insert([a, b, c].map((id) => ({ id, balance: 100 })));
    await ds.getRepository(Stock).insert({ id: 1, qty: 5 });
    await ds.transaction(async (em) => {
      await em.decrement(Acct, { id: b }, 'balance', 30);
      await em.increment(Acct, { id: a }, 'balance', 30);
      await em.decrement(Stock, { id: 1 }, 'qty', 1);
      // Reads inside see the transaction's writes, on every file.
      expect((await em.findOneByOrFail(Acct, { id: b })).balance).toBe(70);
      expect((await em.findOneByOrFail(Stock, { id: 1 })).qty).toBe(4);
    });
    await expect(
      ds.transaction(async (em) => {
        await em.decrement(Acct, { id: c }, 'balance', 50);
        await em.increment(Acct, { id: a }, 'balance', 50);
        await em.decrement(Stock, { id: 1 }, 'qty', 1);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await balances(ds)).toEqual([`${a}=130`, `${b}=70`, `${c}=100`].sort((x, y) => Number(x.split('=')[0]) - Number(y.split('=')[0])));
    for (const shard of ds.shardNames) expect(await ds.getShardDataSource(shard).query('SELECT qty FROM sq_stock')).toEqual([{ qty: 4 }]);
  });

  it('a COMMIT that fails on one shard (a deferred foreign key) commits no shard, files or memory, where commits one after the other leave a part', async () => {
    const outcome = async (crossServer: 'atomic' | 'sequential', memory: number[] = []) => {
      const ds = await open(3, { memory, sharding: { transactions: { crossServer } } });
      const [a, b] = idsOn(ds, 's0', 's1') as [number, number];
      const sale = idsOn(ds, 's1')[0]!;
      await ds.getRepository(Acct).insert([{ id: a, balance: 100 }, { id: b, balance: 100 }]);
      const error = await ds
        .transaction(async (em) => {
          await em.increment(Acct, { id: a }, 'balance', 1);
          await em.increment(Acct, { id: b }, 'balance', 1);
          // Product 999 does not exist: s1 alone refuses to commit.
          await em.insert(Sale, { id: sale, productId: 999 });
        })
        .then(() => undefined, (e: unknown) => e);
      return { error, balances: await balances(ds), sales: await ds.getRepository(Sale).count() };
    };
    const atomic = await outcome('atomic');
    expect(atomic.error).toBeInstanceOf(QueryFailedError);
    expect(String(atomic.error)).toMatch(/FOREIGN KEY constraint failed/);
    expect(atomic.balances.map((x) => x.split('=')[1])).toEqual(['100', '100']);
    expect(atomic.sales).toBe(0);
    const sequential = await outcome('sequential');
    expect(sequential.error).toBeInstanceOf(PartialCommitError);
    expect(sequential.balances.map((x) => x.split('=')[1]).sort()).toEqual(['100', '101']);
    // Shards in memory commit one by one, after every shard's deferred keys are checked: nothing commits either.
    const memory = await outcome('atomic', [0, 1, 2]);
    expect(memory.error).toBeInstanceOf(QueryFailedError);
    expect(memory.error).not.toBeInstanceOf(PartialCommitError);
    expect(memory.balances.map((x) => x.split('=')[1])).toEqual(['100', '100']);
    expect(memory.sales).toBe(0);
  });

  it('a COMMIT that fails on an attached file (another connection holds a lock on it) commits no file, where commits one after the other leave a part', async () => {
    // Nothing the plugin can check first: the lock is only met at COMMIT, when SQLite needs every file exclusively.
    const outcome = async (crossServer: 'atomic' | 'sequential') => {
      const ds = await open(3, { sharding: { transactions: { crossServer } }, busyTimeoutMs: 50 });
      const [a, b] = idsOn(ds, 's0', 's1') as [number, number];
      await ds.getRepository(Acct).insert([{ id: a, balance: 100 }, { id: b, balance: 100 }]);
      const file = dirs[dirs.length - 1]!;
      // Another connection to s1's file (a plain TypeORM data source).
      const other = await new DataSource({ type: 'better-sqlite3', database: join(file, 's1.db') }).initialize();
      const blocker = other.createQueryRunner();
      try {
        const error = await ds
          .transaction(async (em) => {
            await em.increment(Acct, { id: a }, 'balance', 1);
            await em.increment(Acct, { id: b }, 'balance', 1);
            // A reader of s1 opens its transaction now: its SHARED lock holds until it ends.
            await blocker.query('BEGIN');
            await blocker.query('SELECT COUNT(*) FROM sq_accounts');
          })
          .then(() => undefined, (e: unknown) => e);
        await blocker.query('COMMIT');
        return { error, balances: (await balances(ds)).map((x) => x.split('=')[1]) };
      } finally {
        await blocker.release();
        await other.destroy();
      }
    };
    const atomic = await outcome('atomic');
    expect(String(atomic.error)).toMatch(/SQLITE_BUSY|database is locked/);
    expect(atomic.error).not.toBeInstanceOf(PartialCommitError);
    expect(atomic.balances).toEqual(['100', '100']);
    const sequential = await outcome('sequential');
    expect(sequential.error).toBeInstanceOf(PartialCommitError);
    expect(sequential.balances.sort()).toEqual(['100', '101']);
  });

  it('a nested transaction rolled back undoes its work on the attached files too', async () => {
    const ds = await open(3);
    const [a, b, c] = idsOn(ds, 's0', 's1', 's2') as [number, number, number];
    await ds.getRepository(Acct).insert([a, b, c].map((id) => ({ id, balance: 100 })));
    await ds.transaction(async (em) => {
      await em.increment(Acct, { id: a }, 'balance', 1);
      await em.increment(Acct, { id: b }, 'balance', 1);
      await em.transaction(async (inner) => {
        await inner.increment(Acct, { id: b }, 'balance', 100);
        await inner.increment(Acct, { id: c }, 'balance', 100);
        throw new Error('inner');
      }).catch(() => undefined);
    });
    const byId = Object.fromEntries((await ds.getRepository(Acct).find()).map((x) => [x.id, x.balance]));
    expect(byId).toEqual({ [a]: 101, [b]: 101, [c]: 100 });
  });

  it('refuses what it cannot commit atomically, before the statement runs, and the transaction rolls back cleanly', async () => {
    // A file and an in-memory shard.
    let ds = await open(3, { memory: [1] });
    let [a, b] = idsOn(ds, 's0', 's1') as [number, number];
    // One shard per statement: a statement over both would be refused too.
    await ds.getRepository(Acct).insert({ id: a, balance: 100 });
    await ds.getRepository(Acct).insert({ id: b, balance: 100 });
    let error = await ds.transaction(async (em) => {
      await em.increment(Acct, { id: a }, 'balance', 1);
      await em.increment(Acct, { id: b }, 'balance', 1);
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrossServerTransactionError);
    expect((error as Error).message).toMatch(/one of them is in memory and the other a file/);
    expect((await balances(ds)).map((x) => x.split('=')[1])).toEqual(['100', '100']);

    // A file in WAL mode.
    ds = await open(3);
    [a, b] = idsOn(ds, 's0', 's1') as [number, number];
    await ds.getRepository(Acct).insert([{ id: a, balance: 100 }, { id: b, balance: 100 }]);
    await ds.getShardDataSource('s1').query('PRAGMA journal_mode = WAL');
    error = await ds.transaction(async (em) => {
      await em.increment(Acct, { id: a }, 'balance', 1);
      await em.increment(Acct, { id: b }, 'balance', 1);
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrossServerTransactionError);
    expect((error as Error).message).toMatch(/Shard s1 uses journal_mode WAL/);
    expect((await balances(ds)).map((x) => x.split('=')[1])).toEqual(['100', '100']);

    // More files than SQLite attaches to one connection (10 + the first).
    ds = await open(13);
    const ids = idsOn(ds, ...ds.shardNames);
    for (const id of ids) await ds.getRepository(Acct).insert({ id, balance: 100 });
    error = await ds.transaction(async (em) => {
      for (const id of ids) await em.increment(Acct, { id }, 'balance', 1);
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrossServerTransactionError);
    expect((error as Error).message).toMatch(/more than 11 SQLite shard files.*SQLITE_MAX_ATTACHED/);
    expect((await balances(ds)).every((x) => x.endsWith('=100'))).toBe(true);
    // Eleven files are fine.
    await ds.transaction(async (em) => {
      for (const id of ids.slice(0, 11)) await em.increment(Acct, { id }, 'balance', 1);
    });
    expect((await balances(ds)).filter((x) => x.endsWith('=101'))).toHaveLength(11);
  });

  it('a statement whose tables cannot be named for an attached file is refused (a CTE), the rest of the transaction is unharmed', async () => {
    const ds = await open(2);
    const [a, b] = idsOn(ds, 's0', 's1') as [number, number];
    await ds.getRepository(Acct).insert([{ id: a, balance: 100 }, { id: b, balance: 100 }]);
    await ds.transaction(async (em) => {
      await em.increment(Acct, { id: a }, 'balance', 1);
      const error = await em.query(`WITH t AS (SELECT ${b} AS id) SELECT balance FROM sq_accounts WHERE id IN (SELECT id FROM t) AND id = ${b}`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CrossServerTransactionError);
      // WITH before a write is refused by the planner before it reaches a file.
      const write = await em.query(`WITH t AS (SELECT ${b} AS id) UPDATE sq_accounts SET balance = 0 WHERE id IN (SELECT id FROM t) AND id = ${b}`).catch((e: unknown) => e);
      expect(write).toBeInstanceOf(UnsupportedShardingError);
      await em.increment(Acct, { id: b }, 'balance', 1);
    });
    expect((await balances(ds)).map((x) => x.split('=')[1])).toEqual(['101', '101']);
  });

  it('a copy of a broadcast table that refuses a write leaves every copy as it was (files and memory)', async () => {
    for (const memory of [[], [0, 1, 2]]) {
      const ds = await open(3, { memory });
      await ds.getRepository(Stock).insert([{ id: 1, qty: 5 }, { id: 2, qty: 5 }]);
      await ds.getShardDataSource('s2').query("CREATE TRIGGER sq_guard BEFORE UPDATE ON sq_stock WHEN NEW.qty < 0 BEGIN SELECT RAISE(ABORT, 'no negative stock on this copy'); END");
      await expect(ds.getRepository(Stock).update({ id: 1 }, { qty: -1 })).rejects.toThrow(/no negative stock on this copy/);
      // Inside a transaction that goes on after the error: the failed write is undone on s0 and s1 too.
      await ds.transaction(async (em) => {
        await em.update(Stock, { id: 1 }, { qty: -2 }).catch(() => undefined);
        await em.update(Stock, { id: 2 }, { qty: 4 });
      });
      for (const shard of ds.shardNames) expect(await ds.getShardDataSource(shard).query('SELECT id, qty FROM sq_stock ORDER BY id')).toEqual([{ id: 1, qty: 5 }, { id: 2, qty: 4 }]);
    }
  });

  it('migrations run in one transaction over the attached files: table rebuilds, indexes and rows on every shard', async () => {
    class AddNotes implements MigrationInterface {
      name = 'AddNotes1700000000000';
      async up(q: QueryRunner): Promise<void> {
        await q.createTable(new Table({ name: 'sq_notes', columns: [{ name: 'id', type: 'integer', isPrimary: true }, { name: 'text', type: 'varchar' }] }));
        // SQLite rebuilds the table for this: temporary_sq_accounts, copy, drop, rename.
        await q.addColumn('sq_accounts', new TableColumn({ name: 'note', type: 'varchar', isNullable: true }));
        await q.createIndex('sq_accounts', new TableIndex({ name: 'IDX_sq_accounts_note', columnNames: ['note'] }));
        await q.query(`UPDATE sq_accounts SET note = 'n' WHERE balance = 100`);
      }
      async down(): Promise<void> {}
    }
    const ds = await open(3, { migrations: [AddNotes] });
    const ids = idsOn(ds, 's0', 's1', 's2');
    await ds.getRepository(Acct).insert(ids.map((id) => ({ id, balance: 100 })));
    await ds.runMigrations({ transaction: 'all' });
    for (const shard of ds.shardNames) {
      const own = ds.getShardDataSource(shard);
      expect((await own.query('SELECT note FROM sq_accounts')).map((r: { note: string }) => r.note)).toEqual(['n']);
      expect((await own.query("SELECT name FROM sqlite_master WHERE name = 'IDX_sq_accounts_note'"))).toHaveLength(1);
    }
    expect(await ds.getShardDataSource('s0').query("SELECT name FROM sqlite_master WHERE name = 'sq_notes'")).toHaveLength(1);
  });
});
