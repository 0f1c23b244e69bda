import type { QueryRunner } from 'typeorm';
import { isDuplicateEntry, protocolQuery } from './xa-branch.js';
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
 * transaction's commit decision is a row `commit` inserted inside the coordinator server's own
 * local transaction before its first `XA PREPARE`, so that the decision and that server's part
 * of the transaction commit together (Vitess's metadata-manager shard) and nobody sees it
 * before. A resolver that meets a prepared branch with no record inserts `rollback` for it: the
 * primary key makes that insert wait for the coordinator's uncommitted row, and exactly one of
 * them wins. (A transaction without a coordinator is recorded `prepared` in autocommit first and
 * moved on with `WHERE state = 'prepared'` under the row lock, by itself to `commit` or by a
 * resolver to `rollback`.)
 *
 * Recovery is presumed abort: a prepared branch whose record is missing (once claimed), or says
 * `rollback`, is rolled back; one whose record says `commit` is committed.
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

  /** Records `xid` as prepared (autocommit, durable before any branch is prepared): a transaction without a coordinator. */
  async record(xid: string, participants: readonly string[]): Promise<void> {
    await this.server.query(`INSERT INTO ${this.table} (xid, state, participants) VALUES (?, 'prepared', ?)`, [xid, participants.join(',').slice(0, 2048)]);
  }

  /**
   * Writes the commit decision of `xid` inside the coordinator's local transaction (`runner`),
   * before any branch is prepared. Nobody sees it before that transaction commits — then it is
   * the decision, durable with the coordinator's own part — and it vanishes if it rolls back. Its
   * row lock makes a resolver's `claimAbsent` wait for that outcome.
   */
  async recordCommit(xid: string, participants: readonly string[], runner: QueryRunner): Promise<void> {
    await protocolQuery(runner, `INSERT INTO ${this.table} (xid, state, participants) VALUES (?, 'commit', ?)`, [xid, participants.join(',').slice(0, 2048)]);
  }

  /**
   * For a prepared branch whose transaction has no record in sight: writes `rollback` (autocommit).
   * A coordinator still running holds its uncommitted `commit` record, so this waits for it: true
   * when the record is now `rollback` (the coordinator never decided, or rolled back), false when
   * a record was there (read it again).
   */
  async claimAbsent(xid: string): Promise<boolean> {
    try {
      await this.server.query(`INSERT INTO ${this.table} (xid, state) VALUES (?, 'rollback')`, [xid]);
      return true;
    } catch (error) {
      if (isDuplicateEntry(error)) return false;
      throw error;
    }
  }

  /**
   * The commit decision of a transaction without a coordinator (autocommit). False: the record is
   * no longer `prepared` (a resolver rolled the transaction back, or removed its record).
   */
  async decide(xid: string): Promise<boolean> {
    return affectedRows(await this.server.query(`UPDATE ${this.table} SET state = 'commit' WHERE xid = ? AND state = 'prepared'`, [xid])) === 1;
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
