import type { Connection } from 'mysql2/promise';
import type { BinlogPosition } from './binlog-position.js';
import { ReshardingError } from './errors.js';
import { quoteId, rows } from './endpoint.js';
import type { MoveSpec } from './move-plan.js';
import { parseMoveState, type MoveState } from './move-state.js';

/** One move as `tsh_moves` holds it. */
export interface MoveRecord {
  readonly id: number;
  readonly state: MoveState;
  readonly spec: MoveSpec;
  readonly fromVersion: number;
  readonly toVersion: number | undefined;
  /** Where the forward catch-up starts / has applied up to (source binlog). */
  readonly forward: BinlogPosition | undefined;
  /** Where the reverse stream (target → source) has applied up to (target binlog). */
  readonly reverse: BinlogPosition | undefined;
  /** The plan created the target's database (a new shard): cancel drops it. */
  readonly createdTarget: boolean;
  readonly error: string | undefined;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** Progress of one table of a move, as `tsh_move_tables` holds it. */
export interface MoveTableRecord {
  readonly table: string;
  readonly lastKey: unknown[] | undefined;
  readonly rowsCopied: number;
  readonly copyDone: boolean;
  /** Verify: last bucket checked (resumable), and mismatching keys found. */
  readonly verifiedUpTo: number | undefined;
  readonly verify: VerifyResult | undefined;
}

/** The verify outcome of one table. */
export interface VerifyResult {
  readonly chunks: number;
  readonly rows: number;
  /** Primary keys (as arrays) of rows that differ, are missing on the target or extra on it. */
  readonly mismatches: readonly { readonly key: readonly unknown[]; readonly kind: 'differs' | 'missing' | 'extra' }[];
}

/**
 * The move ledger in the topology store's metadata database: `tsh_moves` (one row per move)
 * and `tsh_move_tables` (one row per table per move). Every update is one statement, so a
 * killed mover leaves a state it can resume from.
 */
export class MoveStore {
  constructor(
    private readonly conn: Connection,
    private readonly database: string,
  ) {}

  private t(name: string): string {
    return `${quoteId(this.database)}.${quoteId(name)}`;
  }

  async ensureSchema(): Promise<void> {
    await this.conn.query(`CREATE DATABASE IF NOT EXISTS ${quoteId(this.database)}`);
    await this.conn.query(`CREATE TABLE IF NOT EXISTS ${this.t('tsh_moves')} (
      id BIGINT AUTO_INCREMENT PRIMARY KEY,
      state VARCHAR(16) NOT NULL,
      source VARCHAR(128) NOT NULL,
      target VARCHAR(128) NOT NULL,
      ranges LONGTEXT NOT NULL,
      spec LONGTEXT NOT NULL,
      from_version BIGINT NOT NULL,
      to_version BIGINT NULL,
      forward_file VARCHAR(255) NULL, forward_pos BIGINT NULL, forward_gtid VARCHAR(255) NULL,
      reverse_file VARCHAR(255) NULL, reverse_pos BIGINT NULL,
      created_target TINYINT NOT NULL DEFAULT 0,
      error TEXT NULL,
      created_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
      updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)
    )`);
    await this.conn.query(`CREATE TABLE IF NOT EXISTS ${this.t('tsh_move_tables')} (
      move_id BIGINT NOT NULL,
      table_name VARCHAR(64) NOT NULL,
      last_key LONGTEXT NULL,
      rows_copied BIGINT NOT NULL DEFAULT 0,
      copy_done TINYINT NOT NULL DEFAULT 0,
      verified_up_to INT NULL,
      verify_result LONGTEXT NULL,
      PRIMARY KEY (move_id, table_name)
    )`);
  }

  async create(spec: MoveSpec, fromVersion: number, createdTarget: boolean, tables: readonly string[]): Promise<number> {
    const [result] = await this.conn.query(
      `INSERT INTO ${this.t('tsh_moves')} (state, source, target, ranges, spec, from_version, created_target) VALUES ('planned', ?, ?, ?, ?, ?, ?)`,
      [spec.source, spec.target, JSON.stringify(spec.ranges), JSON.stringify(spec), fromVersion, createdTarget ? 1 : 0],
    );
    const id = (result as { insertId: number }).insertId;
    for (const table of tables) {
      await this.conn.query(`INSERT IGNORE INTO ${this.t('tsh_move_tables')} (move_id, table_name) VALUES (?, ?)`, [id, table]);
    }
    return id;
  }

