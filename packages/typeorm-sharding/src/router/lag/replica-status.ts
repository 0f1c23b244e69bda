/** What `SHOW REPLICA STATUS` says about a replica's replication threads. */
export interface ReplicaStatus {
  /** Receiving events from the primary (`Slave_IO_Running = Yes`). */
  readonly ioRunning: boolean;
  /** Applying them (`Slave_SQL_Running = Yes`). */
  readonly sqlRunning: boolean;
  /** `Seconds_Behind_Master`; null when the server cannot tell (a thread is stopped). */
  readonly secondsBehind: number | null;
  /** The last replication error, if any (`Last_IO_Error` / `Last_SQL_Error`). */
  readonly lastError: string;
}

/**
 * Reads one row of `SHOW REPLICA STATUS` (MariaDB ≥ 10.5; the column names are still the
 * `SHOW SLAVE STATUS` ones). Undefined when the node is not a replica (no row).
 */
export function readReplicaStatus(rows: unknown): ReplicaStatus | undefined {
  const row = Array.isArray(rows) ? (rows[0] as Record<string, unknown> | undefined) : undefined;
  if (row === undefined) return undefined;
  const text = (key: string) => (row[key] === null || row[key] === undefined ? '' : String(row[key]));
  const behind = row.Seconds_Behind_Master;
  return {
    ioRunning: text('Slave_IO_Running') === 'Yes',
    sqlRunning: text('Slave_SQL_Running') === 'Yes',
    secondsBehind: behind === null || behind === undefined || behind === '' ? null : Number(behind),
    lastError: text('Last_SQL_Error') || text('Last_IO_Error'),
  };
}
