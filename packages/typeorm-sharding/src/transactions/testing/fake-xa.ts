import type { QueryRunner } from 'typeorm';
import type { XaServer } from '../xa-server.js';

/** An error as mysql2 raises it: a server's (errno) or a lost connection (fatal). */
export function driverError(message: string, errno?: number): Error {
  return Object.assign(new Error(message), errno === undefined ? { code: 'PROTOCOL_CONNECTION_LOST', fatal: true } : { errno, code: `ER_${errno}` });
}

/**
 * A fake MySQL server for the XA coordinator and resolver: a decision-log table, the prepared
 * branches `XA RECOVER` lists, and a log of every statement. `fail` makes a statement (matched by
 * its start) fail once with the given error.
 */
export class FakeXaServer implements XaServer {
  readonly log: string[] = [];
  readonly records = new Map<string, { state: string; ageUs: number }>();
  /** Prepared branches (`gtrid|bqual`), as XA RECOVER lists them. */
  readonly prepared = new Set<string>();
  /** Branches whose XA COMMIT / ROLLBACK from another connection answers "unknown XID" (still attached). */
  readonly attached = new Set<string>();
  readonly failures: { match: string; error: Error }[] = [];
  down = false;
  version = '10.11.19-MariaDB';

  constructor(
    readonly name: string,
    readonly id: number,
    readonly logDatabase = `db_${name}`,
  ) {}

  fail(match: string, error: Error): void {
    this.failures.push({ match, error });
  }

  async query(sql: string, parameters: readonly unknown[] = []): Promise<unknown> {
    this.log.push(sql.startsWith('XA') ? sql.replace(/,\d+$/, '') : `${sql.split(' ')[0]} ${String(parameters[0] ?? '')}`.trim());
    if (this.down) throw driverError('connect ECONNREFUSED');
    const failure = this.failures.findIndex((f) => sql.startsWith(f.match));
    if (failure >= 0) throw this.failures.splice(failure, 1)[0]!.error;
    const xid = /^XA (COMMIT|ROLLBACK) '([^']+)','([^']+)'/.exec(sql);
    if (xid) {
      const key = `${xid[2]}|${xid[3]}`;
      if (!this.prepared.has(key) || this.attached.has(key)) throw driverError('XAER_NOTA: Unknown XID', 1397);
      this.prepared.delete(key);
      return {};
    }
    if (sql === 'XA RECOVER') {
      return [...this.prepared].map((key) => {
        const [g, b] = key.split('|') as [string, string];
        return { formatID: 0x747368, gtrid_length: g.length, bqual_length: b.length, data: Buffer.from(g + b, 'latin1') };
      });
    }
    if (sql.startsWith('SELECT VERSION()')) return [{ v: this.version }];
    if (sql.startsWith('CREATE TABLE')) return {};
    if (sql.startsWith('INSERT')) {
      // A record is new or a duplicate (a real server would first wait for an uncommitted one).
      if (this.records.has(String(parameters[0]))) throw driverError(`Duplicate entry '${String(parameters[0])}' for key 'PRIMARY'`, 1062);
      this.records.set(String(parameters[0]), { state: /VALUES \(\?, '(\w+)'/.exec(sql)![1]!, ageUs: 0 });
      return { affectedRows: 1 };
    }
    if (sql.startsWith('UPDATE')) {
      const state = /SET state = '(\w+)'/.exec(sql)![1]!;
      const record = this.records.get(String(parameters[0]));
      if (record?.state !== 'prepared') return { affectedRows: 0 };
      record.state = state;
      return { affectedRows: 1 };
    }
    if (sql.startsWith('SELECT')) {
      const rows = [...this.records].map(([x, r]) => ({ xid: x, state: r.state, age: r.ageUs }));
      return sql.includes('WHERE xid = ?') ? rows.filter((r) => r.xid === parameters[0]) : rows;
    }
    if (sql.startsWith('DELETE')) {
      for (const p of parameters) this.records.delete(String(p));
      return { affectedRows: parameters.length };
    }
    throw new Error(`fake server cannot run: ${sql}`);
  }
}

/**
 * A branch connection on a fake server: XA START … XA PREPARE move the branch into the server's
 * prepared set; `COMMIT` / `INSERT` / `UPDATE` of the coordinator's local transaction act on the
 * server's log. `failOn` makes one statement fail; `applyThenFail` applies it and then fails (a lost reply).
 */
export function fakeRunner(server: FakeXaServer, options: { failOn?: string; applyThenFail?: string; error?: Error } = {}) {
  const pending: (() => void)[] = [];
  const mine = new Set<string>();
  let released = 0;
  let destroyed = false;
  const runner = {
    databaseConnection: {
      destroy: () => {
        // A closed connection detaches its prepared branch.
        destroyed = true;
        for (const key of mine) server.attached.delete(key);
      },
    },
    async query(sql: string, parameters: unknown[] = [], structured = false) {
      server.log.push(sql.startsWith('XA') ? sql.replace(/,\d+$/, '') : `${sql.split(' ')[0]} ${String(parameters[0] ?? '')}`.trim());
      if (destroyed) throw driverError('Can\'t add new command when connection is in closed state');
      const error = options.error ?? driverError('connection lost');
      if (options.failOn && sql.startsWith(options.failOn)) throw error;
      const prepare = /^XA PREPARE '([^']+)','([^']+)'/.exec(sql);
      if (prepare) {
        const key = `${prepare[1]}|${prepare[2]}`;
        server.prepared.add(key);
        server.attached.add(key);
        mine.add(key);
      }
      const end = /^XA (COMMIT|ROLLBACK) '([^']+)','([^']+)'/.exec(sql);
      if (end) {
        server.prepared.delete(`${end[2]}|${end[3]}`);
        server.attached.delete(`${end[2]}|${end[3]}`);
      }
      if (sql.startsWith('INSERT')) {
        // The coordinator's decision, inserted in its local transaction: visible to others only at its COMMIT.
        const xid = String(parameters[0]);
        if (server.records.has(xid)) throw driverError(`Duplicate entry '${xid}' for key 'PRIMARY'`, 1062);
        pending.push(() => server.records.set(xid, { state: 'commit', ageUs: 0 }));
        if (options.applyThenFail && sql.startsWith(options.applyThenFail)) throw error;
        return structured ? { affected: 1 } : { affectedRows: 1 };
      }
      if (sql.startsWith('UPDATE')) {
        // The coordinator's decision: visible to others only at its COMMIT.
        const record = server.records.get(String(parameters[0]));
        const affected = record?.state === 'prepared' ? 1 : 0;
        if (affected) pending.push(() => (record!.state = 'commit'));
        if (options.applyThenFail && sql.startsWith(options.applyThenFail)) throw error;
        return structured ? { affected } : { affectedRows: affected };
      }
      if (sql === 'COMMIT') pending.splice(0).forEach((apply) => apply());
      if (sql === 'ROLLBACK') pending.length = 0;
      if (options.applyThenFail && sql.startsWith(options.applyThenFail)) {
        // The reply is lost with the connection: a prepared branch is detached.
        if (prepare) server.attached.delete(`${prepare[1]}|${prepare[2]}`);
        destroyed = true;
        throw error;
      }
      return structured ? {} : [];
    },
    async release() {
      released++;
    },
  };
  return { runner: runner as unknown as QueryRunner, released: () => released, destroyed: () => destroyed };
}