  async get(id: number): Promise<MoveRecord> {
    const [row] = await rows(this.conn, `SELECT * FROM ${this.t('tsh_moves')} WHERE id = ?`, [id]);
    if (!row) throw new ReshardingError('unknown-move', `No move ${id} in ${this.database}.tsh_moves.`, { moveId: id });
    return toRecord(row);
  }

  async list(): Promise<MoveRecord[]> {
    return (await rows(this.conn, `SELECT * FROM ${this.t('tsh_moves')} ORDER BY id`)).map(toRecord);
  }

  /** Moves `id` to `state`, only if it is in one of `from` (a guard against two movers). */
  async transition(id: number, from: readonly MoveState[], state: MoveState, error: string | null = null): Promise<void> {
    const [result] = await this.conn.query(
      `UPDATE ${this.t('tsh_moves')} SET state = ?, error = ? WHERE id = ? AND state IN (${from.map(() => '?').join(', ')})`,
      [state, error, id, ...from],
    );
    if ((result as { affectedRows: number }).affectedRows === 0) {
      const now = await this.get(id);
      if (now.state !== state) throw new ReshardingError('bad-state', `Move ${id} is ${now.state}, not ${from.join('/')}: another mover changed it.`, { moveId: id });
    }
  }

  async setForward(id: number, p: BinlogPosition): Promise<void> {
    await this.conn.query(`UPDATE ${this.t('tsh_moves')} SET forward_file = ?, forward_pos = ?, forward_gtid = COALESCE(?, forward_gtid) WHERE id = ?`, [p.file, p.pos, p.gtid ?? null, id]);
  }

  async setReverse(id: number, p: BinlogPosition): Promise<void> {
    await this.conn.query(`UPDATE ${this.t('tsh_moves')} SET reverse_file = ?, reverse_pos = ? WHERE id = ?`, [p.file, p.pos, id]);
  }

  async setToVersion(id: number, version: number): Promise<void> {
    await this.conn.query(`UPDATE ${this.t('tsh_moves')} SET to_version = ? WHERE id = ?`, [version, id]);
  }

  async tables(id: number): Promise<MoveTableRecord[]> {
    return (await rows(this.conn, `SELECT * FROM ${this.t('tsh_move_tables')} WHERE move_id = ? ORDER BY table_name`, [id])).map((r) => ({
      table: String(r.table_name),
      lastKey: r.last_key == null ? undefined : (JSON.parse(String(r.last_key)) as unknown[]),
      rowsCopied: Number(r.rows_copied),
      copyDone: Number(r.copy_done) === 1,
      verifiedUpTo: r.verified_up_to == null ? undefined : Number(r.verified_up_to),
      verify: r.verify_result == null ? undefined : (JSON.parse(String(r.verify_result)) as VerifyResult),
    }));
  }

  async copyProgress(id: number, table: string, lastKey: unknown[], rowsAdded: number, done: boolean): Promise<void> {
    await this.conn.query(
      `UPDATE ${this.t('tsh_move_tables')} SET last_key = ?, rows_copied = rows_copied + ?, copy_done = ? WHERE move_id = ? AND table_name = ?`,
      [JSON.stringify(lastKey), rowsAdded, done ? 1 : 0, id, table],
    );
  }

  async copyFinished(id: number, table: string): Promise<void> {
    await this.conn.query(`UPDATE ${this.t('tsh_move_tables')} SET copy_done = 1 WHERE move_id = ? AND table_name = ?`, [id, table]);
  }

  async verifyProgress(id: number, table: string, upTo: number | null, result: VerifyResult | null): Promise<void> {
    await this.conn.query(`UPDATE ${this.t('tsh_move_tables')} SET verified_up_to = ?, verify_result = ? WHERE move_id = ? AND table_name = ?`, [
      upTo,
      result === null ? null : JSON.stringify(result),
      id,
      table,
    ]);
  }
}

function toRecord(r: Record<string, unknown>): MoveRecord {
  const pos = (file: unknown, p: unknown, gtid?: unknown): BinlogPosition | undefined =>
    file == null ? undefined : { file: String(file), pos: Number(p), ...(gtid == null ? {} : { gtid: String(gtid) }) };
  return {
    id: Number(r.id),
    state: parseMoveState(r.state),
    spec: JSON.parse(String(r.spec)) as MoveSpec,
    fromVersion: Number(r.from_version),
    toVersion: r.to_version == null ? undefined : Number(r.to_version),
    forward: pos(r.forward_file, r.forward_pos, r.forward_gtid),
    reverse: pos(r.reverse_file, r.reverse_pos),
    createdTarget: Number(r.created_target) === 1,
    error: r.error == null ? undefined : String(r.error),
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
  };
}
