import { ShardingError } from '../errors/index.js';
import type { ParameterizedSql, ValueSlot } from '../parameterize/index.js';
import { partitionOf, placeOf, type ShardKeyRule } from '../rules/index.js';
import type { InsertRows } from './insert-rows.js';

/** Rows of one INSERT that go to one shard (and table, under a layout): indexes into `InsertRows.rows`. */
export interface InsertUnit {
  readonly shard: number;
  /** Index of the physical table in the shard database (a table layout); undefined without one. */
  readonly table?: number;
  readonly rows: readonly number[];
}

/** A row of a sharded INSERT has no usable shard-key value. Nothing of the statement is written. */
export class MissingShardKeyError extends ShardingError {
  readonly code = 'SHARDING_MISSING_KEY';
  constructor(message: string, sql: string) {
    super(message, { stage: 'write', sql });
  }
}

/**
 * Groups the rows of an INSERT by the shard (and table) of their key value. Every row is
 * checked before anything runs, so a bad row refuses the whole statement.
 */
export function routeInsert(p: ParameterizedSql, rows: InsertRows, keyColumnIndex: number, key: ShardKeyRule, table: string): InsertUnit[] {
  const slotAt = new Map<number, ValueSlot>();
  for (const s of p.slots) slotAt.set(s.start, s);
  const byShard = new Map<number, number[]>();
  rows.rows.forEach((row, index) => {
    const item = row.items[keyColumnIndex];
    const slot = item ? slotAt.get(item.start) : undefined;
    if (!slot || slot.end !== item!.end || slot.value === null || slot.value === undefined) {
      const text = item ? p.sql.slice(item.start, item.end) : 'nothing';
      throw new MissingShardKeyError(
        `Row ${index + 1} of an INSERT into sharded table "${table}" has ${text === '?' ? 'NULL' : text} for shard key "${key.columnName}"; every row needs a key value. Nothing was written.`,
        p.sql,
      );
    }
    const partition = partitionOf(key, slot.value);
    let list = byShard.get(partition);
    if (!list) byShard.set(partition, (list = []));
    list.push(index);
  });
  return [...byShard].sort((a, b) => a[0] - b[0]).map(([partition, r]) => ({ ...placeOf(key, partition), rows: r }));
}
