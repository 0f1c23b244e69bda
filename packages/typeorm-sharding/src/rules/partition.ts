/**
 * A sharded table's partitions: each shard database holds one table of it, or `count` tables
 * under a table-per-shard layout. Routing works on partition indexes (`shard × tables + table`),
 * so that a layout's tables are routed, batched and merged exactly as more shards would be.
 */
import type { ShardKeyRule } from './table-rule.js';

/** Where one partition is: its shard, and its table there when the table has a layout. */
export interface PartitionPlace {
  readonly shard: number;
  /** Index of the physical table within the shard database; undefined without a layout. */
  readonly table?: number;
}

/** Number of partitions of a table sharded by `key` over `shardCount` shards. */
export function partitionCountOf(key: ShardKeyRule, shardCount: number): number {
  return shardCount * (key.layout?.count ?? 1);
}

/** The partition that holds the row of `value`. Throws `InvalidShardKeyError` for a value that is no key. */
export function partitionOf(key: ShardKeyRule, value: unknown): number {
  const shard = key.algorithm.shardIndexOf(value);
  return key.layout ? shard * key.layout.count + key.layout.tableIndexOf(value) : shard;
}

/** The shard (and table) of partition `partition`. */
export function placeOf(key: ShardKeyRule, partition: number): PartitionPlace {
  const tables = key.layout?.count;
  return tables === undefined ? { shard: partition } : { shard: Math.floor(partition / tables), table: partition % tables };
}
