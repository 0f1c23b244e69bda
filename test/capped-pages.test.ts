import 'reflect-metadata';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { ShardedDataSource, type PhysicalQueryEvent } from 'typeorm-sharding';
import { ENTITIES, Order } from './support/entities.js';
import { createDatabases, dropDatabases, MARIADB, mariadbAvailable } from './support/mariadb.js';

/**
 * Shallow pages over 16 shards on two servers (one MariaDB addressed as `a` and `b`), against
 * one database holding the same rows. A page whose shards each hold about (offset+count)/16 of
 * it is read capped (`plan/select/page-window.ts`'s `cappedInputRows`): each shard's branch of
 * its server's UNION ALL is sent `LIMIT cap` instead of `LIMIT offset+count` and tags its rows
 * with its shard; the server merges and cuts them to offset+count; a branch that filled its cap
 * among them may hold more, and the page then runs again the plain way. Which way ran is read
 * from the physical statements.
 */
const SHARDS = 16;
const TOTAL = 3000;
const PREFIX = `tsh_capped_${process.pid}`;

/** The LIMIT of each branch of the round trips seen since `from`, and the round trips' count. */
function branchLimits(events: readonly PhysicalQueryEvent[], from: number): { trips: number; limits: number[] } {
  const trips = events.slice(from);
  const limits = trips.flatMap((e) => (e.branches ?? [e]).map((b) => Number(/LIMIT (\d+)(?: OFFSET \d+)?\s*$/.exec(b.sql)?.[1] ?? NaN)));
  return { trips: trips.length, limits };
}

