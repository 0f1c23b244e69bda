/**
 * Table-per-shard layouts (the Atlas layout `post_reply_0 … post_reply_3`, ShardingSphere's
 * `t_order_${0..7}`): a sharded table is `count` physical tables in every shard database. The
 * algorithm picks a key's shard as without a layout; the layout then picks the table inside it:
 *
 * - hash: `table = bucket % count`, the bucket being the one that picks the shard
 *   (`crc32(key) % buckets`). A bucket belongs to one table index whatever shard owns it, so
 *   moving a bucket range to another shard moves its rows from `orders_i` to `orders_i`;
 * - mod: `table = floor(key / shards) % count` (floored, as the shard's modulo is): the key
 *   modulo `shards × count` is the partition, its remainder by `shards` the shard, its quotient
 *   the table — every (shard, table) gets every `shards × count`-th key.
 *
 * Both are pinned by golden vectors (`table-layout.test.ts`). A function algorithm names shards
 * only: a layout needs 'hash' or 'mod'.
 */
import { ShardingConfigError } from '../errors/index.js';
import type { ShardingAlgorithm } from './sharding-algorithm.js';

/** How `@Sharded({ tables })` is written: a count, or a count and a name pattern. */
export type TableLayoutOption = number | { readonly count: number; readonly name?: string };

/** The name pattern of a layout's tables unless one is given: `orders_0 … orders_3`. */
export const DEFAULT_TABLE_PATTERN = '{table}_{index}';
/** Most tables per shard database a layout may have. */
export const MAX_TABLES_PER_SHARD = 1024;

/** A sharded table laid out as `count` physical tables in every shard database. */
export interface TableLayout {
  readonly count: number;
  /** `{table}` is the logical table's name as the statement writes it, `{index}` 0 … count − 1. */
  readonly pattern: string;
  /** The name of physical table `index` for the logical table written `written`. */
  physicalName(written: string, index: number): string;
  /** Index of the physical table (within its shard database) that holds the row of `key`. */
  tableIndexOf(key: unknown): number;
  /** How a key picks its table, for messages: `bucket % 4`. */
  readonly rule: string;
}

/** Names a layout may produce: plain identifiers, which every statement may write unquoted. */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_$]*$/;
const MAX_NAME_LENGTH = 64;

/**
 * The layout `option` declares for table `tableName` of entity `entityName`, placed by
 * `algorithm`. Throws `ShardingConfigError` for a count out of range, a pattern without
 * `{index}` or making names that are no plain identifiers, or an algorithm without tables.
 */
export function createTableLayout(option: TableLayoutOption, tableName: string, entityName: string, algorithm: ShardingAlgorithm): TableLayout {
  const spec = typeof option === 'number' ? { count: option } : option;
  const where = `Entity ${entityName}: @Sharded({ tables })`;
  if (typeof spec !== 'object' || spec === null || !Number.isInteger(spec.count) || spec.count < 1 || spec.count > MAX_TABLES_PER_SHARD) {
    throw new ShardingConfigError(`${where} must be a whole number of tables from 1 to ${MAX_TABLES_PER_SHARD} per shard database (or { count, name }), got ${JSON.stringify(typeof spec === 'object' ? spec?.count : option)}.`);
  }
  const pattern = spec.name ?? DEFAULT_TABLE_PATTERN;
  if (typeof pattern !== 'string' || !pattern.includes('{index}')) {
    throw new ShardingConfigError(`${where}: the name pattern ${JSON.stringify(pattern)} must contain {index} (e.g. '{table}_{index}' for ${tableName}_0 … ${tableName}_${spec.count - 1}).`);
  }
  const physicalName = (written: string, index: number) => pattern.split('{table}').join(written).split('{index}').join(String(index));
  for (const index of [0, spec.count - 1]) {
    const name = physicalName(tableName, index);
    if (!PLAIN_NAME.test(name) || name.length > MAX_NAME_LENGTH) {
      throw new ShardingConfigError(`${where}: the name pattern ${JSON.stringify(pattern)} makes ${JSON.stringify(name)}; physical tables need plain names (letters, digits, _ and $, at most ${MAX_NAME_LENGTH} characters).`);
    }
  }
  const count = spec.count;
  const tableOf = algorithm.tableIndexOf;
  if (!tableOf) {
    throw new ShardingConfigError(`${where}: the ${algorithm.name} algorithm names shards only; a table layout needs the 'hash' or 'mod' algorithm (or drop \`tables\`).`);
  }
  return Object.freeze({
    count,
    pattern,
    physicalName,
    tableIndexOf: (key: unknown) => tableOf(key, count),
    rule: algorithm.tableRule?.(count) ?? `table of ${count}`,
  });
}
