import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { crc32, moveBucketsOffline, ShardedDataSource, Sharded, ShardKey, ShardingConfigError, TopologyDocumentError, type PhysicalQueryEvent } from '../packages/typeorm-sharding/src/index.js';
import { GxUser } from './support/global-index-entities.js';

// SQLite's resharding path: an offline move of bucket ranges between shard files, published in
// the topology store file, seen by a second data source opened on the same files.

@Entity('moved_orders')
@Sharded()
class MovedOrder {
  @PrimaryColumn('bigint') @ShardKey() id!: string;
  @Column('int') amount!: number;
}

@Entity('moved_tags')
@Sharded()
class MovedTag {
  @PrimaryColumn('varchar', { length: 40 }) @ShardKey() name!: string;
  @Column('int') uses!: number;
}

@Entity('moved_mod')
@Sharded({ algorithm: 'mod' })
class ModEntity {
  @PrimaryColumn('int') @ShardKey() id!: number;
}

/** The part of better-sqlite3 used to read a shard file directly (it has no bundled types). */
type SqliteDatabase = { prepare(sql: string): { all(): { k: unknown }[] }; close(): void };
const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string, options: { readonly: boolean }) => SqliteDatabase;

const bucketOf = (key: string | number) => crc32(Buffer.from(String(key), 'utf8')) % 1024;
// Three shards by default: s0 0–341, s1 342–682, s2 683–1023. Move 100–199 from s0 to s2.
const MOVE = { from: 100, to: 199 };
const ROWS = 60;

let dir: string;
const open: ShardedDataSource[] = [];

function source(entities: Function[] = [MovedOrder, MovedTag], onPhysicalQuery?: (e: PhysicalQueryEvent) => void): ShardedDataSource {
  const ds = new ShardedDataSource({
    type: 'better-sqlite3',
    entities,
    synchronize: true,
    shards: ['s0', 's1', 's2'].map((name) => ({ name, database: join(dir, `${name}.db`) })),
    sharding: { topology: { file: join(dir, 'topology.db'), refreshMs: 60_000 }, ...(onPhysicalQuery ? { onPhysicalQuery } : {}) },
  });
  open.push(ds);
  return ds;
}

function idsIn(file: string, table: string, column: string): string[] {
  const db = new Database(join(dir, file), { readonly: true });
  try {
    return db.prepare(`SELECT "${column}" AS k FROM "${table}"`).all().map((r) => String(r.k)).sort();
  } finally {
    db.close();
  }
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tsh-offline-move-'));
});

