import 'reflect-metadata';
import type { ShardingAlgorithmOption, TableLayoutOption } from '../algorithms/index.js';
import { SHARDED_KEY } from './metadata-keys.js';

/** Options of `@Sharded()`. */
export interface ShardedOptions {
  /**
   * How a shard-key value picks its shard.
   * @default 'hash' (CRC-32 of the canonical key into 1024 buckets, contiguous bucket ranges per shard)
   */
  readonly algorithm?: ShardingAlgorithmOption;
  /**
   * Unique keys that do not contain the shard key and that you accept as unique **per shard
   * only**. Without this, such a key gets a global unique index: a lookup table (value → shard
   * key) written in the same transaction as every row, so that it is unique across shards, at
   * the cost of one extra write per row (see the README, "Global unique indexes"). List a key here
   * to opt out of that cost when its values are unique by construction (ids assigned by one
   * service) or duplicates on different shards are acceptable.
   *
   * Each entry names the columns of one unique key — the primary key, `@Unique`,
   * `@Index({ unique: true })`, `@Column({ unique: true })` or a one-to-one join column — by
   * property name: a string for one column, an array for a composite key.
   *
   * `INSERT … ON DUPLICATE KEY UPDATE` / `INSERT IGNORE` / `REPLACE` (MySQL fires them on any
   * unique key) are refused on a table with such a key: the conflicting row may be on another shard.
   * @default [] (every unique key without the shard key gets a global unique index)
   */
  readonly uniquePerShard?: readonly (string | readonly string[])[];
  /**
   * Non-key columns that queries filter by often (`buyerId` on orders sharded by `id`): each
   * gets a **lookup index**, a lookup table `(value columns, shard key) → number of rows`
   * sharded by the value, written in the same transaction as every row (like a global unique
   * index, but many rows may share a value). `WHERE buyerId = ?` / `IN (…)` then reads the
   * lookup table first and only the shards of the rows, instead of every shard.
   *
   * Each entry names one index by property name: a string for one column, an array for a
   * composite one (a read is routed by it when its WHERE pins every one of its columns). A
   * column of the shard key, or a key that is already unique (it has a global unique index,
   * which routes the same reads), is refused.
   * @default [] (no lookup index)
   */
  readonly lookups?: readonly (string | readonly string[])[];
  /**
   * Another `@Sharded()` entity whose related rows live on the same shard as this entity's
   * (ShardingSphere's binding tables), e.g. order items sharded by `userId` like their orders.
   * Joins and relations between co-located entities then run shard by shard when they join on
   * the columns of a relation between them, even when those columns are not the shard key
   * (items → orders on `orderId`), and foreign keys between them are accepted (each shard
   * enforces them on its own rows).
   *
   * Both entities must have shard keys of the same type and the same algorithm (checked at
   * `initialize()`). Co-location is your promise that related rows carry the same shard-key
   * value; a foreign key between the two (or join columns that include the shard key) makes the
   * database check it.
   * @default undefined (not co-located with anything)
   */
  readonly colocateWith?: () => Function;
  /**
   * A table-per-shard layout: the entity is `count` physical tables in every shard database,
   * named by a pattern (`{table}` the entity's table name, `{index}` 0 … count − 1), e.g.
   * `tables: 4` → `orders_0 … orders_3`, `tables: { count: 8, name: 't_order_{index}' }`.
   * Within its shard a key's table is `bucket % count` (hash) or `floor(key / shards) % count`
   * (mod); statements name the logical table and are sent to the physical ones. Entities
   * co-located with this one must have the same number of tables.
   * @default undefined (one table per shard database, named as the entity's)
   */
  readonly tables?: TableLayoutOption;
  /**
   * MySQL/MariaDB: the entity's table in every shard database is split by the server into
   * `count` partitions, `PARTITION BY KEY (shard key) PARTITIONS count` (`synchronize` partitions
   * it). The server places rows and prunes by itself, so results are the same with or without;
   * what changes is cost: a statement over the whole table is one statement whose partitions the
   * server merges (a page ordered across 16 partitions costs the server about a third of the same
   * page across 16 shard databases). Requires every unique key to hold the shard key and no
   * foreign key from or to the table (MySQL's rules for partitioned tables; checked at
   * `initialize()`). Not with `tables`, not on SQLite.
   * @default undefined (one unpartitioned table per shard database)
   */
  readonly partitions?: number;
}

/**
 * Marks an entity as hash-partitioned across the shards by its `@ShardKey()` column.
 * Rows of a sharded entity live on exactly one shard; its table exists on every shard.
 */
export function Sharded(options: ShardedOptions = {}): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(SHARDED_KEY, options, target);
  };
}

/** The options `@Sharded()` recorded on a class, or undefined. */
export function getShardedOptions(target: Function): ShardedOptions | undefined {
  return Reflect.getMetadata(SHARDED_KEY, target) as ShardedOptions | undefined;
}
