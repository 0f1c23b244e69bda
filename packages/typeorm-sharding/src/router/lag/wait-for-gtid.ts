import { formatGtidPosition, type GtidPosition } from './gtid.js';

/** Runs one statement on a node and returns its rows (the engine's pool of that node). */
export type NodeQuery = (sql: string, values: readonly unknown[]) => Promise<unknown>;

/** `reached`: the replica has applied the position; `timeout`: it has not within the wait (or cannot tell). */
export type GtidWaitOutcome = 'reached' | 'timeout';

/**
 * Waits on a replica until it has applied `position`, at most `timeoutMs`
 * (`MASTER_GTID_WAIT`: 0 when reached, -1 on timeout, NULL when the server cannot wait).
 * A failed statement counts as a timeout: the read then goes to the primary.
 */
export async function waitForGtid(query: NodeQuery, position: GtidPosition, timeoutMs: number): Promise<GtidWaitOutcome> {
  let result: unknown;
  try {
    result = await query('SELECT MASTER_GTID_WAIT(?, ?) AS reached', [formatGtidPosition(position), timeoutMs / 1000]);
  } catch {
    return 'timeout';
  }
  const rows = Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result;
  const row = Array.isArray(rows) ? (rows[0] as Record<string, unknown> | undefined) : undefined;
  const value = row?.reached;
  return value === 0 || value === '0' || value === 0n ? 'reached' : 'timeout';
}
