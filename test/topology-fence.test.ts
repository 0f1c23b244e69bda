import mysql from 'mysql2/promise';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  crc32,
  installFence,
  isFencedError,
  releaseFence,
  removeFence,
  ShardedDataSource,
  Sharded,
  ShardKey,
  ShardQueryError,
  type FencedTable,
} from '../packages/typeorm-sharding/src/index.js';
import { createDatabases, dropDatabases, MARIADB, mariadbAvailable } from './support/mariadb.js';

// The fence of a cutover, at the database: triggers that refuse writes to fenced buckets with a
// recognisable signal, whoever writes (a plain connection or a ShardedDataSource).

@Entity('fenced_orders')
@Sharded()
class FencedOrder {
  @PrimaryColumn('bigint') @ShardKey() id!: string;
  @Column('int') amount!: number;
}

@Entity('fenced_tags')
@Sharded()
class FencedTag {
  @PrimaryColumn('varchar', { length: 40 }) @ShardKey() name!: string;
  @Column('int') uses!: number;
}

const DB = { s0: `tsh_fence_${process.pid}_s0`, s1: `tsh_fence_${process.pid}_s1` };
const TABLES: readonly FencedTable[] = [
  { table: 'fenced_orders', keyColumn: 'id', keyKind: 'integer' },
  { table: 'fenced_tags', keyColumn: 'name', keyKind: 'string' },
];
const bucketOf = (key: string | number) => crc32(Buffer.from(String(key), 'utf8')) % 1024;

/** Keys whose bucket is (or is not) in `[from, to]`. */
function keysIn(from: number, to: number, inside: boolean, count: number): number[] {
  const keys: number[] = [];
  for (let id = 1; keys.length < count; id++) if ((bucketOf(id) >= from && bucketOf(id) <= to) === inside) keys.push(id);
  return keys;
}

const available = await mariadbAvailable();

