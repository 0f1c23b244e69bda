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
