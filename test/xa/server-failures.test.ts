import 'reflect-metadata';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { QueryFailedError, type EntityManager } from 'typeorm';
import { PrepareFailedError, type ShardedDataSource, type TransactionStepEvent } from '../../packages/typeorm-sharding/src/index.js';
import { canStartMariadb } from '../support/mariadb-cluster.js';
import { Account, Leg, Stock } from './support/xa-entities.js';
import { logRecords, rowsEverywhere, startXaEnv, type XaEnv } from './support/xa-env.js';

// Issue 11: what a server failing at each step of a cross-server commit leaves, in-process:
// a failure before the decision rolls every server back with a typed error naming the server; a
// failure after it never reports a rollback, and the resolver finishes what was left prepared.
// Also savepoints and isolation levels inside XA branches, DDL inside a cross-server transaction,
// and a transaction on one server paying nothing for XA.

const ACCOUNTS = 24;

describe.runIf(canStartMariadb())('server failures during a cross-server commit (3 MariaDB servers)', () => {
  let env: XaEnv;
  let ds: ShardedDataSource;
  let onStep: ((e: TransactionStepEvent) => Promise<void> | void) | undefined;
  const steps: string[] = [];
  const warnings: string[] = [];
  /** One account id per server, db0 first. */
  let idOn: number[][];

  beforeAll(async () => {
    env = await startXaEnv(`xasf_${process.pid}`);
    const logger = { log: (level: string, message: unknown) => void (level === 'warn' && warnings.push(String(message))), logQuery() {}, logQueryError() {}, logQuerySlow() {}, logSchemaBuild() {}, logMigration() {} };
    ds = env.source(
      {
        transactions: {
          resolveIntervalMs: false,
          onStep: async (e) => {
            steps.push(`${e.step}${e.server ? ` ${e.server}` : ''}${e.outcome ? ` ${e.outcome}` : ''}`);
            await onStep?.(e);
          },
        },
      },
      { logger },
    );
    await ds.initialize();
    await ds.synchronize();
    idOn = [[], [], []];
    for (let id = 1; id <= ACCOUNTS; id++) {
      const server = env.shards.find((s) => s.name === ds.shardOf(Account, id))!.server;
      idOn[Number(server.slice(2))]!.push(id);
    }
  }, 120_000);

  afterAll(async () => {
    await ds?.destroy();
    await env?.stop();
  });

  beforeEach(async () => {
    onStep = undefined;
    steps.length = 0;
    warnings.length = 0;
    await ds.query('DELETE FROM xa_legs WHERE 1 = 1');
    await ds.query('DELETE FROM xa_accounts WHERE 1 = 1');
    await ds.query('DELETE FROM xa_stock WHERE 1 = 1');
    await ds.getRepository(Stock).insert([{ id: 1, qty: 10 }, { id: 2, qty: 10 }]);
    await ds.getRepository(Account).insert(Array.from({ length: ACCOUNTS }, (_, i) => ({ id: i + 1, balance: 100 })));
    steps.length = 0;
  });

  /** Moves 10 from an account on db0 to one on db1 and one on db2 (db0 is touched first: the coordinator). */
  const transfer = (em: EntityManager) =>
    (async () => {
      await em.decrement(Account, { id: idOn[0]![0]! }, 'balance', 20);
      await em.increment(Account, { id: idOn[1]![0]! }, 'balance', 10);
      await em.increment(Account, { id: idOn[2]![0]! }, 'balance', 10);
    })();

  const balances = async () => Object.fromEntries((await rowsEverywhere<{ id: number; balance: number }>(env, 'xa_accounts')).map((r) => [r.id, r.balance]));
  const unchanged = () => Object.fromEntries(Array.from({ length: ACCOUNTS }, (_, i) => [i + 1, 100]));
  const moved = () => ({ ...unchanged(), [idOn[0]![0]!]: 80, [idOn[1]![0]!]: 110, [idOn[2]![0]!]: 110 });

  /** Kills every client connection of server `i` (the data source's pool and its transaction's branch). */
  async function killConnections(i: number): Promise<void> {
    const [rows] = (await env.sql(i, "SELECT ID FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND USER = 'root'")) as [{ ID: number }[]];
    await env.sql(i, ...rows.map((r) => `KILL CONNECTION ${r.ID}`));
  }

  /** Resolver passes until nothing is prepared or recorded on any server. */
  async function settle(): Promise<void> {
    for (let pass = 0; pass < 100; pass++) {
      const report = await ds.resolveTransactions();
      if (report.pending === 0 && (await Promise.all([0, 1, 2].map((i) => env.recover(i)))).flat().length === 0 && (await logRecords(env)).length === 0) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the resolver did not settle');
  }

  it('commits a transfer over three servers as one, and a transaction on one server uses no XA at all', async () => {
    await ds.transaction(transfer);
    expect(await balances()).toEqual(moved());
    // Recorded first, both branches prepared (in either order) before the decision, committed after it.
    expect([...steps].sort()).toEqual(['committed db1', 'committed db2', 'decided', 'prepared db1', 'prepared db2', 'recorded']);
    expect(steps[0]).toBe('recorded');
    expect(steps[3]).toBe('decided');
    // Its record is removed soon after (in a batch, off the caller's path).
    await settle();
    steps.length = 0;
    await ds.transaction(async (em) => {
      await em.increment(Account, { id: idOn[1]![0]! }, 'balance', 1);
      await em.increment(Account, { id: idOn[1]![1]! }, 'balance', 1);
    });
    expect(steps).toEqual([]);
    expect(await logRecords(env)).toEqual([]);
  });

  it('a participant whose connection dies before its PREPARE: every server rolled back, PrepareFailedError names it', async () => {
    onStep = (e) => (e.step === 'recorded' ? killConnections(1) : undefined);
    const error = await ds.transaction(transfer).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PrepareFailedError);
    expect(error).toMatchObject({ server: 'db1', code: 'SHARDING_PREPARE_FAILED' });
    expect((error as Error).message).toMatch(/COMMIT failed on server db1 \(XA (END|PREPARE) failed\).*every server's part of the transaction was rolled back/);
    expect(steps).toContain('rolled-back');
    await settle();
    expect(await balances()).toEqual(unchanged());
    // The data source goes on.
    onStep = undefined;
    await ds.transaction(transfer);
    expect(await balances()).toEqual(moved());
  });

  it('a participant server that goes down before its PREPARE: rolled back everywhere; after its restart nothing is left', async () => {
    onStep = (e) => (e.step === 'recorded' ? env.cluster.kill(env.nodes[2]!) : undefined);
    const error = await ds.transaction(transfer).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PrepareFailedError);
    expect(error).toMatchObject({ server: 'db2' });
    await env.cluster.restart(env.nodes[2]!);
    await settle();
    expect(await balances()).toEqual(unchanged());
  });

  it('after the decision, a branch whose connection dies is committed from a fresh connection: the caller sees success', async () => {
    onStep = (e) => (e.step === 'decided' ? killConnections(2) : undefined);
    await ds.transaction(transfer);
    await settle();
    expect(await balances()).toEqual(moved());
    expect(warnings).toEqual([]);
  });

  it('after the decision, a server that is down: success, a warning, and its part is committed by the resolver once it is back', async () => {
    onStep = (e) => (e.step === 'decided' ? env.cluster.kill(env.nodes[2]!) : undefined);
    await ds.transaction(transfer);
    expect(warnings.join('\n')).toMatch(/XA COMMIT of committed transaction .* failed on server db2 .* stays prepared/);
    await env.cluster.restart(env.nodes[2]!);
    // The prepared branch survived the server's restart, and the resolver (nudged by the failed commit, or this pass) commits it.
    onStep = undefined;
    await settle();
    expect(steps).toContain('resolved db2 commit');
    expect(await balances()).toEqual(moved());
  });

  // The decision sits uncommitted in the coordinator's transaction: another process's resolver
  // that meets the prepared branches waits on its row lock (here until innodb_lock_wait_timeout,
  // 1 s, since the coordinator waits for this very step) and rolls nothing back; the transaction commits.
  it('a prepare phase that outlives resolveAfterMs is left to its live coordinator by another process resolver, and commits', async () => {
    const other = await env.source({ transactions: { resolveAfterMs: 0, resolveIntervalMs: false } }).initialize();
    try {
      let report: { committed: number; rolledBack: number; pending: number } | undefined;
      onStep = async (e) => {
        if (e.step !== 'prepared' || report) return;
        report = { committed: 0, rolledBack: 0, pending: 0 };
        report = await other.resolveTransactions();
      };
      await ds.transaction(transfer);
      expect(report?.rolledBack).toBe(0);
      expect(report?.pending).toBeGreaterThan(0);
      await settle();
      expect(await balances()).toEqual(moved());
    } finally {
      await other.destroy();
    }
  });

  it('savepoints inside XA branches: a nested transaction rolled back undoes its work on every server, before and after it joined', async () => {
    await ds.transaction(async (em) => {
      await em.increment(Account, { id: idOn[0]![0]! }, 'balance', 1);
      await em.increment(Account, { id: idOn[1]![0]! }, 'balance', 1);
      await em
        .transaction(async (inner) => {
          await inner.increment(Account, { id: idOn[1]![0]! }, 'balance', 100);
          // db2 joins the transaction inside the savepoint, as an XA branch.
          await inner.increment(Account, { id: idOn[2]![0]! }, 'balance', 100);
          throw new Error('inner');
        })
        .catch(() => undefined);
      await em.increment(Account, { id: idOn[2]![1]! }, 'balance', 1);
    });
    expect(await balances()).toEqual({ ...unchanged(), [idOn[0]![0]!]: 101, [idOn[1]![0]!]: 101, [idOn[2]![1]!]: 101 });
  });

  it('the isolation level is replayed on a server that joins as an XA branch (SERIALIZABLE reads lock the row)', async () => {
    const row = idOn[2]![0]!;
    const error = await ds
      .transaction('SERIALIZABLE', async (em) => {
        await em.increment(Account, { id: idOn[0]![0]! }, 'balance', 1);
        await em.findOneBy(Account, { id: row });
        // A SERIALIZABLE read took a shared lock on db2: another writer waits and times out (1 s).
        const [db] = env.shards.filter((s) => s.name === ds.shardOf(Account, row)).map((s) => s.database);
        await env.sql(2, `UPDATE \`${db}\`.xa_accounts SET balance = 0 WHERE id = ${row}`);
      })
      .catch((e: unknown) => e);
    expect((error as { code?: string }).code ?? String(error)).toMatch(/ER_LOCK_WAIT_TIMEOUT|Lock wait timeout/);
    expect(await balances()).toEqual(unchanged());
  });

  it('DDL inside a cross-server transaction commits it first, as MySQL does, and what follows runs outside it', async () => {
    await ds.transaction(async (em) => {
      await transfer(em);
      await em.query('CREATE TABLE IF NOT EXISTS xa_ddl_probe (id INT PRIMARY KEY)');
      await em.increment(Account, { id: idOn[1]![1]! }, 'balance', 5);
      // The ROLLBACK TypeORM sends for this cannot undo what the DDL committed, nor the autocommit after it.
      throw new Error('after DDL');
    }).catch(() => undefined);
    expect(await balances()).toEqual({ ...moved(), [idOn[1]![1]!]: 105 });
    await ds.query('DROP TABLE xa_ddl_probe');
  });

  it('a statement failing inside a cross-server transaction (duplicate key) rolls it all back when the callback rethrows', async () => {
    await ds.getRepository(Leg).insert({ txid: 'dup', accountId: idOn[2]![0]!, delta: 0, legs: 1 });
    const error = await ds.transaction(async (em) => {
      await transfer(em);
      await em.insert(Leg, { txid: 'dup', accountId: idOn[2]![0]!, delta: 0, legs: 1 });
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QueryFailedError);
    expect(await balances()).toEqual(unchanged());
    await settle();
  });

  describe('broadcast tables: a failure on one server leaves every copy identical', () => {
    /** Every copy of the stock table, as `shard database: id=qty,…`. */
    const copies = async () => {
      const rows = await rowsEverywhere<{ id: number; qty: number }>(env, 'xa_stock');
      const by = new Map<string, string[]>();
      for (const r of rows.sort((a, b) => a.id - b.id)) by.set(r.database, [...(by.get(r.database) ?? []), `${r.id}=${r.qty}`]);
      return [...by.values()].map((v) => v.join(','));
    };
    const expectCopies = async (content: string) => expect(await copies()).toEqual(env.shards.map(() => content));
    /** A trigger on the copy of the last shard of db2 refuses negative stock. */
    const lastCopy = () => env.shards.filter((s) => s.server === 'db2').at(-1)!.database;
    beforeAll(async () => {
      await env.sql(2, `CREATE TRIGGER \`${lastCopy()}\`.xa_stock_guard BEFORE UPDATE ON \`${lastCopy()}\`.xa_stock FOR EACH ROW BEGIN IF NEW.qty < 0 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no negative stock on this copy'; END IF; END`);
    });
    afterAll(async () => {
      await env.sql(2, `DROP TRIGGER IF EXISTS \`${lastCopy()}\`.xa_stock_guard`);
    });

    it('a write outside a transaction reaches every copy on every server in one (XA) transaction', async () => {
      await ds.getRepository(Stock).update({ id: 1 }, { qty: 7 });
      await expectCopies('1=7,2=10');
      expect(steps).toEqual(expect.arrayContaining(['recorded', 'decided', 'committed db1', 'committed db2']));
    });

    it('a copy that refuses the write (outside a transaction): the database error naming the shard, no copy changed', async () => {
      const error = await ds.getRepository(Stock).update({ id: 1 }, { qty: -1 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(QueryFailedError);
      expect((error as Error).message).toMatch(/no negative stock on this copy/);
      expect((error as { shard?: string }).shard).toBe(env.shards.at(-1)!.name);
      await expectCopies('1=10,2=10');
    });

    it('inside a transaction that goes on after the error: the failed write is undone on every copy, the rest commits', async () => {
      await ds.transaction(async (em) => {
        await em.update(Stock, { id: 2 }, { qty: 9 });
        await em.update(Stock, { id: 1 }, { qty: -1 }).catch(() => undefined);
        await em.update(Stock, { id: 2 }, { qty: 8 });
      });
      await expectCopies('1=10,2=8');
    });

    it('a server that fails to PREPARE the write: every copy rolled back', async () => {
      onStep = (e) => (e.step === 'recorded' ? killConnections(1) : undefined);
      const error = await ds.getRepository(Stock).update({ id: 2 }, { qty: 3 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PrepareFailedError);
      onStep = undefined;
      await settle();
      await expectCopies('1=10,2=10');
    });
  });
});