describe.skipIf(!available)('fence on MariaDB', () => {
  let conn: mysql.Connection;
  let ds: ShardedDataSource;

  beforeAll(async () => {
    await createDatabases(Object.values(DB));
    ds = new ShardedDataSource({
      type: 'mariadb',
      ...MARIADB,
      username: MARIADB.user,
      entities: [FencedOrder, FencedTag],
      synchronize: true,
      shards: [
        { name: 's0', database: DB.s0 },
        { name: 's1', database: DB.s1 },
      ],
    } as never);
    await ds.initialize();
    conn = await mysql.createConnection({ ...MARIADB, database: DB.s0 });
  });

  afterAll(async () => {
    await conn?.end();
    if (ds?.isInitialized) await ds.destroy();
    await dropDatabases(Object.values(DB));
  });

  it('refuses writes to fenced buckets with the signal, lets other buckets and the bypass through', async () => {
    // s0 owns buckets 0–511 by default; fence 100–300 of them.
    await installFence(conn, { database: DB.s0, tables: TABLES, bucketCount: 1024, ranges: [{ from: 100, to: 300 }], version: 7 });
    const [fenced] = keysIn(100, 300, true, 1);
    const [free] = keysIn(0, 511, true, 600).filter((id) => bucketOf(id) < 100 || bucketOf(id) > 300);
    const refusal = await conn.query('INSERT INTO fenced_orders (id, amount) VALUES (?, 1)', [fenced]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toMatchObject({ errno: 1644, sqlState: '45000' });
    expect(isFencedError(refusal)).toEqual({ version: 7, bucket: bucketOf(fenced!) });
    await conn.query('INSERT INTO fenced_orders (id, amount) VALUES (?, 1)', [free]);

    // String keys hash their UTF-8 text.
    const tag = Array.from({ length: 5000 }, (_, i) => `tag-${i}`).find((n) => bucketOf(n) >= 100 && bucketOf(n) <= 300)!;
    await expect(conn.query('INSERT INTO fenced_tags (name, uses) VALUES (?, 1)', [tag])).rejects.toMatchObject({ errno: 1644 });

    // The mover's own appliers pass.
    await conn.query('SET @tsh_fence_bypass = 1');
    await conn.query('INSERT INTO fenced_orders (id, amount) VALUES (?, 1)', [fenced]);
    await conn.query('SET @tsh_fence_bypass = NULL');

    // Update and delete check the old row image; an update moving a free row into a fenced bucket checks the new one.
    await expect(conn.query('UPDATE fenced_orders SET amount = 2 WHERE id = ?', [fenced])).rejects.toMatchObject({ errno: 1644 });
    await expect(conn.query('DELETE FROM fenced_orders WHERE id = ?', [fenced])).rejects.toMatchObject({ errno: 1644 });
    await expect(conn.query('UPDATE fenced_orders SET id = ? WHERE id = ?', [keysIn(100, 300, true, 2)[1], free])).rejects.toMatchObject({ errno: 1644 });
    await conn.query('UPDATE fenced_orders SET amount = 3 WHERE id = ?', [free]);

    // Installing again is a no-op (same triggers), and releasing lets the writes through.
    await installFence(conn, { database: DB.s0, tables: TABLES, bucketCount: 1024, ranges: [{ from: 100, to: 300 }], version: 7 });
    await releaseFence(conn, { database: DB.s0, ranges: [{ from: 100, to: 300 }] });
    await conn.query('UPDATE fenced_orders SET amount = 4 WHERE id = ?', [fenced]);
    const [rows] = await conn.query('SELECT id, amount FROM fenced_orders ORDER BY id');
    expect(rows).toEqual(
      [
        { id: fenced, amount: 4 },
        { id: free, amount: 3 },
      ].sort((a, b) => a.id! - b.id!),
    );
  });

  it('a fenced write through a ShardedDataSource fails with a ShardQueryError that isFencedError recognises', async () => {
    await installFence(conn, { database: DB.s0, tables: TABLES, bucketCount: 1024, ranges: [{ from: 0, to: 50 }], version: 9 });
    const [fenced] = keysIn(0, 50, true, 1);
    const error = await ds
      .getRepository(FencedOrder)
      .insert({ id: String(fenced), amount: 1 })
      .then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ShardQueryError);
    expect(isFencedError(error)).toEqual({ version: 9, bucket: bucketOf(fenced!) });
    await conn.query('SET @tsh_fence_bypass = 1');
    await conn.query('INSERT INTO fenced_orders (id, amount) VALUES (?, 1)', [fenced]);
    await conn.query('SET @tsh_fence_bypass = NULL');
    // Inside a transaction too; the other shard is untouched by the fence.
    const inTransaction = await ds
      .transaction((m) => m.getRepository(FencedOrder).update({ id: String(fenced) }, { amount: 5 }))
      .then(() => undefined, (e: unknown) => e);
    expect(isFencedError(inTransaction)).toMatchObject({ version: 9 });
    const [onS1] = keysIn(512, 1023, true, 1);
    await ds.getRepository(FencedOrder).insert({ id: String(onS1), amount: 1 });
    await releaseFence(conn, { database: DB.s0, ranges: [{ from: 0, to: 50 }] });
    await ds.getRepository(FencedOrder).update({ id: String(fenced) }, { amount: 6 });
    expect(await ds.getRepository(FencedOrder).findOneBy({ id: String(fenced) })).toMatchObject({ amount: 6 });
  });

  it('the fence waits for writers already inside a transaction, and a transaction opened before it still sees it', async () => {
    const range = { from: 600, to: 700 };
    // s1's triggers first (creating them waits for open transactions on the table).
    await installFence(conn, { database: DB.s1, tables: TABLES, bucketCount: 1024, ranges: [], version: 11 });
    const writer = await mysql.createConnection({ ...MARIADB, database: DB.s1 });
    const fencer = await mysql.createConnection({ ...MARIADB, database: DB.s1 });
    // A transaction whose snapshot predates the fence.
    const early = await mysql.createConnection({ ...MARIADB, database: DB.s1 });
    try {
      const [free, fenced, late] = [keysIn(512, 599, true, 1)[0]!, ...keysIn(range.from, range.to, true, 2)];
      const events: string[] = [];
      await early.query('START TRANSACTION');
      await early.query('SELECT COUNT(*) FROM fenced_orders');
      await writer.query('START TRANSACTION');
      // Its first read (the trigger's) would fix a REPEATABLE READ snapshot taken before the fence.
      await writer.query('INSERT INTO fenced_orders (id, amount) VALUES (?, 1)', [free]);
      const fencing = installFence(fencer, { database: DB.s1, tables: TABLES, bucketCount: 1024, ranges: [range], version: 11 }).then(() => events.push('fenced'));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await writer.query('INSERT INTO fenced_orders (id, amount) VALUES (?, 1)', [fenced]);
      // The fence must still be waiting when the writer commits. (Not "committed before fenced":
      // both answers arrive together on two sockets, in either order.)
      events.push('commit sent');
      await writer.query('COMMIT');
      await fencing;
      // The write that got in was committed before the fence took effect, never after it.
      expect(events).toEqual(['commit sent', 'fenced']);
      // The transaction opened before the fence does not see the fence row in its snapshot, yet is refused.
      await expect(early.query('INSERT INTO fenced_orders (id, amount) VALUES (?, 1)', [late])).rejects.toMatchObject({ errno: 1644 });
      await early.query('ROLLBACK');
    } finally {
      // Closing the connections ends their transactions (dropping the triggers waits for them).
      await early.end();
      await writer.end();
      await fencer.end();
      await releaseFence(conn, { database: DB.s1, ranges: [range] });
      await removeFence(conn, { database: DB.s1, tables: TABLES });
    }
  });

  it('removeFence drops the triggers and the fence table', async () => {
    await removeFence(conn, { database: DB.s0, tables: TABLES });
    const [triggers] = await conn.query('SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ?', [DB.s0]);
    expect(triggers).toEqual([]);
    const [tables] = await conn.query("SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'tsh_fence'", [DB.s0]);
    expect(tables).toEqual([]);
    await removeFence(conn, { database: DB.s0, tables: TABLES });
  });
});
