/**
 * A global index whose lookup table is empty while its owner table holds indexed rows was never
 * built: the index was added to a table that already had rows (there is no backfill yet). Its
 * lookup reads would miss those rows and its uniqueness check would let duplicates of them in,
 * so `initialize()` refuses it instead of answering wrongly. Two `LIMIT 1` reads per index.
 */
import { ShardingConfigError } from '../errors/index.js';
import type { GlobalIndex } from '../rules/index.js';

/** Runs one logical statement through the sharded source (scattered, one round trip per server). */
export type LogicalQuery = (sql: string) => Promise<readonly unknown[]>;

/** Throws `ShardingConfigError` naming the first global index whose owner rows have no entries. */
export async function checkIndexesBuilt(indexes: readonly GlobalIndex[], query: LogicalQuery, quote: (name: string) => string): Promise<void> {
  for (const index of indexes) {
    const indexed = index.columns.map((c) => `${quote(c)} IS NOT NULL`).join(' AND ');
    const owners = await existing(() => query(`SELECT 1 AS ${quote('present')} FROM ${quote(index.table)} WHERE ${indexed} LIMIT 1`));
    if (owners === undefined || owners.length === 0) continue;
    const entries = await existing(() => query(`SELECT 1 AS ${quote('present')} FROM ${quote(index.lookupTable)} LIMIT 1`));
    if (entries === undefined || entries.length > 0) continue;
    throw new ShardingConfigError(
      `The global unique index of "${index.table}" (${index.label}, lookup table "${index.lookupTable}") is empty, but "${index.table}" already holds rows with values in (${index.columns.join(', ')}): ` +
        'the index was added to a table that had rows, and building one on existing rows is not supported yet. Fill the lookup table from the rows (one entry per value, on the shard of its value), ' +
        `or list the key in @Sharded({ uniquePerShard }) to keep it unique per shard only.`,
    );
  }
}

/** The rows of a read, or undefined when a table does not exist yet (no synchronize, no migration run). */
async function existing(read: () => Promise<readonly unknown[]>): Promise<readonly unknown[] | undefined> {
  try {
    return await read();
  } catch (error) {
    const driver = (error as { driverError?: { code?: string; message?: string } }).driverError;
    if (driver?.code === 'ER_NO_SUCH_TABLE' || /no such table/i.test(driver?.message ?? (error as Error).message ?? '')) return undefined;
    throw error;
  }
}