afterEach(async () => {
  for (const ds of open.splice(0)) if (ds.isInitialized) await ds.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('SQLite offline move', () => {
  it('moves the rows of the buckets, routes by the new version, and a second data source reads it', async () => {
    const ds = await source().initialize();
    expect(ds.topology.version).toBe(1);
    const orders = Array.from({ length: ROWS }, (_, i) => ({ id: String(i + 1), amount: i }));
    const tags = Array.from({ length: ROWS }, (_, i) => ({ name: `tag-${i}`, uses: i }));
    await ds.getRepository(MovedOrder).insert(orders);
    await ds.getRepository(MovedTag).insert(tags);
    const moving = (key: string) => bucketOf(key) >= MOVE.from && bucketOf(key) <= MOVE.to;
    const movedOrders = orders.map((o) => o.id).filter(moving).sort();
    const movedTags = tags.map((t) => t.name).filter(moving).sort();
    expect(movedOrders.length).toBeGreaterThan(0);
    expect(movedTags.length).toBeGreaterThan(0);
    const s0Before = idsIn('s0.db', 'moved_orders', 'id');
    const s2Before = idsIn('s2.db', 'moved_orders', 'id');

    const report = await moveBucketsOffline(ds, { ranges: [MOVE], to: 's2' });
    expect(report).toEqual({ from: 's0', to: 's2', version: 2, rows: { moved_orders: movedOrders.length, moved_tags: movedTags.length } });
    expect(ds.topology.version).toBe(2);
    expect(idsIn('s0.db', 'moved_orders', 'id')).toEqual(s0Before.filter((id) => !moving(id)));
    expect(idsIn('s2.db', 'moved_orders', 'id')).toEqual([...s2Before, ...movedOrders].sort());
    expect(idsIn('s2.db', 'moved_tags', 'name')).toEqual(expect.arrayContaining(movedTags));
    expect(idsIn('s0.db', 'moved_tags', 'name').filter(moving)).toEqual([]);

    // Reads and writes follow the new map.
    expect(ds.shardOf(MovedOrder, movedOrders[0])).toBe('s2');
    expect((await ds.getRepository(MovedOrder).find({ order: { id: 'ASC' } })).map((o) => String(o.id))).toEqual(orders.map((o) => o.id));
    const fresh = Array.from({ length: 5000 }, (_, i) => String(10_000 + i)).find(moving)!;
    await ds.getRepository(MovedOrder).insert({ id: fresh, amount: 1 });
    expect(idsIn('s2.db', 'moved_orders', 'id')).toContain(fresh);
    expect(idsIn('s0.db', 'moved_orders', 'id')).not.toContain(fresh);
    await ds.getRepository(MovedOrder).update({ id: movedOrders[0] }, { amount: 999 });
    expect(await ds.getRepository(MovedOrder).findOneBy({ id: movedOrders[0] })).toMatchObject({ amount: 999 });

    // A second data source on the same files starts on version 2, not on its configuration.
    const other = await source().initialize();
    expect(other.topology.version).toBe(2);
    expect(other.topology.document.bucketMap).toContainEqual({ ...MOVE, shard: 's2' });
    expect(await other.getRepository(MovedOrder).findOneBy({ id: movedOrders[0] })).toMatchObject({ amount: 999 });
    expect(await other.getRepository(MovedOrder).count()).toBe(ROWS + 1);
  });

  it('reads a remembered owner where its row is after the move (the guess is a shard-key value, not a shard)', async () => {
    // The shards of the owner reads (`gx_users`), not of the lookup table's.
    const shards: string[] = [];
    const record = (e: PhysicalQueryEvent) => {
      for (const b of e.branches ?? [e]) if (!/gidx/.test(b.sql)) shards.push(b.shard);
    };
    const ds = await source([GxUser], record).initialize();
    const id = Array.from({ length: 5000 }, (_, i) => i + 1).find((k) => bucketOf(k) >= MOVE.from && bucketOf(k) <= MOVE.to)!;
    const users = ds.getRepository(GxUser);
    await users.insert({ id, email: 'moved@x', name: 'm' });
    expect(await users.findOneBy({ email: 'moved@x' })).toMatchObject({ id });
    shards.length = 0;
    expect(await users.findOneBy({ email: 'moved@x' })).toMatchObject({ id });
    expect(shards).toEqual(['s0']); // remembered: one round trip, to the owner's shard

    await moveBucketsOffline(ds, { ranges: [MOVE], to: 's2' });
    expect(idsIn('s0.db', 'gx_users', 'id')).not.toContain(String(id));
    shards.length = 0;
    expect(await users.findOneBy({ email: 'moved@x' })).toMatchObject({ id, email: 'moved@x' });
    expect(shards).not.toContain('s0');
    expect(shards[shards.length - 1]).toBe('s2');
    shards.length = 0;
    expect(await users.findOneBy({ email: 'moved@x' })).toMatchObject({ id });
    expect(shards).toEqual(['s2']);
  });

  it('refuses buckets of several shards, a move onto their owner, and entities the store cannot place', async () => {
    const ds = await source().initialize();
    await expect(moveBucketsOffline(ds, { ranges: [{ from: 300, to: 400 }], to: 's2' })).rejects.toThrow(/several shards/);
    await expect(moveBucketsOffline(ds, { ranges: [{ from: 0, to: 10 }], to: 's0' })).rejects.toThrow(TopologyDocumentError);
    await expect(moveBucketsOffline(ds, { ranges: [{ from: 0, to: 10 }], to: 's9' })).rejects.toThrow(/not in topology/);
    expect(ds.topology.version).toBe(1);
    await ds.destroy();
    await expect(source([MovedOrder, ModEntity]).initialize()).rejects.toThrow(ShardingConfigError);
    await expect(source([MovedOrder, ModEntity]).initialize()).rejects.toThrow(/declares algorithm "mod"/);
  });
});
