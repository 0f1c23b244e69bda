import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITIES, Order } from './support/entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

/**
 * Deep pages over many shards, against one database holding the same rows. A deep page is read
 * by windows (each shard sends `LIMIT rows OFFSET start` around the page's expected place in it,
 * `plan/select/page-window.ts`) and cut exactly from them; when the shards' rows are too skewed
 * for the windows to prove the page, it runs again the plain way (each shard `LIMIT offset+count`
 * from row 0, streamed into the merge on MariaDB). Which way ran is read from the physical
 * statements. Ties of the sort key, with and without a total order, and NULL keys are covered.
 */
const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];
const TOTAL = 6000;
const SHARDS = 8;

/** `read()` once it holds `count` entries (streams stopped early report when drained), or as it is after 5 s. */
async function reported<T>(read: () => T[], count: number): Promise<T[]> {
  for (let waited = 0; waited < 5000 && read().length < count; waited += 20) await new Promise((r) => setTimeout(r, 20));
  return read();
}

/** `LIMIT <count> OFFSET <offset>` of each physical statement seen since `from`. */
function limitsOf(fx: Fixture, from: number): { count: number; offset: number }[] {
  return fx.physical.slice(from).map((e) => {
    const m = /LIMIT (\d+) OFFSET (\d+)\s*$/.exec(e.sql);
    if (!m) throw new Error(`no literal LIMIT … OFFSET in ${e.sql}`);
    return { count: Number(m[1]), offset: Number(m[2]) };
  });
}

describe.each(backends)('deep paging on %s', (backend) => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await openFixture(backend, ENTITIES, SHARDS, { streamThreshold: 100 });
    const shardOf = (id: string) => fx.sharded.shardingRules.ruleOf('orders')!.shardKey!.algorithm.shardIndexOf(id);
    const rows = Array.from({ length: TOTAL }, (_, i) => {
      const id = String(i + 1);
      return {
        id,
        // Correlated with the shard: ordering by it puts one shard's rows before the next one's (skew).
        buyerId: shardOf(id) * 10_000 + (i % 997),
        // Ties: 7 values and NULL.
        note: i % 5 === 0 ? null : `n${i % 7}`,
        // Ties: 120 rows per value.
        amount: (i * 7919) % 50,
        createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, i)),
      };
    });
    for (let i = 0; i < rows.length; i += 1000) {
      await fx.sharded.getRepository(Order).insert(rows.slice(i, i + 1000));
      await fx.plain.getRepository(Order).insert(rows.slice(i, i + 1000));
    }
  }, 120_000);
  afterAll(async () => fx?.close());

  it('returns the same deep pages as one database, read by windows', async () => {
    for (const skip of [0, 999, 2500, 4000, 5990, 6100]) {
      const options = { order: { amount: 'ASC' as const, id: 'DESC' as const }, skip, take: 20 };
      const from = fx.physical.length;
      const a = await fx.sharded.getRepository(Order).find(options);
      const b = await fx.plain.getRepository(Order).find(options);
      expect(a.map((o) => o.id)).toEqual(b.map((o) => o.id));
      if (skip >= 999 && skip < TOTAL) {
        // One round: every shard sent its window, far fewer rows than skip + 20.
        const limits = limitsOf(fx, from);
        expect(limits).toHaveLength(SHARDS);
        for (const l of limits) expect(l.count).toBeLessThan((skip + 20) / 2);
        if (skip >= 2500) for (const l of limits) expect(l.offset).toBeGreaterThan(0);
      }
    }
  });

  it('gives one database\'s page when the sort key ties and is not made total', async () => {
    for (const skip of [1000, 3333]) {
      const a = await fx.sharded.getRepository(Order).find({ order: { amount: 'DESC' }, skip, take: 30 });
      const b = await fx.plain.getRepository(Order).find({ order: { amount: 'DESC' }, skip, take: 30 });
      expect(a.map((o) => o.amount)).toEqual(b.map((o) => o.amount));
      expect(new Set(a.map((o) => o.id)).size).toBe(30);
      // Each row is a real row, whole: read back from one database by its id.
      const real = await fx.plain.getRepository(Order).findBy(a.map((o) => ({ id: o.id })));
      const byId = new Map(real.map((o) => [o.id, o]));
      for (const o of a) expect(o).toEqual(byId.get(o.id));
    }
  });

  it('orders NULL keys and ties as one database does', async () => {
    for (const skip of [1200, 4321]) {
      const options = { order: { note: 'DESC' as const, id: 'ASC' as const }, skip, take: 25 };
      const a = await fx.sharded.getRepository(Order).find(options);
      const b = await fx.plain.getRepository(Order).find(options);
      expect(a.map((o) => o.id)).toEqual(b.map((o) => o.id));
    }
  });

  it('runs a skewed deep page again the plain way, with the same page as one database', async () => {
    const options = { order: { buyerId: 'ASC' as const, id: 'ASC' as const }, skip: 4000, take: 20 };
    const from = fx.physical.length;
    const a = await fx.sharded.getRepository(Order).find(options);
    const b = await fx.plain.getRepository(Order).find(options);
    expect(a.map((o) => o.id)).toEqual(b.map((o) => o.id));
    // The windows first, then every shard from row 0 (streams the merge stopped reading early
    // are reported once drained, after the read returned).
    const limits = await reported(() => limitsOf(fx, from), 2 * SHARDS);
    expect(limits.filter((l) => l.offset > 0)).toHaveLength(SHARDS);
    expect(limits.filter((l) => l.offset === 0 && l.count === 4020)).toHaveLength(SHARDS);
    expect(limits.filter((l) => l.offset === 0 && l.count !== 4020)).toEqual([]);
  });

  it('reads windowed pages inside a transaction', async () => {
    const options = { order: { amount: 'ASC' as const, id: 'ASC' as const }, skip: 3000, take: 10 };
    const a = await fx.sharded.transaction((m) => m.getRepository(Order).find(options));
    const b = await fx.plain.getRepository(Order).find(options);
    expect(a.map((o) => o.id)).toEqual(b.map((o) => o.id));
  });

  it.runIf(backend === 'mariadb')('streams QueryBuilder.stream() through the merge in global order', async () => {
    const stream = await fx.sharded.getRepository(Order).createQueryBuilder('o').select('o.id', 'id').addSelect('o.amount', 'amount').orderBy('o.amount', 'DESC').addOrderBy('o.id', 'ASC').stream();
    const seen: { id: string; amount: number }[] = [];
    for await (const row of stream) seen.push(row as { id: string; amount: number });
    const expected = await fx.plain.query('SELECT id, amount FROM orders ORDER BY amount DESC, id ASC');
    expect(seen.map((r) => String(r.id))).toEqual(expected.map((r: { id: string }) => String(r.id)));
  });

  it('leaves every connection usable after pages that stopped reading early', async () => {
    for (let i = 0; i < 20; i++) await fx.sharded.getRepository(Order).find({ order: { buyerId: 'ASC', id: 'ASC' }, skip: 3000, take: 5 });
    expect(await fx.sharded.getRepository(Order).count()).toBe(TOTAL);
  });
});
