import type { KeyKind } from '../algorithms/index.js';
import {
  checkFenceRanges,
  checkVersion,
  createFenceTableSql,
  createFenceTriggerSql,
  dropFenceTriggerSql,
  FENCE_EVENTS,
  FENCE_MESSAGE_PREFIX,
  FENCE_TABLE,
  fenceTriggerBody,
  fenceTriggerName,
  quoteIdentifier,
  type FenceEvent,
  type FencedTable,
  type FenceRange,
} from './fence-sql.js';
import { queryRows, type SqlConnection } from './sql-connection.js';
import { TopologyDocumentError } from './topology-errors.js';

export { FENCE_BYPASS_VARIABLE, FENCE_TABLE, fenceTriggerName, type FencedTable, type FenceRange } from './fence-sql.js';

/** What {@link installFence} guards. */
export interface InstallFenceOptions {
  /** The shard's database (schema) holding the tables. */
  readonly database: string;
  /** Every table whose rows move with their buckets (the entity tables and their lookup tables). */
  readonly tables: readonly FencedTable[];
  /** The bucket count of the topology (the triggers compute `CRC32(key) % bucketCount`). */
  readonly bucketCount: number;
  /** The buckets to refuse writes for; `[]` installs the triggers only (cheap to do ahead of a cutover). */
  readonly ranges: readonly FenceRange[];
  /** The topology version that will own these buckets once the move flips; named in the refusal. */
  readonly version: number;
}

/**
 * Installs the fence of a cutover on one shard's database (idempotent; safe to repeat after a
 * crash):
 *
 * 1. creates `tsh_fence` if missing;
 * 2. creates the BEFORE INSERT / UPDATE / DELETE triggers `tsh_fence_<table>_i|u|d` on every
 *    listed table, unless an identical one is already there. A trigger that exists with another
 *    body (another bucket count or key column) is replaced while no range is fenced, and refused
 *    with `TopologyDocumentError` while one is;
 * 3. inserts `ranges` into `tsh_fence` (a range already there gets this `version`).
 *
 * From step 3 on, a write (insert, delete, or update of either row image) whose row's bucket lies
 * in a fenced range fails with `SIGNAL SQLSTATE '45000'` and the message
 * `TSH_FENCED version=<v> bucket=<b>` (errno 1644; see {@link isFencedError}), unless its session
 * has set `@tsh_fence_bypass = 1`.
 *
 * Creating a trigger needs the table's exclusive metadata lock, so it waits for open transactions
 * on that table: install the triggers (`ranges: []`) before the cutover, and the fence itself is
 * then one INSERT. That INSERT waits for in-flight writers of guarded tables (their triggers hold
 * shared locks on the fence table until they end), so when it returns, no write to a fenced bucket
 * that began before it is still uncommitted.
 */
export async function installFence(conn: SqlConnection, options: InstallFenceOptions): Promise<void> {
  const { database, tables, bucketCount, ranges, version } = options;
  checkVersion(version);
  checkFenceRanges(ranges, bucketCount);
  checkTables(tables);
  await conn.query(createFenceTableSql(database));
  for (const table of tables) {
    for (const event of Object.keys(FENCE_EVENTS) as FenceEvent[]) await ensureTrigger(conn, database, table, event, bucketCount);
  }
  if (ranges.length === 0) return;
  const values = ranges.map(() => '(?, ?, ?)').join(', ');
  await conn.query(
    `INSERT INTO ${quoteIdentifier(database)}.${FENCE_TABLE} (bucket_from, bucket_to, version) VALUES ${values} ` +
      'ON DUPLICATE KEY UPDATE bucket_to = VALUES(bucket_to), version = VALUES(version)',
    ranges.flatMap((r) => [r.from, r.to, version]),
  );
}

/** What {@link releaseFence} lifts. */
export interface ReleaseFenceOptions {
  readonly database: string;
  /** The ranges to release (matched by their first bucket). */
  readonly ranges: readonly FenceRange[];
}

/** Deletes `ranges` from `tsh_fence`: writes to those buckets flow again. The triggers stay. Idempotent. */
export async function releaseFence(conn: SqlConnection, options: ReleaseFenceOptions): Promise<void> {
  checkFenceRanges(options.ranges);
  if (options.ranges.length === 0) return;
  if (!(await fenceTableExists(conn, options.database))) return;
  await conn.query(
    `DELETE FROM ${quoteIdentifier(options.database)}.${FENCE_TABLE} WHERE bucket_from IN (${options.ranges.map(() => '?').join(', ')})`,
    options.ranges.map((r) => r.from),
  );
}

/** What {@link removeFence} drops. */
export interface RemoveFenceOptions {
  readonly database: string;
  /** The tables whose fence triggers to drop. */
  readonly tables: readonly { readonly table: string }[];
}

/**
 * Drops the fence triggers of `tables` and, when no other table of the database still has one,
 * the `tsh_fence` table (at `complete` or `rollback` of a move). Idempotent.
 */
