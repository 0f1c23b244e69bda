import 'reflect-metadata';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Column, Entity, In, PrimaryColumn } from 'typeorm';
import { Sharded, ShardKey, ShardedDataSource, type PhysicalQueryEvent } from '../packages/typeorm-sharding/src/index.js';
import { MARIADB, mariadbAvailable } from './support/mariadb.js';

// Issue 9: servers as the unit of connection. Shards are databases on a server; the server's
// one pool serves them all, a scattered read is one round trip per server (UNION ALL), and a
// transaction over shards of one server is one local transaction.

@Entity('server_items')
@Sharded()
class Item {
  @PrimaryColumn('bigint') @ShardKey() id!: string;
  @Column('int') qty!: number;
}

/** A MariaDB account of this test alone: its sessions are counted in PROCESSLIST. */
const USERS = ['tsh_srv_a', 'tsh_srv_b'] as const;
const PREFIX = `tsh_srv_${process.pid}`;

async function admin<T>(work: (c: mysql.Connection) => Promise<T>): Promise<T> {
  const c = await mysql.createConnection({ ...MARIADB, multipleStatements: true });
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

/** `count` shard databases with the items table, created in one round trip per 64. */
async function createShards(tag: string, count: number): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => `${PREFIX}_${tag}_${i}`);
  await admin(async (c) => {
    for (let i = 0; i < names.length; i += 64) {
      const sql = names
        .slice(i, i + 64)
        .map((n) => `DROP DATABASE IF EXISTS \`${n}\`; CREATE DATABASE \`${n}\`; CREATE TABLE \`${n}\`.server_items (id BIGINT PRIMARY KEY, qty INT NOT NULL);`)
        .join(' ');
      await c.query(sql);
    }
  });
  return names;
}

async function dropShards(names: readonly string[]): Promise<void> {
  await admin(async (c) => {
    for (let i = 0; i < names.length; i += 64) await c.query(names.slice(i, i + 64).map((n) => `DROP DATABASE IF EXISTS \`${n}\`;`).join(' '));
  });
}

/** Sessions of `user` open on the server now (the server drops closed ones asynchronously: polled). */
async function sessionsOf(user: string, expected?: number): Promise<number> {
  return admin(async (c) => {
    let n = -1;
    for (let i = 0; i < 50; i++) {
      const [rows] = await c.query('SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE USER = ?', [user]);
      n = Number((rows as { n: number }[])[0]!.n);
      if (expected === undefined || n === expected) return n;
      await new Promise((r) => setTimeout(r, 100));
    }
    return n;
  });
}

function source(databases: readonly string[], options: { user?: string; serverOf?: (i: number) => string; events?: PhysicalQueryEvent[]; maxBranches?: number; poolSize?: number } = {}): ShardedDataSource {
  const servers = options.serverOf ? USERS.map((user, i) => ({ name: `srv${i}`, host: MARIADB.host, port: MARIADB.port, username: user, password: 'pw', ...(options.poolSize ? { poolSize: options.poolSize } : {}) })) : undefined;
  return new ShardedDataSource({
    type: 'mariadb',
    ...(servers ? {} : { host: MARIADB.host, port: MARIADB.port, username: options.user ?? USERS[0], password: 'pw', ...(options.poolSize ? { poolSize: options.poolSize } : {}) }),
    ...(servers ? { servers } : {}),
    entities: [Item],
    shards: databases.map((database, i) => ({ name: `s${i}`, database, ...(options.serverOf ? { server: options.serverOf(i) } : {}) })),
    sharding: {
      ...(options.maxBranches ? { coalesce: { maxBranches: options.maxBranches } } : {}),
      ...(options.events ? { onPhysicalQuery: (e: PhysicalQueryEvent) => options.events!.push(e) } : {}),
    },
  } as never);
}

