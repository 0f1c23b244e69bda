import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import { In, type DataSource } from 'typeorm';
import { Entity, PrimaryColumn, Column } from 'typeorm';
import { ShardingConfigError, Sharded, ShardKey } from '../packages/typeorm-sharding/src/index.js';
import { GxLine, GxPurchase, LOOKUP_ENTITIES } from './support/global-index-entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

// Non-unique lookup indexes (`@Sharded({ lookups })`): many rows per value, the same maintenance
// in the owner's transaction as a global unique index, and reads by the value routed through it.

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];

const purchase = (id: number, buyerId: number, shopId = 1, sku: string | null = null): GxPurchase => ({ id, buyerId, shopId, sku });

/** The entries of the buyerId lookup, as `buyerId/id×refs`, sorted. */
async function buyerEntries(ds: DataSource): Promise<string[]> {
  const rows: { buyerId: unknown; id: unknown; gidx_refs: unknown }[] = await ds.query('SELECT buyerId, id, gidx_refs FROM gx_purchases__glookup_buyerId');
  return rows.map((r) => `${String(r.buyerId)}/${String(r.id)}×${String(r.gidx_refs)}`).sort();
}

/** What the entries should be, counted from the rows. */
async function expectedBuyerEntries(ds: DataSource): Promise<string[]> {
  const rows: { buyerId: unknown; id: unknown }[] = await ds.query('SELECT buyerId, id FROM gx_purchases');
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(`${String(r.buyerId)}/${String(r.id)}`, (counts.get(`${String(r.buyerId)}/${String(r.id)}`) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${k}×${n}`).sort();
}

describe.each(backends)('lookup indexes on %s', (backend) => {
  let fx: Fixture;
  afterEach(async () => fx?.close());

  it('keeps one counted entry per value and owner through inserts, value changes and deletes', async () => {
    fx = await openFixture(backend, LOOKUP_ENTITIES, 4);
    expect(fx.sharded.shardingRules.globalIndexes.map((g) => `${g.lookupTable} ${g.unique}`).sort()).toEqual(['gx_lines__glookup_productId false', 'gx_purchases__glookup_buyerId false', 'gx_purchases__glookup_shopId_sku false']);
    const repo = fx.sharded.getRepository(GxPurchase);
    await repo.insert([purchase(1, 7), purchase(2, 7), purchase(3, 7), purchase(4, 8, 2, 'a')]);
    expect(await buyerEntries(fx.sharded)).toEqual(['7/1×1', '7/2×1', '7/3×1', '8/4×1']);
    await repo.update({ id: 2 }, { buyerId: 8 });
    await fx.sharded.query('UPDATE gx_purchases SET buyerId = ? WHERE buyerId = ?', [9, 7]);
    expect(await buyerEntries(fx.sharded)).toEqual(await expectedBuyerEntries(fx.sharded));
    await repo.delete({ buyerId: 8 });
    expect(await buyerEntries(fx.sharded)).toEqual(['9/1×1', '9/3×1']);
    const composite: unknown[] = await fx.sharded.query('SELECT shopId, sku, id FROM gx_purchases__glookup_shopId_sku');
    expect(composite).toEqual([]); // (2, 'a') went with row 4; the others have no sku (NULL is not indexed)
  });

  it('counts several rows of one value on one owner key, and a rolled-back statement leaves the count as it was', async () => {
    fx = await openFixture(backend, LOOKUP_ENTITIES, 4);
    const repo = fx.sharded.getRepository(GxPurchase);
    await repo.insert([purchase(1, 5, 1, 'x'), purchase(2, 5, 1, 'x')]);
    await expect(repo.insert([purchase(3, 5, 1, 'x'), purchase(1, 5, 1, 'x')])).rejects.toThrow(); // duplicate primary key: the whole statement undone
    const rows: { id: unknown; gidx_refs: unknown }[] = await fx.sharded.query('SELECT id, gidx_refs FROM gx_purchases__glookup_shopId_sku ORDER BY id');
    expect(rows.map((r) => `${String(r.id)}×${String(r.gidx_refs)}`)).toEqual(['1×1', '2×1']);
    await expect(fx.sharded.transaction(async (em) => {
      await em.getRepository(GxPurchase).delete({ id: 1 });
      throw new Error('application failure');
    })).rejects.toThrow('application failure');
    expect(await buyerEntries(fx.sharded)).toEqual(['5/1×1', '5/2×1']);
  });

  it('counts the rows of one value on one shard key: the entry goes with the last of them', async () => {
    fx = await openFixture(backend, LOOKUP_ENTITIES, 4);
    const lines = fx.sharded.getRepository(GxLine);
    const entries = async () =>
      ((await fx.sharded.query('SELECT productId, orderId, gidx_refs FROM gx_lines__glookup_productId')) as Record<string, unknown>[]).map((r) => `${String(r.productId)}/${String(r.orderId)}×${String(r.gidx_refs)}`).sort();
    await lines.insert([{ orderId: 1, line: 1, productId: 7 }, { orderId: 1, line: 2, productId: 7 }, { orderId: 1, line: 3, productId: 7 }, { orderId: 2, line: 1, productId: 7 }]);
    expect(await entries()).toEqual(['7/1×3', '7/2×1']);
    await lines.delete({ orderId: 1, line: 1 });
    await lines.update({ orderId: 1, line: 2 }, { productId: 8 });
    expect(await entries()).toEqual(['7/1×1', '7/2×1', '8/1×1']);
    expect((await lines.findBy({ productId: 7 })).map((l) => `${l.orderId}.${l.line}`).sort()).toEqual(['1.3', '2.1']);
    await lines.delete({ orderId: 1 });
    expect(await entries()).toEqual(['7/2×1']);
    expect((await fx.sharded.checkIndexes()).findings).toEqual([]);
  });

  it('routes WHERE buyerId = ? / IN through the lookup to the owners\' shards only, one plan per shape', async () => {
    fx = await openFixture(backend, LOOKUP_ENTITIES, 8);
    const repo = fx.sharded.getRepository(GxPurchase);
    await repo.insert(Array.from({ length: 40 }, (_, i) => purchase(i + 1, 100 + (i % 5))));
    await fx.plain.getRepository(GxPurchase).insert(Array.from({ length: 40 }, (_, i) => purchase(i + 1, 100 + (i % 5))));
    const plans = fx.sharded.planCacheStats.size;
    for (const buyerId of [100, 101, 102, 103, 104, 999]) {
      fx.physical.length = 0;
      const found = await repo.find({ where: { buyerId }, order: { id: 'ASC' } });
      const expected = await fx.plain.getRepository(GxPurchase).find({ where: { buyerId }, order: { id: 'ASC' } });
      expect(found).toEqual(expected);
      const lookups = fx.physical.filter((e) => /gx_purchases__glookup_buyerId/.test(e.sql));
      expect(lookups.map((e) => e.shard)).toEqual([fx.sharded.shardOf('gx_purchases__glookup_buyerId', buyerId)]);
      const owners = fx.physical.filter((e) => !/__glookup_/.test(e.sql)).map((e) => e.shard).sort();
      expect(owners).toEqual([...new Set(expected.map((p) => fx.sharded.shardOf(GxPurchase, p.id)))].sort());
    }
    const some = await repo.find({ where: { buyerId: In([101, 103]) }, order: { id: 'ASC' } });
    expect(some).toEqual(await fx.plain.getRepository(GxPurchase).find({ where: { buyerId: In([101, 103]) }, order: { id: 'ASC' } }));
    expect(fx.sharded.planCacheStats.size - plans).toBeLessThanOrEqual(6); // a few shapes (find, IN, lookup reads), not one per value
  });

  it('routes a composite lookup when the WHERE pins every one of its columns, and scatters when it pins only some', async () => {
    fx = await openFixture(backend, LOOKUP_ENTITIES, 8);
    const rows = Array.from({ length: 24 }, (_, i) => purchase(i + 1, 1, 1 + (i % 3), `k${i % 4}`));
    await fx.sharded.getRepository(GxPurchase).insert(rows);
    await fx.plain.getRepository(GxPurchase).insert(rows);
    const read = (ds: DataSource, where: object) => ds.getRepository(GxPurchase).find({ where, order: { id: 'ASC' } });
    const cases = [
      { where: { shopId: 2, sku: 'k1' }, shops: [2] },
      { where: { shopId: In([1, 3]), sku: In(['k0', 'k3']) }, shops: [1, 3] },
      { where: { shopId: 2, sku: 'none' }, shops: [2] },
    ];
    for (const { where, shops } of cases) {
      fx.physical.length = 0;
      const found = await read(fx.sharded, where);
      expect(found).toEqual(await read(fx.plain, where));
      // The lookup table is sharded by its first column: one statement per shard of the shopIds.
      expect(fx.physical.filter((e) => /__glookup_shopId_sku/.test(e.sql))).toHaveLength(new Set(shops.map((v) => fx.sharded.shardOf('gx_purchases__glookup_shopId_sku', v))).size);
      const owners = fx.physical.filter((e) => !/__glookup_/.test(e.sql)).map((e) => e.shard).sort();
      expect(owners).toEqual([...new Set(found.map((p) => fx.sharded.shardOf(GxPurchase, p.id)))].sort());
    }
    fx.physical.length = 0;
    expect(await read(fx.sharded, { sku: 'k1' })).toEqual(await read(fx.plain, { sku: 'k1' }));
    expect(fx.physical.filter((e) => /__glookup_/.test(e.sql))).toEqual([]);
    expect(new Set(fx.physical.map((e) => e.shard)).size).toBe(8);
  });

  it('refuses a lookup on the shard key, on an unknown property and one that repeats a unique key', async () => {
    @Entity('lk_bad_key') @Sharded({ lookups: ['id'] })
    class OnKey { @PrimaryColumn('int') @ShardKey() id!: number; }
    @Entity('lk_bad_name') @Sharded({ lookups: ['nope'] })
    class Unknown { @PrimaryColumn('int') @ShardKey() id!: number; }
    @Entity('lk_bad_unique') @Sharded({ lookups: ['email'] })
    class Repeats { @PrimaryColumn('int') @ShardKey() id!: number; @Column({ type: 'varchar', length: 40, unique: true }) email!: string; }
    await expect(openFixture('sqlite', [OnKey], 2)).rejects.toThrow(/contains the shard key "id"/);
    await expect(openFixture('sqlite', [Unknown], 2)).rejects.toThrow(/"nope", which is not a column/);
    await expect(openFixture('sqlite', [Repeats], 2)).rejects.toThrow(ShardingConfigError);
  });
});