describe.runIf(await mariadbAvailable())('capped shallow pages over two servers (MariaDB)', () => {
  let sharded: ShardedDataSource;
  let uncapped: ShardedDataSource;
  let plain: DataSource;
  const events: PhysicalQueryEvent[] = [];
  const names = Array.from({ length: SHARDS }, (_, i) => `${PREFIX}_s${i}`);

  beforeAll(async () => {
    await createDatabases([...names, `${PREFIX}_plain`]);
    const server = { host: MARIADB.host, port: MARIADB.port, username: MARIADB.user, password: MARIADB.password };
    const open = (sharding: Record<string, unknown>) =>
      new ShardedDataSource({
        type: 'mariadb',
        username: MARIADB.user,
        password: '',
        entities: ENTITIES,
        synchronize: true,
        servers: [{ name: 'a', ...server }, { name: 'b', ...server }],
        shards: names.map((database, i) => ({ name: `s${i}`, server: i % 2 ? 'b' : 'a', database })),
        sharding,
      } as never);
    sharded = await open({ onPhysicalQuery: (e: PhysicalQueryEvent) => events.push(e) }).initialize();
    uncapped = await open({ pageWindows: false }).initialize();
    plain = await new DataSource({ type: 'mariadb', ...server, database: `${PREFIX}_plain`, entities: ENTITIES, synchronize: true }).initialize();
    const shardOf = (id: string) => sharded.shardingRules.ruleOf('orders')!.shardKey!.algorithm.shardIndexOf(id);
    const rows = Array.from({ length: TOTAL }, (_, i) => {
      const id = String(i + 1);
      return {
        id,
        // Correlated with the shard: ordering by it puts one shard's rows before the next one's (skew).
        buyerId: shardOf(id) * 10_000 + (i % 997),
        note: i % 5 === 0 ? null : `n${i % 7}`,
        // Ties: 60 rows per value.
        amount: (i * 7919) % 50,
        createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, (i * 7919) % TOTAL)),
      };
    });
    for (let i = 0; i < rows.length; i += 1000) {
      await sharded.getRepository(Order).insert(rows.slice(i, i + 1000));
      await plain.getRepository(Order).insert(rows.slice(i, i + 1000));
    }
  }, 120_000);
  afterAll(async () => {
    await sharded?.destroy();
    await uncapped?.destroy();
    await plain?.destroy();
    await dropDatabases([...names, `${PREFIX}_plain`]);
  });

  it('reads the first page of 20 as one round trip per server, each shard capped at 7 rows, the same page as one database', async () => {
    const options = { order: { createdAt: 'DESC' as const, id: 'DESC' as const }, take: 20 };
    const from = events.length;
    const a = await sharded.getRepository(Order).find(options);
    const b = await plain.getRepository(Order).find(options);
    expect(a).toEqual(b);
    const { trips, limits } = branchLimits(events, from);
    expect(trips).toBe(2);
    expect(limits).toEqual(Array(SHARDS).fill(7));
    for (const e of events.slice(from)) expect(e.sql).toMatch(/ORDER BY `__shard_key_0` DESC, `Order_id` DESC LIMIT 20$/);
    for (const e of events.slice(from)) for (const branch of e.branches ?? []) expect(branch.sql).toContain(`, ${String(branch.shard).slice(1)} AS \`__shard_branch\``);
  });

  it('gives TypeORM no tag column: raw rows are one database\'s', async () => {
    const qb = (ds: DataSource) => ds.getRepository(Order).createQueryBuilder('o').orderBy('o.amount', 'ASC').addOrderBy('o.id', 'ASC').offset(3).limit(25);
    const a = await qb(sharded).getRawMany();
    expect(a).toEqual(await qb(plain).getRawMany());
    expect(Object.keys(a[0]!)).not.toContain('__shard_branch');
  });

  it('runs a skewed page again the plain way (one shard holds the whole page), with the same page as one database', async () => {
    const options = { order: { buyerId: 'ASC' as const, id: 'ASC' as const }, skip: 5, take: 20 };
    const from = events.length;
    const a = await sharded.getRepository(Order).find(options);
    expect(a.map((o) => o.id)).toEqual((await plain.getRepository(Order).find(options)).map((o) => o.id));
    const { trips, limits } = branchLimits(events, from);
    // Capped (2 trips at LIMIT 8), then plain (2 trips at LIMIT 25).
    expect(trips).toBe(4);
    expect(limits.slice(0, SHARDS)).toEqual(Array(SHARDS).fill(8));
    expect(limits.slice(SHARDS)).toEqual(Array(SHARDS).fill(25));
  });

  it('returns one database\'s pages for random orders and pages, ties and NULL keys included', async () => {
    const orderArb = fc.constantFrom<Record<string, 'ASC' | 'DESC'>>(
      { createdAt: 'DESC', id: 'DESC' },
      { amount: 'ASC', id: 'DESC' },
      { amount: 'DESC', createdAt: 'ASC', id: 'ASC' },
      { buyerId: 'DESC', id: 'ASC' },
      { id: 'ASC' },
    );
    await fc.assert(
      fc.asyncProperty(orderArb, fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1, max: 60 }), async (order, skip, take) => {
        const options = { order, skip, take };
        const a = await sharded.getRepository(Order).find(options);
        const b = await plain.getRepository(Order).find(options);
        expect(a.map((o) => o.id)).toEqual(b.map((o) => o.id));
      }),
      { numRuns: 60 },
    );
  });

  it('orders ties by amount alone as one database would: the same amounts, whole rows', async () => {
    const a = await sharded.getRepository(Order).find({ order: { amount: 'DESC' }, skip: 10, take: 30 });
    const b = await plain.getRepository(Order).find({ order: { amount: 'DESC' }, skip: 10, take: 30 });
    expect(a.map((o) => o.amount)).toEqual(b.map((o) => o.amount));
    const real = new Map((await plain.getRepository(Order).findBy(a.map((o) => ({ id: o.id })))).map((o) => [o.id, o]));
    for (const o of a) expect(o).toEqual(real.get(o.id));
  });

  it('reads capped pages inside a transaction', async () => {
    const options = { order: { createdAt: 'ASC' as const, id: 'ASC' as const }, skip: 40, take: 20 };
    const from = events.length;
    const a = await sharded.transaction((m) => m.getRepository(Order).find(options));
    expect(a).toEqual(await plain.getRepository(Order).find(options));
    expect(Math.max(...branchLimits(events, from).limits)).toBeLessThan(60);
  });

  it('`pageWindows: false` sends every shard LIMIT offset+count, with the same page', async () => {
    const options = { order: { createdAt: 'DESC' as const, id: 'DESC' as const }, skip: 10, take: 20 };
    expect(await uncapped.getRepository(Order).find(options)).toEqual(await plain.getRepository(Order).find(options));
    const statements = uncapped.explain(...uncapped.getRepository(Order).createQueryBuilder('Order').setFindOptions(options).getQueryAndParameters());
    for (const s of statements) expect(s.sql).toMatch(/LIMIT 30 OFFSET 0\) ORDER BY .* LIMIT 30$/);
    expect(statements.every((s) => !s.sql.includes('__shard_branch'))).toBe(true);
  });
});
