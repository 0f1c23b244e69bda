import type { QueryRunner } from 'typeorm';
import { protocolQuery } from './xa-branch.js';
import { qualifiedName, type XaServer } from './xa-server.js';

/** The state of a transaction in the log. */
export type DecisionState = 'prepared' | 'commit' | 'rollback';

/** One row of the log. */
export interface DecisionRecord {
  readonly xid: string;
  readonly state: DecisionState;
  /** Microseconds since the record was written, by the log server's clock. */
  readonly ageUs: number;
}

/**
 * The decision log of one server (a table in the database of its first shard). A cross-server
 * transaction is recorded there, in autocommit, before its first `XA PREPARE` (state
 * `prepared`); the commit decision is an UPDATE to `commit` made inside the coordinator
 * server's own local transaction, so that the decision and that server's part of the
 * transaction commit together (Vitess's metadata-manager shard). Either side may move a
 * `prepared` record on: the coordinator to `commit`, a resolver to `rollback` — both with
 * `WHERE state = 'prepared'` under the row lock, so exactly one of them wins.
 *
 * Recovery is presumed abort: a prepared branch whose record is missing, or says `rollback`,
 * is rolled back; one whose record says `commit` is committed.
 */
export class DecisionLog {
  readonly table: string;

  constructor(
    readonly server: XaServer,
    tableName: string,
  ) {
    this.table = qualifiedName(server.logDatabase, tableName);
  }

  /** Creates the table if it is missing. */
  async ensure(): Promise<void> {
    await this.server.query(
      `CREATE TABLE IF NOT EXISTS ${this.table} (` +
        'xid VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY, ' +
        "state VARCHAR(8) CHARACTER SET ascii NOT NULL, " +
        "participants VARCHAR(2048) NOT NULL DEFAULT '', " +
        'created DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)' +
        ') ENGINE=InnoDB',
    );
  }

  /** Records `xid` as prepared (autocommit, durable before any branch is prepared). */
  async record(xid: string, participants: readonly string[]): Promise<void> {
    await this.server.query(`INSERT INTO ${this.table} (xid, state, participants) VALUES (?, 'prepared', ?)`, [xid, participants.join(',').slice(0, 2048)]);
  }

  /**
   * Writes the commit decision inside the coordinator's own transaction (`runner`), or in
   * autocommit when there is none. False: the record is no longer `prepared` (a resolver
   * rolled the transaction back, or removed its record): the transaction must be rolled back.
   */
  async decide(xid: string, runner?: QueryRunner): Promise<boolean> {
    const sql = `UPDATE ${this.table} SET state = 'commit' WHERE xid = ? AND state = 'prepared'`;
    if (!runner) return affectedRows(await this.server.query(sql, [xid])) === 1;
    return affectedRows(await protocolQuery(runner, sql, [xid])) === 1;
  }

  /** Moves a `prepared` record to `rollback`; false when it was not `prepared` (decided, or gone). */
  async claimRollback(xid: string): Promise<boolean> {
    return affectedRows(await this.server.query(`UPDATE ${this.table} SET state = 'rollback' WHERE xid = ? AND state = 'prepared'`, [xid])) === 1;
  }

  /** The record of `xid`, if any. */
  async read(xid: string): Promise<DecisionRecord | undefined> {
    return (await this.select('WHERE xid = ?', [xid]))[0];
  }

  /** Every record (oldest first, at most `limit`). */
  list(limit = 1000): Promise<DecisionRecord[]> {
    return this.select(`ORDER BY created LIMIT ${Math.floor(limit)}`, []);
  }

  /** Removes the records of finished transactions. */
  async forget(xids: readonly string[]): Promise<void> {
    if (xids.length === 0) return;
    await this.server.query(`DELETE FROM ${this.table} WHERE xid IN (${xids.map(() => '?').join(', ')})`, xids);
  }

  private async select(rest: string, parameters: readonly unknown[]): Promise<DecisionRecord[]> {
    const rows = (await this.server.query(`SELECT xid, state, TIMESTAMPDIFF(MICROSECOND, created, NOW(6)) AS age FROM ${this.table} ${rest}`, parameters)) as { xid: string; state: string; age: number | string }[];
    return rows.map((r) => ({ xid: r.xid, state: r.state as DecisionState, ageUs: Number(r.age) }));
  }
}

function affectedRows(raw: unknown): number {
  return Number((raw as { affectedRows?: number } | undefined)?.affectedRows ?? 0);
}
