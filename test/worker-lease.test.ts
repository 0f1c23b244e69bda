import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ShardedDataSource, WorkerLeaseError, decodeSnowflake, type ShardingOptions } from '../packages/typeorm-sharding/src/index.js';
import { sqlLeaseStore } from '../packages/typeorm-sharding/src/keys/sql-lease-store.js';
import { GLOBAL_KEY_ENTITIES, GkOrder } from './support/global-key-entities.js';
import { createDatabases, dropDatabases, MARIADB, mariadbAvailable } from './support/mariadb.js';
import type { Backend } from './support/backends.js';
import { planGlobalKeys } from '../packages/typeorm-sharding/src/keys/global-keys.js';
import { FakeClock } from '../packages/typeorm-sharding/src/keys/testing/fake-clock.js';

// Issue 11, item 5: `workerId: 'lease'` gives every process its own worker id from a table on
// the default shard. Several ShardedDataSources over the same shards stand for several processes.

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];
const TABLE = 'typeorm_sharding_workers';
/** A process with a fixed worker id: it takes no lease, it only looks at the table. */
const OBSERVER: ShardingOptions = { keyGenerator: { workerId: 1000 } };

describe.each(backends)('leased worker ids on %s', (backend) => {
  let names: string[] = [];
  let dir = '';
  const open: ShardedDataSource[] = [];

  beforeEach(async () => {
    const prefix = `tsh_lease_${process.pid}_${Math.floor(Math.random() * 1e6)}`;
    names = [`${prefix}_s0`, `${prefix}_s1`];
    if (backend === 'mariadb') await createDatabases(names);
    else dir = mkdtempSync(join(tmpdir(), 'tsh-lease-'));
  });
  afterEach(async () => {
    for (const ds of open.splice(0)) if (ds.isInitialized) await ds.destroy();
    if (backend === 'mariadb') await dropDatabases(names);
    else rmSync(dir, { recursive: true, force: true });
  });

  /** One "process": a ShardedDataSource over the shared shards. */
  const start = async (sharding: ShardingOptions = { keyGenerator: { workerId: 'lease' } }, synchronize = open.length === 0): Promise<ShardedDataSource> => {
    const shards = names.map((database, i) => ({ name: `s${i}`, database: backend === 'mariadb' ? database : join(dir, `${i}.db`) }));
    const ds = new ShardedDataSource(
      backend === 'mariadb'
        ? ({ type: 'mariadb', ...MARIADB, username: MARIADB.user, entities: GLOBAL_KEY_ENTITIES, synchronize, shards, sharding } as never)
        : { type: 'better-sqlite3', entities: GLOBAL_KEY_ENTITIES, synchronize, shards, sharding },
    );
    open.push(ds);
    return ds.initialize();
  };
  /** Live leases of other processes on every worker id but `except`, in one statement. */
  const fillLeases = async (ds: ShardedDataSource, except?: number) => {
    await sqlLeaseStore(ds.getShardDataSource('s0')).prepare();
    const ids = Array.from({ length: 1024 }, (_, id) => id).filter((id) => id !== except);
    const until = Date.now() + 3_600_000;
    await ds.getShardDataSource('s0').query(`INSERT INTO ${TABLE} (worker_id, owner, expires_at) VALUES ${ids.map(() => '(?, ?, ?)').join(', ')}`, ids.flatMap((id) => [id, `other-${id}`, until]));
  };
  const leases = async (ds: ShardedDataSource) =>
    ((await ds.getShardDataSource('s0').query(`SELECT worker_id, owner, expires_at FROM ${TABLE} ORDER BY worker_id`)) as { worker_id: unknown; owner: string; expires_at: unknown }[]).map(
      (r) => ({ workerId: Number(r.worker_id), owner: r.owner, expiresAt: Number(r.expires_at) }),
    );

  it('gives two processes different worker ids, each held by a row on the default shard', async () => {
    const before = Date.now();
    const a = await start();
    const b = await start();
    expect(a.keyGenerator.workerId).not.toBe(b.keyGenerator.workerId);
    const rows = await leases(a);
    expect(rows.map((r) => r.workerId).sort((x, y) => x - y)).toEqual([a.keyGenerator.workerId, b.keyGenerator.workerId].sort((x, y) => x - y));
    for (const row of rows) {
      expect(row.owner).toContain(`:${process.pid}:`);
      expect(row.expiresAt).toBeGreaterThanOrEqual(before + 60_000);
    }
    // The table lives on the default shard only.
    expect(await b.getShardDataSource('s1').query(`SELECT COUNT(*) AS n FROM ${TABLE}`).catch(() => 'missing')).toBe('missing');
    const fromA = await a.getRepository(GkOrder).save([{ title: 'a1' }, { title: 'a2' }]);
    const fromB = await b.getRepository(GkOrder).save([{ title: 'b1' }, { title: 'b2' }]);
    expect(fromA.map((o) => decodeSnowflake(o.id).workerId)).toEqual([a.keyGenerator.workerId, a.keyGenerator.workerId]);
    expect(fromB.map((o) => decodeSnowflake(o.id).workerId)).toEqual([b.keyGenerator.workerId, b.keyGenerator.workerId]);
    expect(await a.getRepository(GkOrder).count()).toBe(4);
  });

  it('destroy() ends the lease right after the last id; the next holder of that worker id starts after it', async () => {
    const a = await start();
    const worker = a.keyGenerator.workerId;
    const generatorOfA = a.keyGenerator;
    const lastOfA = generatorOfA.nextId();
    await a.destroy();
    expect(() => generatorOfA.nextId()).toThrow(WorkerLeaseError);
    const released = (await leases(await start(OBSERVER))).find((r) => r.workerId === worker)!;
    expect(released.expiresAt).toBe(decodeSnowflake(lastOfA).time + 1);
    // Every other worker id is held by a live lease: the next process must take over this one.
    await fillLeases(open[1]!, worker);
    const c = await start(undefined, false);
    expect(c.keyGenerator.workerId).toBe(worker);
    const firstOfC = c.keyGenerator.nextId();
    expect(BigInt(firstOfC) > BigInt(lastOfA)).toBe(true);
    expect((await leases(c)).find((r) => r.workerId === worker)!.owner).not.toBe(released.owner);
  });

  it('refuses to initialize with WorkerLeaseError when every worker id is leased, and closes its shards', async () => {
    const first = await start(OBSERVER);
    await fillLeases(first);
    const error = await start(undefined, false).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkerLeaseError);
    expect((error as Error).message).toMatch(/All 1024 Snowflake worker ids are leased/);
    expect(open.at(-1)!.isInitialized).toBe(false);
  });

  it("the SQL store's conditional writes: a taken id, a stale takeover and a foreign owner change nothing", async () => {
    const ds = await start(OBSERVER);
    const store = sqlLeaseStore(ds.getShardDataSource('s0'), 'custom_leases');
    await store.prepare();
    await store.prepare();
    expect(await store.insert({ workerId: 3, owner: 'a', expiresAt: 1000 })).toBe(true);
    expect(await store.insert({ workerId: 3, owner: 'b', expiresAt: 2000 })).toBe(false);
    expect(await store.takeOver({ workerId: 3, owner: 'a', expiresAt: 999 }, 'b', 5000)).toBe(false);
    expect(await store.extend(3, 'b', 5000)).toBe(false);
    expect(await store.extend(3, 'a', 1500)).toBe(true);
    expect(await store.takeOver({ workerId: 3, owner: 'a', expiresAt: 1500 }, 'b', 5000)).toBe(true);
    expect(await store.list()).toEqual([{ workerId: 3, owner: 'b', expiresAt: 5000 }]);
    expect(store.canWriteNow()).toBe(true);
    if (backend === 'sqlite') {
      const shard = ds.getShardDataSource('s0');
      const runner = shard.createQueryRunner();
      await runner.startTransaction();
      expect(store.canWriteNow()).toBe(false);
      await runner.rollbackTransaction();
      expect(store.canWriteNow()).toBe(true);
    }
  });

  it('a leased generator never issues ids before the end of the previous lease, even after a clock step back', async () => {
    const ds = await start(OBSERVER);
    const t = Date.now();
    await fillLeases(ds, 5);
    await sqlLeaseStore(ds.getShardDataSource('s0')).insert({ workerId: 5, owner: 'gone', expiresAt: t - 1 });
    const clock = new FakeClock(t);
    const plan = planGlobalKeys({ workerId: 'lease' }, ds.entityMetadatas, backend === 'sqlite' ? 'sqlite' : 'mysql', (c) => String(ds.driver.normalizeType(c)));
    const keys = await plan!.start(ds.getShardDataSource('s0'), clock);
    try {
      expect(keys.generator.workerId).toBe(5);
      clock.time = t - 20;
      expect(() => keys.generator.nextId()).toThrow(/19 ms behind the end of the previous lease of worker id 5/);
      clock.time = t - 5;
      expect(decodeSnowflake(keys.generator.nextId()).time).toBe(t - 1);
      expect(clock.sleeps).toEqual([4]);
    } finally {
      await keys.stop();
    }
  });

  it('a fixed worker id uses no lease table', async () => {
    const ds = await start({ keyGenerator: { workerId: 12 } });
    expect(ds.keyGenerator.workerId).toBe(12);
    expect(await ds.getShardDataSource('s0').query(`SELECT COUNT(*) AS n FROM ${TABLE}`).catch(() => 'missing')).toBe('missing');
  });
});