describe.runIf(await mariadbAvailable())('servers as the unit of connection (MariaDB)', () => {
  beforeAll(async () => {
    await admin(async (c) => {
      for (const user of USERS) {
        await c.query(`DROP USER IF EXISTS '${user}'@'%'`);
        await c.query(`CREATE USER '${user}'@'%' IDENTIFIED BY 'pw'`);
        await c.query(`GRANT ALL ON \`${PREFIX}\\_%\`.* TO '${user}'@'%'`);
      }
    });
  });
  afterAll(async () => {
    await admin(async (c) => {
      for (const user of USERS) await c.query(`DROP USER IF EXISTS '${user}'@'%'`);
    });
  });

  it('a scattered read over 64 shards of one server is one round trip per 16 shards, with the same rows', async () => {
    const databases = await createShards('rt', 64);
    const events: PhysicalQueryEvent[] = [];
    const ds = await source(databases, { events }).initialize();
    try {
      const ids = Array.from({ length: 200 }, (_, i) => String(i + 1));
      await ds.getRepository(Item).insert(ids.map((id) => ({ id, qty: Number(id) % 7 })));
      events.length = 0;
      const rows = await ds.getRepository(Item).find({ where: { id: In(ids) }, order: { qty: 'DESC', id: 'ASC' } });
      expect(rows.map((r) => r.id)).toEqual([...ids].sort((a, b) => Number(b) % 7 - Number(a) % 7 || Number(a) - Number(b)));
      // 200 keys reach all 64 shards: 4 statements of 16 shards each, all on the one server.
      expect(events.map((e) => [e.server, e.shards.length])).toEqual(Array.from({ length: 4 }, () => [`${MARIADB.host}:${MARIADB.port}`, 16]));
      expect(events.flatMap((e) => e.shards).sort()).toEqual(Array.from({ length: 64 }, (_, i) => `s${i}`).sort());
      // The per-shard statements are there on request.
      expect(events[0]!.branches).toHaveLength(16);
      expect(events[0]!.branches![0]!.sql).toMatch(/FROM `tsh_srv_\d+_rt_\d+`\.`server_items`/);
      // Aggregates over every shard: still one round trip per 16 shards, partial rows merged.
      events.length = 0;
      const [total] = await ds.query('SELECT COUNT(*) AS n, SUM(qty) AS s, MAX(id) AS m FROM server_items');
      expect(total).toEqual({ n: '200', s: String(ids.reduce((s, id) => s + (Number(id) % 7), 0)), m: '200' });
      expect(events).toHaveLength(4);
    } finally {
      await ds.destroy();
      await dropShards(databases);
    }
  });

  it('shards on two servers: one round trip per server, named in the events', async () => {
    const databases = await createShards('two', 8);
    const events: PhysicalQueryEvent[] = [];
    const ds = await source(databases, { serverOf: (i) => `srv${i % 2}`, events }).initialize();
    try {
      const ids = Array.from({ length: 40 }, (_, i) => String(i + 1));
      await ds.getRepository(Item).insert(ids.map((id) => ({ id, qty: 1 })));
      events.length = 0;
      expect(await ds.getRepository(Item).countBy({ id: In(ids) })).toBe(40);
      expect(events.map((e) => e.server).sort()).toEqual(['srv0', 'srv1']);
      expect(events.find((e) => e.server === 'srv0')!.shards).toEqual(['s0', 's2', 's4', 's6']);
      // Each server's sessions belong to its own account: one pool per server.
      expect(await sessionsOf(USERS[0])).toBeGreaterThan(0);
      expect(await sessionsOf(USERS[1])).toBeGreaterThan(0);
    } finally {
      await ds.destroy();
      await dropShards(databases);
    }
    expect(await sessionsOf(USERS[0], 0)).toBe(0);
    expect(await sessionsOf(USERS[1], 0)).toBe(0);
  });

  it('a transaction over shards of one server is one local transaction: a connection lost before COMMIT leaves every shard unchanged', async () => {
    const databases = await createShards('tx', 8);
    const ds = await source(databases).initialize();
    // Keys off the default shard, whose connection the CONNECTION_ID() below reads: with a
    // connection per shard it would commit last, after the others had committed.
    const ids = Array.from({ length: 64 }, (_, i) => String(i + 1)).filter((id) => ds.shardOf(Item, id) !== 's0').slice(0, 16);
    try {
      const shardsTouched = new Set(ids.map((id) => ds.shardOf(Item, id)));
      expect(shardsTouched.size).toBeGreaterThan(4);
      const failure = await ds
        .transaction(async (m) => {
          await m.getRepository(Item).insert(ids.map((id) => ({ id, qty: 1 })));
          // Another session cannot see the writes yet on any shard.
          expect(await admin(async (c) => Number(((await c.query(databases.map((d) => `SELECT COUNT(*) AS n FROM \`${d}\`.server_items`).join(' UNION ALL ')))[0] as { n: number }[]).reduce((s, r) => s + Number(r.n), 0)))).toBe(0);
          // All shards of the server share one connection: kill it, then COMMIT.
          const { id } = ((await m.query('SELECT CONNECTION_ID() AS id')) as { id: number }[])[0]!;
          await admin((c) => c.query(`KILL CONNECTION ${Number(id)}`));
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(failure).toBeInstanceOf(Error);
      expect(await ds.getRepository(Item).count()).toBe(0);
      // And the successful one is there on every shard.
      await ds.transaction((m) => m.getRepository(Item).insert(ids.map((id) => ({ id, qty: 2 }))));
      expect(await ds.getRepository(Item).count()).toBe(16);
      for (const id of ids) expect(((await ds.getShardDataSource(ds.shardOf(Item, id)).query('SELECT qty FROM server_items WHERE id = ?', [id])) as unknown[]).length).toBe(1);
    } finally {
      await ds.destroy();
      await dropShards(databases);
    }
  });

  it('64 shards under 64 concurrent clients stay within the server pool (no "Too many connections"), and close it all', async () => {
    const databases = await createShards('conn', 64);
    const ds = await source(databases, { poolSize: 8 }).initialize();
    try {
      const ids = Array.from({ length: 256 }, (_, i) => String(i + 1));
      await ds.getRepository(Item).insert(ids.map((id) => ({ id, qty: 1 })));
      const peak = { n: 0 };
      const sample = setInterval(() => void sessionsOf(USERS[0]).then((n) => (peak.n = Math.max(peak.n, n))), 20);
      try {
        const clients = Array.from({ length: 64 }, async (_, c) => {
          for (let round = 0; round < 5; round++) {
            const some = ids.filter((_, i) => (i + c + round) % 9 === 0);
            expect(await ds.getRepository(Item).countBy({ id: In(some) })).toBe(some.length);
            await ds.getRepository(Item).findOneByOrFail({ id: ids[(c * 7 + round) % ids.length]! });
          }
        });
        await Promise.all(clients);
      } finally {
        clearInterval(sample);
      }
      // One pool of 8 for 64 shards (one more while initialising is released).
      expect(peak.n).toBeLessThanOrEqual(8);
    } finally {
      await ds.destroy();
      await dropShards(databases);
    }
    expect(await sessionsOf(USERS[0], 0)).toBe(0);
  });

  it('1,024 logical shards on one server initialise and serve', async () => {
    const databases = await createShards('k', 1024);
    const ds = source(databases);
    try {
      await ds.initialize();
      const ids = Array.from({ length: 3000 }, (_, i) => String(i + 1));
      for (let i = 0; i < ids.length; i += 500) await ds.getRepository(Item).insert(ids.slice(i, i + 500).map((id) => ({ id, qty: 1 })));
      expect(await ds.getRepository(Item).count()).toBe(3000);
      expect((await ds.getRepository(Item).findBy({ id: In(['1', '512', '2999']) })).map((r) => r.id).sort()).toEqual(['1', '2999', '512']);
      expect(await sessionsOf(USERS[0])).toBeLessThanOrEqual(10);
    } finally {
      await ds.destroy();
      await dropShards(databases);
    }
  }, 240_000);
});
