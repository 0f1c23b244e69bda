/**
 * A global index whose lookup table is empty while its owner table holds indexed rows was never
 * built: the index was added to a table that already had rows. Its lookup reads would miss those
 * rows and its uniqueness check would let duplicates of them in, so `initialize()` records a
 * build for it (the index is write-only until `ds.buildIndexes()` has run; see
 * `build/build-indexes.ts`). Two `LIMIT 1` reads per index.
 */
import type { GlobalIndex } from '../rules/index.js';

/** Runs one logical statement through the sharded source (scattered, one round trip per server). */
export type LogicalQuery = (sql: string) => Promise<readonly unknown[]>;

/** The indexes whose owner rows have no entries at all (their lookup tables were never filled). */
export async function unbuiltIndexes(indexes: readonly GlobalIndex[], query: LogicalQuery, quote: (name: string) => string): Promise<GlobalIndex[]> {
  const out: GlobalIndex[] = [];
  for (const index of indexes) {
    const indexed = index.columns.map((c) => `${quote(c)} IS NOT NULL`).join(' AND ');
    const owners = await existing(() => query(`SELECT 1 AS ${quote('present')} FROM ${quote(index.table)} WHERE ${indexed} LIMIT 1`));
    if (owners === undefined || owners.length === 0) continue;
    const entries = await existing(() => query(`SELECT 1 AS ${quote('present')} FROM ${quote(index.lookupTable)} LIMIT 1`));
    if (entries === undefined || entries.length > 0) continue;
    out.push(index);
  }
  return out;
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
