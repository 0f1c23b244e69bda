import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { In, type DataSource } from 'typeorm';
import { openFixture, type Fixture } from '../support/backends.js';
import { dropDatabases, mariadbAvailable } from '../support/mariadb.js';
import { expectSame, loadShop, misplacedRows, shopData } from '../support/shop.js';
import { Product, SHOP_ENTITIES, ShopItem, ShopOrder, ShopUser } from '../support/shop-entities.js';

// The differential-oracle property with a topology store: at version 1 (built from the
// configuration) a data source with `sharding.topology` answers as one plain database does and
// runs exactly the physical statements of the same data source without the store.

const CALLS: readonly [string, (ds: DataSource) => Promise<unknown>][] = [
  ['users with favorites and orders.items', (ds) => ds.getRepository(ShopUser).find({ relations: { favorites: true, orders: { items: true } }, order: { id: 'ASC' } })],
  ['orders of two users', (ds) => ds.getRepository(ShopOrder).find({ where: { userId: In([2, 7]) }, relations: { items: true }, order: { id: 'DESC' } })],
  ['orders paged', (ds) => ds.getRepository(ShopOrder).find({ order: { total: 'DESC', id: 'ASC' }, skip: 3, take: 5 })],
  ['items of one user counted', (ds) => ds.getRepository(ShopItem).findAndCount({ where: { userId: 3 }, order: { id: 'ASC' }, take: 2 })],
  ['products with tags (broadcast)', (ds) => ds.getRepository(Product).find({ relations: { tags: true }, order: { id: 'ASC' } })],
  ['aggregate per user', (ds) => ds.getRepository(ShopOrder).createQueryBuilder('o').select('o.userId', 'u').addSelect('SUM(o.total)', 't').groupBy('o.userId').orderBy('u').getRawMany()],
];

for (const backend of ['sqlite', 'mariadb'] as const) {
  const available = backend === 'sqlite' || (await mariadbAvailable());

  describe.runIf(available)(`a topology store at version 1 changes nothing on ${backend}`, () => {
    let without: Fixture;
    let withStore: Fixture;
    let dir: string;
    const meta = `tsh_parity_${process.pid}_meta`;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'tsh-parity-'));
      const topology = backend === 'sqlite' ? { file: join(dir, 'topology.db') } : { database: meta };
      without = await openFixture(backend, SHOP_ENTITIES, 4);
      withStore = await openFixture(backend, SHOP_ENTITIES, 4, { topology });
      for (const ds of [without.plain, without.sharded, withStore.sharded]) await loadShop(ds, shopData());
    });

    afterAll(async () => {
      await without?.close();
      await withStore?.close();
      if (backend === 'mariadb') await dropDatabases([meta]);
      rmSync(dir, { recursive: true, force: true });
    });

    it('same answers as one database, same physical statements as without the store, every row on its shard', async () => {
      expect(withStore.sharded.topology.version).toBe(1);
      for (const [label, call] of CALLS) {
        without.physical.length = 0;
        withStore.physical.length = 0;
        await expectSame(label, without.plain, withStore.sharded, call);
        await call(without.sharded);
        const statements = (f: Fixture) => f.physical.map((e) => `${e.shard}: ${e.sql} ${JSON.stringify(e.parameters)}`).sort();
        // Shard database names differ between the fixtures (their prefix): compare without them.
        const strip = (lines: string[]) => lines.map((l) => l.replace(/tsh_\d+_\d+_/g, 'tsh_'));
        expect(strip(statements(withStore)), label).toEqual(strip(statements(without)));
      }
      expect(await misplacedRows(withStore.sharded)).toEqual([]);
    });
  });
}
