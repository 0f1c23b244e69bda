import type { Connection } from 'mysql2/promise';
import type { KeyKind } from '../algorithms/index.js';
import { ReshardingError } from './errors.js';
import { quoteId, rows } from './endpoint.js';

/**
 * A table the move touches. `sharded`: its rows move with their buckets (entities sharded by
 * the default bucket map and their global-index lookup tables, sharded by the value column).
 * `broadcast`: copied whole to a new shard, never moved.
 */
export interface GovernedTable {
  readonly table: string;
  readonly kind: 'sharded' | 'broadcast';
  /** The column whose bucket places the row (sharded tables). */
  readonly keyColumn?: string;
  readonly keyKind?: KeyKind;
}

/** A governed table with its columns and primary key, as the source database has them. */
export interface TableShape extends GovernedTable {
  readonly columns: readonly string[];
  readonly primaryKey: readonly string[];
  /** Binary (BINARY/VARBINARY/BLOB) columns: a string key in one hashes its own bytes. */
  readonly binaryColumns: readonly string[];
}

/**
 * Reads the columns and primary key of each table from the source's information_schema. A
 * table without a primary key is refused: the copy is chunked by it and the catch-up applies
 * changes by it.
 */
export async function describeTables(conn: Connection, database: string, tables: readonly GovernedTable[]): Promise<TableShape[]> {
  const out: TableShape[] = [];
  for (const t of tables) {
    const cols = await rows<{ name: string; key: string; type: string }>(
      conn,
      'SELECT COLUMN_NAME AS name, COLUMN_KEY AS `key`, DATA_TYPE AS type FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION',
      [database, t.table],
    );
    if (cols.length === 0) throw new ReshardingError('bad-plan', `Table ${database}.${t.table} does not exist on the source.`);
    const pk = await rows<{ name: string }>(
      conn,
      "SELECT COLUMN_NAME AS name FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION",
      [database, t.table],
    );
    if (pk.length === 0) throw new ReshardingError('bad-plan', `Table ${database}.${t.table} has no primary key: the mover copies and applies changes by it.`);
    if (t.kind === 'sharded' && (!t.keyColumn || !t.keyKind || !cols.some((c) => c.name === t.keyColumn))) {
      throw new ReshardingError('bad-plan', `[BUG] sharded table ${t.table} needs its key column (${t.keyColumn ?? 'none given'}) and key kind.`);
    }
    out.push({
      ...t,
      columns: cols.map((c) => c.name),
      primaryKey: pk.map((c) => c.name),
      binaryColumns: cols.filter((c) => /binary|blob/i.test(c.type)).map((c) => c.name),
    });
  }
  return out;
}

/** `(a, b)` of the primary key, quoted. */
export function pkTuple(shape: TableShape): string {
  return `(${shape.primaryKey.map(quoteId).join(', ')})`;
}

/** The primary-key values of `row`, in key order. */
export function pkOf(shape: TableShape, row: Record<string, unknown>): unknown[] {
  return shape.primaryKey.map((c) => row[c]);
}
