import type { LeaseRow, LeaseStore } from '../lease-store.js';

/** A lease table in memory with the SQL store's semantics; `calls` logs every write. */
export class MemoryLeaseStore implements LeaseStore {
  readonly rows = new Map<number, LeaseRow>();
  readonly calls: string[] = [];
  /** Set to make the next writes fail, as an unreachable database would. */
  failWith: Error | undefined;
  /** Set to false to stand for a user's open SQLite transaction. */
  writable = true;
  /** Runs before each insert (e.g. to let a rival process win the race). */
  beforeInsert: ((row: LeaseRow) => void) | undefined;

  async prepare(): Promise<void> {}

  async list(): Promise<LeaseRow[]> {
    return [...this.rows.values()];
  }

  async insert(row: LeaseRow): Promise<boolean> {
    this.write(`insert ${row.workerId}`);
    this.beforeInsert?.(row);
    if (this.rows.has(row.workerId)) return false;
    this.rows.set(row.workerId, row);
    return true;
  }

  async takeOver(expected: LeaseRow, owner: string, expiresAt: number): Promise<boolean> {
    this.write(`takeOver ${expected.workerId}`);
    const row = this.rows.get(expected.workerId);
    if (!row || row.owner !== expected.owner || row.expiresAt !== expected.expiresAt) return false;
    this.rows.set(expected.workerId, { workerId: expected.workerId, owner, expiresAt });
    return true;
  }

  async extend(workerId: number, owner: string, expiresAt: number): Promise<boolean> {
    this.write(`extend ${workerId} ${expiresAt}`);
    const row = this.rows.get(workerId);
    if (!row || row.owner !== owner) return false;
    this.rows.set(workerId, { ...row, expiresAt });
    return true;
  }

  canWriteNow(): boolean {
    return this.writable;
  }

  private write(call: string): void {
    this.calls.push(call);
    if (this.failWith) throw this.failWith;
  }
}
