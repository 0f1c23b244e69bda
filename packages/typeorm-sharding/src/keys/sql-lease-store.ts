import type { DataSource, QueryRunner } from 'typeorm';
import type { QueryResult } from 'typeorm/query-runner/QueryResult.js';
import type { LeaseRow, LeaseStore } from './lease-store.js';

/** Default name of the lease table (on the default shard). */
export const DEFAULT_LEASE_TABLE = 'typeorm_sharding_workers';

/**
 * The lease table in one database, through a plain TypeORM DataSource (the default shard's own,
 * so that lease statements never go through the sharding pipeline, its plan cache or
 * `onPhysicalQuery`). Portable SQL for MySQL/MariaDB and SQLite: one row per worker id ever
 * leased (at most 1024), never deleted.
 */
export function sqlLeaseStore(dataSource: DataSource, table: string = DEFAULT_LEASE_TABLE): LeaseStore {
  const sqlite = dataSource.driver.options.type === 'better-sqlite3';
  const t = dataSource.driver.escape(table);
  const run = async (sql: string, parameters: unknown[]): Promise<QueryResult> => {
    const runner: QueryRunner = dataSource.createQueryRunner('master');
    try {
      return await runner.query(sql, parameters, true);
    } finally {
      await runner.release();
    }
  };
  const changed = async (sql: string, parameters: unknown[]): Promise<boolean> => (await run(sql, parameters)).affected === 1;
  return {
    async prepare() {
      await run(`CREATE TABLE IF NOT EXISTS ${t} (worker_id INT NOT NULL PRIMARY KEY, owner VARCHAR(120) NOT NULL, expires_at BIGINT NOT NULL)`, []);
    },
    async list() {
      const { records } = await run(`SELECT worker_id, owner, expires_at FROM ${t}`, []);
      return (records as { worker_id: unknown; owner: string; expires_at: unknown }[]).map(
        (r): LeaseRow => ({ workerId: Number(r.worker_id), owner: r.owner, expiresAt: Number(r.expires_at) }),
      );
    },
    insert: (row) => changed(`INSERT ${sqlite ? 'OR IGNORE' : 'IGNORE'} INTO ${t} (worker_id, owner, expires_at) VALUES (?, ?, ?)`, [row.workerId, row.owner, row.expiresAt]),
    takeOver: (expected, owner, expiresAt) =>
      changed(`UPDATE ${t} SET owner = ?, expires_at = ? WHERE worker_id = ? AND owner = ? AND expires_at = ?`, [owner, expiresAt, expected.workerId, expected.owner, expected.expiresAt]),
    extend: (workerId, owner, expiresAt) => changed(`UPDATE ${t} SET expires_at = ? WHERE worker_id = ? AND owner = ?`, [expiresAt, workerId, owner]),
    canWriteNow: () => !sqlite || !(dataSource.driver as unknown as { databaseConnection?: { inTransaction?: boolean } }).databaseConnection?.inTransaction,
  };
}
