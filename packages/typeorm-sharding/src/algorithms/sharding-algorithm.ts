/**
 * A sharding algorithm maps one shard-key value to the index of the shard that holds it.
 * Implementations are pure and synchronous: routing must never do I/O.
 */
export interface ShardingAlgorithm {
  /** Short name used in explain output and errors, e.g. `hash(1024 buckets)`. */
  readonly name: string;
  /**
   * Index (0-based, < shardCount) of the shard for `key`. Must give the same answer for
   * every spelling of one key (`5`, `'5'`, `5n`). Throws `InvalidShardKeyError` for a value
   * that cannot be a key of this algorithm (e.g. `null`, an object, a non-integer for `mod`).
   */
  shardIndexOf(key: unknown): number;
  /**
   * Index (0-based, < `tables`) of the table of `key` inside its shard, for a table-per-shard
   * layout (`table-layout.ts`); absent when the algorithm places keys on shards only. Throws
   * `InvalidShardKeyError` as `shardIndexOf` does.
   */
  tableIndexOf?(key: unknown, tables: number): number;
  /** How `tableIndexOf` picks a table, for messages: `bucket % 4`. */
  tableRule?(tables: number): string;
}

/** How a user-supplied algorithm is declared: a function of the key and the shard count. */
export type ShardingFunction = (key: unknown, shardCount: number) => number;
