/** One row of the worker-id lease table: who holds a worker id, and until when. */
export interface LeaseRow {
  readonly workerId: number;
  /** Who holds it: host, pid and a random tag (for people reading the table). */
  readonly owner: string;
  /**
   * Unix milliseconds, by the holder's clock: the holder issues ids only with earlier times, and
   * another process may take the worker id over once its own clock has passed this. It stays in
   * the row after the holder is gone, as the floor of the next holder's ids.
   */
  readonly expiresAt: number;
}

/**
 * Where worker-id leases are kept. Every write is one conditional statement, so concurrent
 * processes cannot both win: the statement that changes the row decides.
 */
export interface LeaseStore {
  /** Creates the table when it does not exist. */
  prepare(): Promise<void>;
  /** Every row. */
  list(): Promise<LeaseRow[]>;
  /** Adds a row for a worker id without one; false when a row appeared meanwhile. */
  insert(row: LeaseRow): Promise<boolean>;
  /** Gives `expected`'s worker id to `owner` if its row is still exactly `expected`; false otherwise. */
  takeOver(expected: LeaseRow, owner: string, expiresAt: number): Promise<boolean>;
  /** Moves the end of `owner`'s lease on `workerId`; false when `owner` no longer holds it. */
  extend(workerId: number, owner: string, expiresAt: number): Promise<boolean>;
  /**
   * False while a write would join someone else's open transaction (SQLite: one connection per
   * database), where a rollback could undo a renewal the lease already relies on.
   */
  canWriteNow(): boolean;
}
