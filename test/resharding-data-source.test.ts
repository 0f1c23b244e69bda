import 'reflect-metadata';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Broadcast, reshardingOf, ShardedDataSource, Sharded, ShardKey, crc32, ReshardingError, TopologyChangedError } from '../packages/typeorm-sharding/src/index.js';
import { createDatabases, dropDatabases } from './support/mariadb.js';
import { binlogMariadb } from './support/binlog-mariadb.js';
import { serverConn } from './support/resharding-env.js';

// The user's path: a ShardedDataSource with `sharding.topology`, writing through repositories
// while `reshardingOf(ds)` splits shard s1 onto a new shard (a database the configuration does
// not list); after the switch the application's writes to the moved buckets land on the new
// shard, and a broadcast table was copied there.

@Entity('mv_orders')
@Sharded()
class Order {
  @PrimaryColumn('bigint') @ShardKey() id!: string;
  @Column('varchar', { length: 40 }) name!: string;
  @Column('decimal', { precision: 12, scale: 2 }) amount!: string;
}

// Partitioned by the server inside each shard database: the move copies the partitioning too.
@Entity('mv_events')
@Sharded({ partitions: 4 })
class Event {
  @PrimaryColumn('bigint') @ShardKey() id!: string;
  @Column('varchar', { length: 40 }) kind!: string;
}

@Entity('mv_regions')
@Broadcast()
class Region {
  @PrimaryColumn('varchar', { length: 8 }) code!: string;
  @Column('varchar', { length: 40 }) label!: string;
}

// The mover needs a ROW binlog: a mariadbd of this file's own (port 3624), not the machine's MariaDB.
const BINLOG = await binlogMariadb(3624);
const MARIADB = BINLOG.server;
const available = BINLOG.available;
afterAll(() => BINLOG.stop());
const P = `tsh_mvds_${process.pid}`;
const DB = { s0: `${P}_s0`, s1: `${P}_s1`, s2: `${P}_s2`, meta: `${P}_meta` };
const bucketOf = (key: string | number) => crc32(Buffer.from(String(key), 'utf8')) % 1024;

const source = () =>
  new ShardedDataSource({
    type: 'mariadb',
    entities: [Order, Region, Event],
    synchronize: true,
    servers: [{ name: 'main', host: MARIADB.host, port: MARIADB.port, username: MARIADB.user, password: '' }],
    shards: [
      { name: 's0', server: 'main', database: DB.s0 },
      { name: 's1', server: 'main', database: DB.s1 },
    ],
    sharding: { topology: { server: 'main', database: DB.meta, refreshMs: 100 } },
  } as never);

describe.runIf(available)('resharding a ShardedDataSource', () => {
  let app: ShardedDataSource;
  let ops: ShardedDataSource;
  beforeAll(async () => {
    await createDatabases([DB.s0, DB.s1], MARIADB);
    await dropDatabases([DB.s2, DB.meta], MARIADB);
    app = await source().initialize();
    ops = await source().initialize();
  });
  afterAll(async () => {
    await app?.destroy();
    await ops?.destroy();
    await dropDatabases(Object.values(DB), MARIADB);
  });

  it('splits s1 onto a new shard while the application writes through its repositories', async () => {
    const repo = app.getRepository(Order);
    await app.getRepository(Region).save([{ code: 'eu', label: 'Europe' }]);
    await repo.save(Array.from({ length: 200 }, (_, i) => ({ id: String(i + 1), name: `o${i + 1}`, amount: '1.00' })));
    const events = Array.from({ length: 300 }, (_, i) => ({ id: String(i + 1), kind: `k${i % 5}` }));
    await app.getRepository(Event).save(events);
    const mover = reshardingOf(ops);
    const id = await mover.split('s1', 's2', 'main', DB.s2);
    let running = true;
    let n = 0;
    const writes = (async () => {
      while (running) {
        const key = String(1 + (n++ % 250));
        // save() runs in a transaction: refused by the fence, it fails with the retryable
        // TopologyChangedError and the caller retries it (the topology contract).
        for (;;) {
          try {
            await repo.save({ id: key, name: `w${n}`, amount: `${n}.00` });
            break;
          } catch (error) {
            if (!(error instanceof TopologyChangedError)) throw error;

          }
        }
      }
    })();
    await mover.start(id);
    expect(Object.values(await mover.verify(id)).every((r) => r.mismatches.length === 0)).toBe(true);
    await mover.switch(id);
    expect(ops.topology.version).toBe(2);
    await new Promise((r) => setTimeout(r, 400));
    running = false;
    await writes;
    await app.topology.refresh();
    expect(app.topology.version).toBe(2);
    // Writes after the switch go to s2: save one row of each half of s1's buckets and look at the databases.
    const upper = Array.from({ length: 2000 }, (_, i) => i + 1).find((k) => bucketOf(k) >= 768)!;
    const lower = Array.from({ length: 2000 }, (_, i) => i + 1).find((k) => bucketOf(k) >= 512 && bucketOf(k) < 768)!;
    await repo.save([{ id: String(upper), name: 'after', amount: '9.00' }, { id: String(lower), name: 'after', amount: '9.00' }]);
    const server = { name: 'main', ...MARIADB };
    const c = await serverConn(server, DB.s2);
    const [rows] = await c.query('SELECT id, name FROM mv_orders WHERE id IN (?, ?)', [upper, lower]);
    const [regions] = await c.query('SELECT code FROM mv_regions');
    const [[eventTable]] = (await c.query('SHOW CREATE TABLE mv_events')) as unknown as [Record<string, string>[]];
    const [moved] = (await c.query('SELECT id FROM mv_events')) as unknown as [{ id: string }[]];
    await c.end();
    expect(rows).toEqual([{ id: String(upper), name: 'after' }]);
    expect(regions).toEqual([{ code: 'eu' }]);
    // The partitioned table arrived partitioned, holding exactly the moved buckets' rows.
    expect(eventTable!['Create Table']).toMatch(/PARTITION BY KEY \(`id`\)\s*PARTITIONS 4/);
    expect(moved.map((r) => r.id).sort()).toEqual(events.filter((e) => bucketOf(e.id) >= 768).map((e) => e.id).sort());
    expect(await app.getRepository(Event).find({ order: { id: 'ASC' } })).toEqual([...events].sort((a, b) => Number(a.id) - Number(b.id)));
    // Every row the application can read is what it last wrote.
    const all = await repo.find({ order: { id: 'ASC' } });
    expect(all.length).toBeGreaterThanOrEqual(200);
    await mover.complete(id, { clientTimeoutMs: 5000 });
    await mover.close();
  });

  it('refuses SQLite and table rules it cannot move, with a typed error', async () => {
    const sqlite = new ShardedDataSource({ type: 'better-sqlite3', entities: [Order], shards: [{ name: 'a', database: ':memory:' }] } as never);
    expect(() => reshardingOf(sqlite)).toThrow(ReshardingError);
  });
});