export async function removeFence(conn: SqlConnection, options: RemoveFenceOptions): Promise<void> {
  const { database, tables } = options;
  for (const { table } of tables) {
    for (const event of Object.keys(FENCE_EVENTS) as FenceEvent[]) await conn.query(dropFenceTriggerSql(database, table, event));
  }
  const left = await queryRows(
    conn,
    "SELECT COUNT(*) AS n FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ? AND TRIGGER_NAME LIKE 'tsh\\_fence\\_%'",
    [database],
  );
  if (Number(left[0]?.['n'] ?? 0) === 0) await conn.query(`DROP TABLE IF EXISTS ${quoteIdentifier(database)}.${FENCE_TABLE}`);
}

/** The facts a fence refusal carries. */
export interface FencedErrorFacts {
  /** The topology version the fence was installed for. */
  readonly version: number;
  /** The bucket of the refused row. */
  readonly bucket: number;
}

const FENCED_MESSAGE = new RegExp(`^${FENCE_MESSAGE_PREFIX} version=(\\d+) bucket=(\\d+)`);

/**
 * Whether `error` is a fence refusal (see {@link installFence}), and if so its version and bucket.
 * Recognises the driver's error (errno 1644 or SQLSTATE 45000, with the `TSH_FENCED` message) as
 * mysql2 gives it, inside TypeORM's `QueryFailedError` (`driverError`), and inside the plugin's
 * errors (`ShardQueryError`, `cause` chains). Anything else answers `undefined`.
 */
export function isFencedError(error: unknown): FencedErrorFacts | undefined {
  const seen = new Set<unknown>();
  let pending: unknown[] = [error];
  while (pending.length > 0) {
    const next: unknown[] = [];
    for (const candidate of pending) {
      if (typeof candidate !== 'object' || candidate === null || seen.has(candidate)) continue;
      seen.add(candidate);
      const facts = fencedFacts(candidate as Record<string, unknown>);
      if (facts !== undefined) return facts;
      const { driverError, cause, errors } = candidate as { driverError?: unknown; cause?: unknown; errors?: unknown };
      next.push(driverError, cause, ...(Array.isArray(errors) ? errors : []));
    }
    pending = next;
  }
  return undefined;
}

function fencedFacts(error: Record<string, unknown>): FencedErrorFacts | undefined {
  const signalled = error['errno'] === 1644 || error['sqlState'] === '45000';
  if (!signalled) return undefined;
  const text = typeof error['sqlMessage'] === 'string' ? error['sqlMessage'] : error['message'];
  const match = typeof text === 'string' ? FENCED_MESSAGE.exec(text) : null;
  if (match === null) return undefined;
  return { version: Number(match[1]), bucket: Number(match[2]) };
}

async function ensureTrigger(conn: SqlConnection, database: string, table: FencedTable, event: FenceEvent, bucketCount: number): Promise<void> {
  const name = fenceTriggerName(table.table, event);
  const found = await queryRows(
    conn,
    'SELECT EVENT_OBJECT_TABLE AS tbl, ACTION_STATEMENT AS body FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ? AND TRIGGER_NAME = ?',
    [database, name],
  );
  const existing = found[0];
  if (existing !== undefined) {
    if (existing['tbl'] === table.table && String(existing['body']).trim() === fenceTriggerBody(database, table, event, bucketCount)) return;
    const fenced = await queryRows(conn, `SELECT COUNT(*) AS n FROM ${quoteIdentifier(database)}.${FENCE_TABLE}`);
    if (Number(fenced[0]?.['n'] ?? 0) > 0) {
      throw new TopologyDocumentError(
        `Trigger ${database}.${name} exists with another definition while buckets are fenced; release the fence (releaseFence) before installing it for ${table.table}.${table.keyColumn}`,
      );
    }
    await conn.query(dropFenceTriggerSql(database, table.table, event));
  }
  await conn.query(createFenceTriggerSql(database, table, event, bucketCount));
}

async function fenceTableExists(conn: SqlConnection, database: string): Promise<boolean> {
  const rows = await queryRows(conn, 'SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?', [database, FENCE_TABLE]);
  return Number(rows[0]?.['n'] ?? 0) > 0;
}

function checkTables(tables: readonly FencedTable[]): void {
  const kinds: readonly KeyKind[] = ['integer', 'string'];
  const names = new Set<string>();
  for (const t of tables) {
    quoteIdentifier(t.table);
    quoteIdentifier(t.keyColumn);
    if (!kinds.includes(t.keyKind)) {
      throw new TopologyDocumentError(`Fenced table ${t.table}: keyKind must be 'integer' or 'string', got ${JSON.stringify(t.keyKind)}`);
    }
    if (names.has(t.table)) throw new TopologyDocumentError(`Fenced table ${t.table} is listed twice`);
    names.add(t.table);
  }
}
