import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';
import type { DataSource } from 'typeorm';
import { UnsupportedShardingError, type ShardedDataSource } from '../../packages/typeorm-sharding/src/index.js';
import { prng } from './oracle.js';
import { Club, Coupon, Label, Product, ShopItem, ShopOrder, ShopShipment, ShopUser, Tag } from './shop-entities.js';

// Data and helpers of the shop relation tests: one generated data set loaded through save()
// with relations (so the junction rows are written by TypeORM itself), a canonical form of
// entity graphs for comparing a sharded answer with the plain one, and a check that every row
// of every sharded table sits on the shard its key names.

/** The generated shop, as plain objects (ids are small integers). */
export interface ShopData {
  readonly users: number[];
  readonly orders: { id: number; userId: number; total: number; status: string; labels: number[] }[];
  readonly items: { id: number; userId: number; orderId: number; sku: string; qty: number }[];
  readonly shipments: { id: number; userId: number; orderId: number; carrier: string }[];
  readonly products: { id: number; name: string; price: number; tags: number[] }[];
  readonly favorites: Map<number, number[]>;
  readonly coupons: { id: number; code: string; users: number[] }[];
  readonly clubs: { id: number; members: number[] }[];
  readonly tags: number[];
  readonly labels: number[];
}

/** A deterministic shop: some users without orders, orders without items or labels, tags without products. */
export function shopData(seed = 7, userCount = 14): ShopData {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[], p: number): T[] => xs.filter(() => rand() < p);
  const users = Array.from({ length: userCount }, (_, i) => i + 1);
  const tags = [1, 2, 3, 4, 5];
  const labels = [1, 2, 3, 4];
  const orders: ShopData['orders'] = [];
  const items: ShopData['items'] = [];
  const shipments: ShopData['shipments'] = [];
  for (const userId of users) {
    const count = userId % 4; // users 4, 8, 12 have no orders
    for (let k = 0; k < count; k++) {
      const id = 100 + orders.length;
      orders.push({ id, userId, total: Math.floor(rand() * 9), status: rand() < 0.5 ? 'new' : 'paid', labels: pick(labels, 0.4) });
      const n = Math.floor(rand() * 4);
      for (let j = 0; j < n; j++) items.push({ id: 1000 + items.length, userId, orderId: id, sku: `sku-${Math.floor(rand() * 5)}`, qty: 1 + Math.floor(rand() * 3) });
      if (rand() < 0.5) shipments.push({ id: 5000 + shipments.length, userId, orderId: id, carrier: rand() < 0.5 ? 'ups' : 'dhl' });
    }
  }
  const products = Array.from({ length: 8 }, (_, i) => ({ id: i + 1, name: `p${i + 1}`, price: 1 + Math.floor(rand() * 20), tags: pick(tags.slice(0, 4), 0.5) }));
  const favorites = new Map(users.map((u) => [u, pick(products.map((p) => p.id), 0.3)]));
  const coupons = [1, 2, 3].map((id) => ({ id, code: `c${id}`, users: id === 3 ? [] : pick(users, 0.4) }));
  const clubs = [1, 2, 3].map((id) => ({ id, members: pick(users, 0.3) }));
  return { users, orders, items, shipments, products, favorites, coupons, clubs, tags, labels };
}

/** Writes the shop through save() with relations, the same way on every data source. */
export async function loadShop(ds: DataSource, data: ShopData): Promise<void> {
  const tagRows = await ds.getRepository(Tag).save(data.tags.map((id) => ({ id, name: `t${id}` })));
  await ds.getRepository(Label).save(data.labels.map((id) => ({ id, name: `l${id}` })));
  await ds.getRepository(Product).save(data.products.map((p) => ({ ...p, tags: p.tags.map((t) => tagRows.find((r) => r.id === t)!) })));
  await ds.getRepository(Club).save(data.clubs.map((c) => ({ id: c.id, name: `club${c.id}` })));
  await ds.getRepository(ShopUser).save(
    data.users.map((id) => ({
      id,
      name: `u${id}`,
      favorites: data.favorites.get(id)!.map((p) => ({ id: p }) as Product),
      clubs: data.clubs.filter((c) => c.members.includes(id)).map((c) => ({ id: c.id }) as Club),
    })),
  );
  await ds.getRepository(ShopOrder).save(data.orders.map((o) => ({ ...o, labels: o.labels.map((id) => ({ id }) as Label) })));
  await ds.getRepository(ShopItem).save(data.items);
  await ds.getRepository(ShopShipment).save(data.shipments);
  // The broadcast owner writes the junction rows of the sharded inverse side.
  await ds.getRepository(Coupon).save(data.coupons.map((c) => ({ id: c.id, code: c.code, users: c.users.map((id) => ({ id }) as ShopUser) })));
}

