/**
 * ShardingRules built from plain data, for the pure stages' tests (plan, route, rewrite,
 * write, engine.explain): no decorators, no DataSource, no database.
 */
import { createAlgorithm, createTableLayout, type KeyKind, type TableLayoutOption } from '../../algorithms/index.js';
import { placementOf, ShardingRules, type Colocation, type TableRule } from '../../rules/index.js';
import type { TableDistribution } from '../plan.js';

/** One table as a test declares it. */
export interface FakeTable {
  /** Table name as TypeORM writes it in SQL. */
  readonly table: string;
  /** Entity name; defaults to the table name. */
  readonly entity?: string;
  readonly distribution: TableDistribution;
  /** Database column name → TypeORM column type (`'bigint'`, `'varchar'`, …). */
  readonly columns: Readonly<Record<string, string>>;
  /** Collation per column, for the merge's case-insensitive string comparison. */
  readonly collations?: Readonly<Record<string, string>>;
  /** Unique keys (database column names), for the upsert checks; the first is reported as the primary key. */
  readonly uniqueKeys?: readonly (readonly string[])[];
  /** Present for sharded tables. */
  readonly key?: {
    readonly column: string;
    /** @default 'mod' */
    readonly algorithm?: 'mod' | 'hash';
    /** @default 'integer' */
    readonly kind?: KeyKind;
    /** A table-per-shard layout (`@Sharded({ tables })`). */
    readonly tables?: TableLayoutOption;
  };
}

/** Four shards, as in the PolarDB-X article's example. */
export const FOUR_SHARDS: readonly string[] = ['s0', 's1', 's2', 's3'];

/**
 * The tables the pure-stage tests share:
 * - `orders`: sharded by `id`, mod over the shards (ids 1, 2, 4, 5, 9 → shards 1, 2, 0, 1, 1 of 4);
 * - `order_items`: sharded by `orderId`, mod: a binding table of `orders`;
 * - `customers`: sharded by `id` with the hash algorithm (joins with `orders` are not aligned);
 * - `codes`: sharded by a string key `code` (hash);
 * - `regions`: broadcast;  `users`: unsharded (lives on the default shard).
 */
export const SHOP_TABLES: readonly FakeTable[] = [
  {
    table: 'orders',
    entity: 'Order',
    distribution: 'sharded',
    columns: { id: 'bigint', buyerId: 'int', createdAt: 'datetime', note: 'varchar', regionId: 'int' },
    key: { column: 'id' },
  },
  {
    table: 'order_items',
    entity: 'OrderItem',
    distribution: 'sharded',
    columns: { id: 'bigint', orderId: 'bigint', sku: 'varchar', qty: 'int' },
    collations: { sku: 'utf8mb4_bin' },
    key: { column: 'orderId' },
  },
  {
    table: 'customers',
    entity: 'Customer',
    distribution: 'sharded',
    columns: { id: 'bigint', name: 'varchar' },
    key: { column: 'id', algorithm: 'hash' },
  },
  {
    table: 'codes',
    entity: 'Code',
    distribution: 'sharded',
    columns: { code: 'varchar', label: 'varchar' },
    key: { column: 'code', algorithm: 'hash', kind: 'string' },
  },
  { table: 'regions', entity: 'Region', distribution: 'broadcast', columns: { id: 'int', name: 'varchar' } },
  { table: 'users', entity: 'User', distribution: 'unsharded', columns: { id: 'int', name: 'varchar' } },
];

/** Builds the rules of `tables` over `shardNames`; entity metadata is a minimal stub. */
export function fakeRules(tables: readonly FakeTable[] = SHOP_TABLES, shardNames: readonly string[] = FOUR_SHARDS, colocation?: Colocation): ShardingRules {
  const rules: TableRule[] = tables.map((t) => {
    const name = t.entity ?? t.table;
    const target = { [name]: class {} }[name]!;
    const columns = Object.entries(t.columns).map(([databaseName, type]) => ({
      databaseName,
      propertyName: databaseName,
      type,
      collation: t.collations?.[databaseName],
    }));
    const metadata = { name, target, tableName: t.table, columns } as never;
    const uniqueKeys = (t.uniqueKeys ?? []).map((c, i) => ({ label: i === 0 ? 'primary key' : 'unique key', columns: c }));
    if (t.distribution !== 'sharded') return { tableName: t.table, distribution: t.distribution, metadata, shardKey: undefined, uniqueKeys };
    if (!t.key) throw new Error(`fake table ${t.table}: a sharded table needs a key`);
    const kind = t.key.kind ?? 'integer';
    const algorithm = t.key.algorithm ?? 'mod';
    const created = createAlgorithm(algorithm, shardNames, kind);
    const layout = t.key.tables === undefined ? undefined : createTableLayout(t.key.tables, t.table, name, created);
    return {
      tableName: t.table,
      distribution: 'sharded',
      metadata,
      shardKey: { propertyName: t.key.column, columnName: t.key.column, kind, algorithm: created, placement: placementOf(algorithm, kind, layout), ...(layout ? { layout } : {}) },
      uniqueKeys,
    };
  });
  return new ShardingRules(rules, shardNames, colocation);
}

/** Shard names `s0` … `s<n-1>`. */
export function shardNamesOf(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `s${i}`);
}
