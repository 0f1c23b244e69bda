import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryFailedError } from 'typeorm';
import { PrepareFailedError, type ShardedDataSource } from '../../packages/typeorm-sharding/src/index.js';
import { canStartMariadb } from '../support/mariadb-cluster.js';
import { Account } from './support/xa-entities.js';
import { logRecords, rowsEverywhere, startXaEnv, type XaEnv } from './support/xa-env.js';

// Issue 11: concurrent transfers between rows on different servers, 32 clients. CI runs 10 s;
// XA_SOAK_SECONDS=60 gives the run. Rows are locked in random order on several servers,
// so transactions deadlock across servers; no server sees such a cycle, each waits out its lock
// wait timeout (1 s here) and fails the statement, and the client retries as a user would.
// Afterwards the total is intact, nothing is left prepared, no transaction is left open.

const CLIENTS = 32;
const ACCOUNTS = 200;
const SECONDS = Number(process.env.XA_SOAK_SECONDS ?? 10);
const START = 1000;

/** The errors a transfer is retried on: the database's deadlock and lock-wait answers. */
function retryable(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return error instanceof QueryFailedError && (code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT');
}

describe.runIf(canStartMariadb())(`${CLIENTS} clients transferring across 3 MariaDB servers for ${SECONDS} s`, () => {
  let env: XaEnv;
  let ds: ShardedDataSource;

  beforeAll(async () => {
    env = await startXaEnv(`xasoak_${process.pid}`);
    ds = await env.source({ transactions: { resolveIntervalMs: 1000 } }, { poolSize: CLIENTS + 8 }).initialize();
    await ds.synchronize();
    await ds.getRepository(Account).insert(Array.from({ length: ACCOUNTS }, (_, i) => ({ id: i + 1, balance: START })));
  }, 120_000);

  afterAll(async () => {
    await ds?.destroy();
    await env?.stop();
  });

  it('keeps the total, leaves no branch prepared and no transaction open, and every client finishes', async () => {
    const deadline = Date.now() + SECONDS * 1000;
    const counts = { committed: 0, retried: 0, failed: 0 };
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 48271) % 2147483647;
      return seed % n;
    };
    const client = async () => {
      while (Date.now() < deadline) {
        const from = 1 + random(ACCOUNTS);
        let to = 1 + random(ACCOUNTS);
        while (ds.shardOf(Account, to) === ds.shardOf(Account, from)) to = 1 + random(ACCOUNTS);
        const amount = 1 + random(20);
        try {
          await ds.transaction(async (em) => {
            await em.decrement(Account, { id: from }, 'balance', amount);
            await em.increment(Account, { id: to }, 'balance', amount);
          });
          counts.committed++;
        } catch (error) {
          if (retryable(error)) counts.retried++;
          else if (error instanceof PrepareFailedError) counts.failed++;
          else throw error;
        }
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: CLIENTS }, client));
    const seconds = (performance.now() - started) / 1000;
    console.log(`transfers: ${counts.committed} committed (${(counts.committed / seconds).toFixed(0)}/s), ${counts.retried} retried after a deadlock or lock wait timeout, ${counts.failed} failed to prepare`);

    expect(counts.committed).toBeGreaterThan(0);
    const accounts = await rowsEverywhere<{ balance: number }>(env, 'xa_accounts');
    expect(accounts).toHaveLength(ACCOUNTS);
    expect(accounts.reduce((s, a) => s + a.balance, 0)).toBe(ACCOUNTS * START);
    for (const [i] of env.nodes.entries()) {
      expect(await env.recover(i)).toEqual([]);
      // No transaction left open (a statement of the resolver or of the record clean-up may be running for a moment).
      let open: unknown[] = [];
      for (let attempt = 0; attempt < 40; attempt++) {
        [open] = (await env.sql(i, 'SELECT t.trx_state, t.trx_started, t.trx_query, p.COMMAND, p.INFO FROM information_schema.INNODB_TRX t LEFT JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id')) as [unknown[]];
        if (open.length === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(open).toEqual([]);
    }
    await ds.resolveTransactions();
    expect(await logRecords(env)).toEqual([]);
  }, (SECONDS + 60) * 1000);
});