/**
 * An entity graph as comparable data: objects with sorted keys, and arrays nested in objects
 * sorted (the order of a relation's entities is not fixed by any query). Top-level arrays keep
 * their order unless `set` is true.
 */
export function canonical(value: unknown, set = false): unknown {
  const walk = (v: unknown, sort: boolean): unknown => {
    if (Array.isArray(v)) {
      const out = v.map((x) => walk(x, true));
      return sort ? out.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0)) : out;
    }
    if (v !== null && typeof v === 'object' && !(v instanceof Date)) {
      return Object.fromEntries(Object.keys(v).sort().map((k) => [k, walk((v as Record<string, unknown>)[k], true)]));
    }
    return typeof v === 'bigint' ? String(v) : v;
  };
  return walk(value, set);
}

/** Runs `call` on the plain source and the sharded one and expects the same answer. */
export async function expectSame<T>(label: string, plain: DataSource, sharded: DataSource, call: (ds: DataSource) => Promise<T>, norm: (value: T) => unknown = (v) => canonical(v)): Promise<void> {
  const expected = norm(await call(plain));
  let actual: unknown;
  try {
    actual = norm(await call(sharded));
  } catch (error) {
    expect.fail(`${label}: the sharded source threw ${(error as Error).constructor.name}: ${(error as Error).message}`);
  }
  if (!isDeepStrictEqual(actual, expected)) expect(actual, label).toEqual(expected);
}

/** Expects the sharded source to refuse `call` with UnsupportedShardingError whose message matches every pattern. */
export async function expectRefused(label: string, sharded: DataSource, call: (ds: DataSource) => Promise<unknown>, ...patterns: RegExp[]): Promise<UnsupportedShardingError> {
  const error = await call(sharded).then(
    (value) => expect.fail(`${label}: expected a refusal, got ${JSON.stringify(value).slice(0, 300)}`),
    (e: unknown) => e,
  );
  expect(error, label).toBeInstanceOf(UnsupportedShardingError);
  for (const p of patterns) expect((error as Error).message, label).toMatch(p);
  return error as UnsupportedShardingError;
}

/**
 * Every row of every sharded table (junction tables included) lives on the shard its key
 * value names: read each shard's tables directly and return the misplaced rows.
 */
export async function misplacedRows(sharded: ShardedDataSource): Promise<string[]> {
  const problems: string[] = [];
  for (const rule of sharded.shardingRules.all()) {
    if (rule.distribution !== 'sharded') continue;
    const key = rule.shardKey!;
    for (const [index, name] of sharded.shardNames.entries()) {
      const ds = sharded.getShardDataSource(name);
      const q = (id: string) => ds.driver.escape(id);
      const rows: Record<string, unknown>[] = await ds.query(`SELECT ${q(key.columnName)} AS k FROM ${q(rule.tableName)}`);
      for (const row of rows) {
        const home = key.algorithm.shardIndexOf(row.k);
        if (home !== index) problems.push(`${rule.tableName}: key ${String(row.k)} is on ${name}, belongs on ${sharded.shardNames[home]}`);
      }
    }
  }
  return problems;
}

/** Row counts of every table on every shard of `sharded` and in `plain`: sharded tables sum up, broadcast ones are copied. */
export async function tableCounts(ds: DataSource, table: string): Promise<number> {
  const rows: { n: number | string }[] = await ds.query(`SELECT COUNT(*) AS n FROM ${ds.driver.escape(table)}`);
  return Number(rows[0]!.n);
}
