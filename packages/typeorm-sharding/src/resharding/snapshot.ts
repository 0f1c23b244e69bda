import type { Connection } from 'mysql2/promise';
import type { BinlogPosition } from './binlog-position.js';
import { ReshardingError } from './errors.js';
import { rows } from './endpoint.js';

/**
 * Opens a consistent snapshot on `conn` and returns the binlog position that matches it:
 * MariaDB reports it in `Binlog_snapshot_file` / `Binlog_snapshot_position` for the
 * transaction that `START TRANSACTION WITH CONSISTENT SNAPSHOT` opened (no lock needed). Every
 * read on `conn` until `COMMIT` sees the data as of that position.
 */
export async function openSnapshot(conn: Connection): Promise<BinlogPosition> {
  await conn.query('SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ');
  await conn.query('START TRANSACTION WITH CONSISTENT SNAPSHOT');
  const status = await rows<{ Variable_name: string; Value: string }>(conn, "SHOW STATUS LIKE 'binlog_snapshot_%'");
  const file = status.find((s) => s.Variable_name.toLowerCase() === 'binlog_snapshot_file')?.Value;
  const pos = status.find((s) => s.Variable_name.toLowerCase() === 'binlog_snapshot_position')?.Value;
  if (!file || pos === undefined) {
    await conn.query('ROLLBACK');
    throw new ReshardingError('binlog-format', 'The source reports no binlog snapshot position (Binlog_snapshot_file): the mover needs MariaDB with the binary log on (--log-bin).');
  }
  const gtid = await gtidAt(conn, file, Number(pos));
  return { file, pos: Number(pos), ...(gtid ? { gtid } : {}) };
}

/** The current end of the server's binlog (what a catch-up "to now" aims at). */
export async function currentPosition(conn: Connection): Promise<BinlogPosition> {
  const [status] = await rows<{ File: string; Position: number }>(conn, 'SHOW MASTER STATUS');
  if (!status) throw new ReshardingError('binlog-format', 'SHOW MASTER STATUS is empty: the server has no binary log (start it with --log-bin).');
  const [g] = await rows<{ gtid: string }>(conn, 'SELECT @@gtid_binlog_pos AS gtid');
  return { file: status.File, pos: Number(status.Position), ...(g?.gtid ? { gtid: g.gtid } : {}) };
}

/** The GTID position at a binlog offset (MariaDB's BINLOG_GTID_POS), for the record. */
async function gtidAt(conn: Connection, file: string, pos: number): Promise<string | undefined> {
  try {
    const [row] = await rows<{ gtid: string | null }>(conn, 'SELECT BINLOG_GTID_POS(?, ?) AS gtid', [file, pos]);
    return row?.gtid ?? undefined;
  } catch {
    return undefined; // MySQL has no BINLOG_GTID_POS; the file+pos is what the catch-up uses.
  }
}

/** Refuses a server whose binlog cannot feed the catch-up: ROW format and FULL images are required. */
export async function checkBinlogFormat(conn: Connection, label: string): Promise<void> {
  const vars = await rows<{ Variable_name: string; Value: string }>(conn, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('log_bin', 'binlog_format', 'binlog_row_image')");
  const get = (name: string): string | undefined => vars.find((v) => v.Variable_name === name)?.Value?.toUpperCase();
  const problems: string[] = [];
  if (get('log_bin') !== 'ON') problems.push(`log_bin is ${get('log_bin') ?? 'unknown'} (start the server with --log-bin)`);
  if (get('binlog_format') !== 'ROW') problems.push(`binlog_format is ${get('binlog_format') ?? 'unknown'}, ROW is required`);
  if (get('binlog_row_image') !== 'FULL') problems.push(`binlog_row_image is ${get('binlog_row_image') ?? 'unknown'}, FULL is required (a row's bucket is computed from its full image)`);
  if (problems.length > 0) throw new ReshardingError('binlog-format', `${label}: ${problems.join('; ')}.`);
}
