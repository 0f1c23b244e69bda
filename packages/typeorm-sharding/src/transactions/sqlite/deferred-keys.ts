import { shardFailure } from '../../execute/shard-failure.js';
import type { Branch } from '../../session/commit-protocol.js';
import { sqliteDbOf } from './sqlite-handle.js';

/**
 * Before shards in memory commit one after the other: the one COMMIT that can fail there is a
 * deferred foreign key still violated (SQLite then refuses to commit). Finding it first on every
 * shard keeps such a transaction all-or-nothing: the error is raised before any shard commits.
 * Only shards with deferred keys (`DEFERRABLE INITIALLY DEFERRED`, or `PRAGMA defer_foreign_keys`)
 * are checked, with `PRAGMA foreign_key_check`.
 */
export function checkDeferredKeys(branches: readonly Branch[]): void {
  for (const branch of branches) {
    const db = sqliteDbOf(branch.target);
    if (db.pragma('foreign_keys', { simple: true }) !== 1) continue;
    const deferred = db.pragma('defer_foreign_keys', { simple: true }) === 1 || db.prepare("SELECT 1 FROM sqlite_master WHERE sql LIKE '%INITIALLY DEFERRED%' LIMIT 1").all().length > 0;
    if (!deferred || db.prepare('PRAGMA foreign_key_check').all().length === 0) continue;
    const error = Object.assign(new Error('FOREIGN KEY constraint failed'), { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    throw shardFailure(error, { shard: branch.server, physicalQuery: 'COMMIT', physicalParameters: [] });
  }
}
