// Transactions across servers (issue 11): a transaction over two servers commits with XA
// two-phase commit and a decision log; one over a single server stays a local transaction. The
// two "servers" are the one benchmark MariaDB reached as two (two pools, two XA branches per
// transaction): every round trip, PREPARE and log write of the protocol is real; the network is
// loopback. Also: the same transfer committed server after server (no atomicity), and a raw
// mysql2 one-server commit as a plain and as an XA ONE PHASE transaction — what starting every
// transaction as XA would cost (the plugin starts the first server's part as a local one).
import mysql from 'mysql2/promise';
import { ShardedDataSource } from 'typeorm-sharding';
import { alternate, pairedRatio } from '../lib/loop.mjs';
import { XaAccount } from '../lib/entities.mjs';
import { MARIADB } from '../lib/mariadb.mjs';
import { log, settleServer } from '../lib/util.mjs';

export const XA_DATABASES = ['bench_xa_0', 'bench_xa_1', 'bench_xa_2', 'bench_xa_3'];
export const XA_VARIANTS = ['local', 'xa', 'sequential', 'rawLocal', 'rawXaOnePhase'];
export const XA_CLIENTS = [1, 16];
const ACCOUNTS = 400;

function source(crossServer, poolSize) {
  const server = { host: MARIADB.host, port: MARIADB.port, poolSize };
  return new ShardedDataSource({
    type: 'mariadb',
    username: MARIADB.user,
    password: MARIADB.password,
    entities: [XaAccount],
    servers: [{ name: 'a', ...server }, { name: 'b', ...server }],
    shards: XA_DATABASES.map((database, i) => ({ name: `s${i}`, server: i % 2 ? 'b' : 'a', database })),
    sharding: { transactions: { crossServer } },
  });
}

export async function runXaCommit(ctx) {
  const { cfg } = ctx;
  const admin = await mysql.createConnection(MARIADB);
  for (const db of XA_DATABASES) {
    await admin.query(`DROP DATABASE IF EXISTS \`${db}\``);
    await admin.query(`CREATE DATABASE \`${db}\``);
  }
  const atomic = await source('atomic', 24).initialize();
  const sequential = await source('sequential', 24).initialize();
  const raw = mysql.createPool({ ...MARIADB, database: XA_DATABASES[0], connectionLimit: 24 });
  try {
    await atomic.synchronize();
    await atomic.getRepository(XaAccount).insert(Array.from({ length: ACCOUNTS }, (_, i) => ({ id: i + 1, balance: 1000 })));
    await raw.query('CREATE TABLE IF NOT EXISTS raw_accounts (id INT PRIMARY KEY, balance INT NOT NULL)');
    await raw.query(`INSERT INTO raw_accounts VALUES ${Array.from({ length: ACCOUNTS }, (_, i) => `(${i + 1}, 1000)`).join(', ')}`);
    // A commit waits for its log flush, four times per XA transfer against once per local one:
    // background work earlier sections left on the server (purging, dropped databases, flushing)
    // would be charged to XA more than to the local commit.
    log(`[xa] waited ${(await settleServer(cfg.quick ? 2000 : 30_000)).toFixed(1)} s for the server to be idle`);
    const serverOf = (id) => (atomic.shardOf(XaAccount, id) === 's0' || atomic.shardOf(XaAccount, id) === 's2' ? 'a' : 'b');
    const onA = [];
    const onB = [];
    for (let id = 1; id <= ACCOUNTS; id++) (serverOf(id) === 'a' ? onA : onB).push(id);
    // A transfer between two accounts; `far`: the second one on the other server.
    const transfer = (ds, i, far) => ds.transaction(async (em) => {
      const from = onA[(i * 7) % onA.length];
      const to = far ? onB[(i * 13) % onB.length] : onA[(i * 13 + 1) % onA.length];
      await em.decrement(XaAccount, { id: from }, 'balance', 1);
      await em.increment(XaAccount, { id: to }, 'balance', 1);
    });
    const rawTransfer = async (i, xa) => {
      const c = await raw.getConnection();
      try {
        const xid = `'bench${process.pid}x${i}x${Math.random().toString(36).slice(2, 8)}'`;
        await c.query(xa ? `XA START ${xid}` : 'START TRANSACTION');
        await c.query('UPDATE raw_accounts SET balance = balance - 1 WHERE id = ?', [1 + ((i * 7) % ACCOUNTS)]);
        await c.query('UPDATE raw_accounts SET balance = balance + 1 WHERE id = ?', [1 + ((i * 13 + 1) % ACCOUNTS)]);
        if (xa) {
          await c.query(`XA END ${xid}`);
          await c.query(`XA COMMIT ${xid} ONE PHASE`);
        } else {
          await c.query('COMMIT');
        }
      } finally {
        c.release();
      }
    };
    const ops = {
      local: (i) => transfer(atomic, i, false),
      xa: (i) => transfer(atomic, i, true),
      sequential: (i) => transfer(sequential, i, true),
      rawLocal: (i) => rawTransfer(i, false),
      rawXaOnePhase: (i) => rawTransfer(i, true),
    };
    const cells = [];
    for (const clients of XA_CLIENTS) {
      // Lock conflicts between clients are rare (400 accounts); one that deadlocks is retried.
      const variants = XA_VARIANTS.map((key) => ({ key, op: async (i) => { for (let n = 0; ; n++) { try { return await ops[key](i + n * 7919); } catch (e) { if (n >= 3 || !/deadlock|Lock wait/i.test(String(e))) throw e; } } } }));
      const cell = { c: clients, ...(await alternate(variants, { reps: cfg.reps, clients, warmupMs: cfg.warmupMs, durationMs: cfg.durationMs, minOps: cfg.warmupMs > 0 ? 10 : 1 })) };
      log(`[xa] c=${clients} ` + XA_VARIANTS.map((k) => `${k}=${cell[k].error ? 'failed' : cell[k].qps.toFixed(0) + '/s'}`).join(' ') + ` xa/local time=${(1 / pairedRatio(cell.xa, cell.local).value).toFixed(2)}×`);
      cells.push(cell);
    }
    const [rows] = await admin.query(`SELECT SUM(balance) AS total FROM (${XA_DATABASES.map((db) => `SELECT balance FROM \`${db}\`.xa_accounts`).join(' UNION ALL ')}) t`);
    return { cells, totalIntact: Number(rows[0].total) === ACCOUNTS * 1000 };
  } finally {
    await atomic.destroy().catch(() => undefined);
    await sequential.destroy().catch(() => undefined);
    await raw.end().catch(() => undefined);
    if (!cfg.keep) for (const db of XA_DATABASES) await admin.query(`DROP DATABASE IF EXISTS \`${db}\``).catch(() => undefined);
    await admin.end();
  }
}

