import type { StatementKind } from '../statement.js';
import { parseGtidPosition, type GtidPosition } from './gtid.js';

/**
 * The statement that makes MariaDB report each write's GTID in the OK packet
 * (`session_track_system_variables` + `last_gtid`), which mysql2 decodes into
 * `result.stateChanges.systemVariables.last_gtid`: read-your-writes without an extra round
 * trip. Run it once on every new connection of a primary's pool (see `createNodePool`). It
 * keeps whatever the session tracked already (MariaDB's default: autocommit and the
 * character-set variables, which mysql2 relies on).
 */
export const TRACK_LAST_GTID_SQL = "SET SESSION session_track_system_variables = CONCAT_WS(',', NULLIF(@@session.session_track_system_variables, ''), 'last_gtid')";

/**
 * The GTID a write produced, from mysql2's result: the `ResultSetHeader` of `query` /
 * `execute` (callback API) or the `[header, fields]` pair of the promise API. Checked on
 * MariaDB 10.11 with mysql2 3.24: an autocommit INSERT/UPDATE/DELETE and a COMMIT report
 * `{ systemVariables: { last_gtid: '0-1-4' } }`; a statement inside a transaction, a write
 * that changed nothing and a SELECT report nothing (`stateChanges` absent).
 */
export function gtidOfResult(result: unknown): GtidPosition | undefined {
  const header = Array.isArray(result) ? result[0] : result;
  if (typeof header !== 'object' || header === null) return undefined;
  const changes = (header as { stateChanges?: { systemVariables?: Record<string, unknown> } }).stateChanges;
  const text = changes?.systemVariables?.last_gtid;
  if (typeof text !== 'string' || text === '') return undefined;
  try {
    return parseGtidPosition(text);
  } catch {
    return undefined;
  }
}

/** Reads the GTID of the connection's last write when its result carried none (`INSERT … RETURNING`). */
export const LAST_GTID_SQL = 'SELECT @@session.last_gtid AS gtid';

/**
 * Whether a statement that ran on a primary outside a transaction leaves its GTID unknown, so
 * that `LAST_GTID_SQL` must be read on the same connection. Never when its result carries the
 * tracked `last_gtid`. Otherwise, by kind: an INSERT / UPDATE / DELETE unless its OK packets say
 * nothing changed (`affectedRows` 0: nothing reached the binlog) — a result of rows, which is
 * MariaDB's `INSERT … RETURNING` (mysql2 gives no session-state changes for it), or anything the
 * router cannot read, is unknown; DDL always (it is logged whatever it reports); anything else
 * (CALL, DO …) when an OK packet reports changed rows. Reads never.
 */
export function gtidUnknown(kind: StatementKind, result: unknown): boolean {
  return gtidOfResult(result) === undefined && changesData(kind, result);
}

/**
 * Whether a statement changed something the binlog carries, by its kind and its OK packets (the
 * rule of `gtidUnknown`): a result the router cannot read counts as a change. Inside a
 * transaction it tells whether the COMMIT must report a GTID.
 */
export function changesData(kind: StatementKind, result: unknown): boolean {
  if (kind === 'select' || kind === 'transaction' || kind === 'session') return false;
  if (kind === 'ddl') return true;
  // One header, mysql2's [header, fields] pair, or a multi-statement's headers; rows have none.
  const headers = Array.isArray(result) ? result.filter(isHeader) : isHeader(result) ? [result] : [];
  if (kind === 'other') return headers.some((h) => h.affectedRows > 0);
  return headers.length === 0 || headers.some((h) => h.affectedRows !== 0);
}

/**
 * The position of `LAST_GTID_SQL`'s rows (either API's shape); undefined when they hold none
 * (the connection has written nothing the server tracked) or cannot be read.
 */
export function gtidOfLastGtidRows(result: unknown): GtidPosition | undefined {
  const rows = Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result;
  const value = Array.isArray(rows) ? (rows[0] as { gtid?: unknown } | undefined)?.gtid : undefined;
  if (typeof value !== 'string' || value === '') return undefined;
  try {
    const position = parseGtidPosition(value);
    return position.size === 0 ? undefined : position;
  } catch {
    return undefined;
  }
}

function isHeader(value: unknown): value is { affectedRows: number } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { affectedRows?: unknown }).affectedRows === 'number';
}
