import type { ShardTarget } from '../../execute/shard-target.js';

/** The part of a better-sqlite3 Database used here. */
export interface SqliteDb {
  readonly name: string;
  readonly memory: boolean;
  prepare(sql: string): { all(...parameters: unknown[]): unknown[]; run(...parameters: unknown[]): unknown };
  pragma(source: string, options?: { simple?: boolean }): unknown;
}

/** A SQLite shard's own connection (its DataSource's), which also serves its transactions. */
export function sqliteDbOf(target: ShardTarget): SqliteDb {
  return (target.dataSource.driver as unknown as { databaseConnection: SqliteDb }).databaseConnection;
}

/** Journal modes whose multi-file commits are atomic (a super-journal names every attached file). */
export const ATOMIC_JOURNAL_MODES: ReadonlySet<string> = new Set(['delete', 'truncate', 'persist']);

/** SQLITE_MAX_ATTACHED of the linked SQLite (10 for better-sqlite3 12, its default). */
export function maxAttached(db: SqliteDb): number {
  const options = db.pragma('compile_options') as { compile_options: string }[];
  const entry = options.map((o) => o.compile_options).find((o) => o.startsWith('MAX_ATTACHED='));
  return entry ? Number(entry.slice('MAX_ATTACHED='.length)) : 10;
}
