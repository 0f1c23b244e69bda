import 'reflect-metadata';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ShardedDataSource, type PhysicalQueryEvent } from '../../packages/typeorm-sharding/src/index.js';
import { branchXid, newGtrid, xidSql } from '../../packages/typeorm-sharding/src/transactions/xid.js';
import { canStartMariadb, startCluster, type ClusterNode, type MariadbCluster } from '../support/mariadb-cluster.js';
import { Account, XA_ENTITIES } from './support/xa-entities.js';

// Issues 10 and 11 together: two servers, each a primary with a GTID replica (two clusters of
// test/support/mariadb-cluster.ts, four mariadbd processes), the query router on both and XA
// across them. A transaction and its XA branch, the decision log and the resolver must only ever
// reach primaries; the GTIDs of the coordinator's COMMIT and of the branch's XA COMMIT must reach
// the router, so that a read of the same scope never sees a replica without the transaction.

const PREFIX = `tsh_xarep_${process.pid}`;
const XID_PREFIX = 'tshrep';
const ACCOUNTS = 16;
/** Replicas apply every event this many seconds late while a test wants them stale. */
const DELAY_S = 2;

describe.runIf(canStartMariadb())('cross-server transactions on servers with replicas (router + XA)', () => {
  const clusters: MariadbCluster[] = [];
  let ds: ShardedDataSource;
  const events: PhysicalQueryEvent[] = [];
  const steps: string[] = [];
  /** Account ids whose shard is on db0 / db1. */
  const idOn: [number[], number[]] = [[], []];
  const primaries = () => clusters.map((c) => c.primary);
  const replicas = () => clusters.map((c) => c.replicas[0]!);
  const shards = [0, 1].flatMap((server) => [0, 1].map((i) => ({ name: `s${server * 2 + i}`, server: `db${server}`, database: `${PREFIX}_${server}_${i}` })));
  const sql = (node: ClusterNode, ...statements: string[]) => clusters.find((c) => c.primary === node || c.replicas.includes(node))!.sql(node, ...statements);

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) clusters.push(await startCluster(1));
    await Promise.all(primaries().map((p, server) => sql(p, ...shards.filter((s) => s.server === `db${server}`).map((s) => `CREATE DATABASE \`${s.database}\``))));
    ds = new ShardedDataSource({
      type: 'mariadb',
      username: 'root',
      password: '',
      entities: XA_ENTITIES,
      synchronize: true,
      servers: clusters.map((c, i) => ({ name: `db${i}`, host: '127.0.0.1', port: c.primary.port, poolSize: 4, replicas: [{ name: `db${i}-replica`, port: c.replicas[0]!.port }] })),
      shards,
      sharding: {
        router: { loadBalance: 'round_robin', readYourWrites: 'session', consistentReadTimeout: 100, maxReplicationLagMs: 60_000 },
        transactions: { xidPrefix: XID_PREFIX, resolveIntervalMs: false, onStep: (e) => void steps.push(`${e.step}${e.server ? ` ${e.server}` : ''}${e.outcome ? ` ${e.outcome}` : ''}`) },
        onPhysicalQuery: (e) => void events.push(e),
      },
    });
    await ds.initialize();
    for (let id = 1; id <= ACCOUNTS; id++) idOn[shards.find((s) => s.name === ds.shardOf(Account, id))!.server === 'db0' ? 0 : 1].push(id);
  }, 120_000);

  afterAll(async () => {
    await ds?.destroy();
    for (const c of clusters) await c.stop();
  });

  beforeEach(async () => {
    await ds.query('DELETE FROM xa_accounts WHERE 1 = 1');
    await ds.getRepository(Account).insert(Array.from({ length: ACCOUNTS }, (_, i) => ({ id: i + 1, balance: 100 })));
    await caughtUp();
    events.length = 0;
    steps.length = 0;
  });

  /** Waits until each replica has applied everything its primary wrote. */
  async function caughtUp(): Promise<void> {
    for (const c of clusters) {
      const [[{ pos }]] = (await c.sql(c.primary, 'SELECT @@gtid_binlog_pos AS pos')) as [[{ pos: string }]];
      const [[{ reached }]] = (await c.sql(c.replicas[0]!, `SELECT MASTER_GTID_WAIT('${pos}', 30) AS reached`)) as [[{ reached: number }]];
      if (Number(reached) !== 0) throw new Error(`replica of ${c.primary.name} did not reach ${pos}`);
    }
  }

  async function delayReplicas(seconds: number): Promise<void> {
    await Promise.all(replicas().map((r) => sql(r, 'STOP SLAVE', `CHANGE MASTER TO MASTER_DELAY=${seconds}`, 'START SLAVE')));
  }

  /** The balance of account `id` as node `node` holds it (root, straight to the node). */
  async function balanceOn(node: ClusterNode, id: number): Promise<number> {
    const database = shards.find((s) => s.name === ds.shardOf(Account, id))!.database;
    const [rows] = (await sql(node, `SELECT balance FROM \`${database}\`.xa_accounts WHERE id = ${id}`)) as [{ balance: number }[]];
    return rows[0]!.balance;
  }

  const xaRecover = async (node: ClusterNode) => ((await sql(node, 'XA RECOVER'))[0] as unknown[]).length;
  const xaRecoverCount = async (node: ClusterNode) => {
    const [rows] = (await sql(node, "SHOW GLOBAL STATUS LIKE 'Com_xa_recover'")) as [{ Value: string }[]];
    return Number(rows[0]!.Value);
  };

  it('commits a transfer atomically on both primaries (db0 local, db1 an XA branch), every statement on a primary; reads of its scope see it, others go to the replicas', async () => {
    const [a, b] = [idOn[0][0]!, idOn[1][0]!];
    await delayReplicas(DELAY_S);
    try {
      const repo = ds.getRepository(Account);
      const seen = await ds.withRouting({}, async () => {
        await ds.transaction(async (em) => {
          await em.decrement(Account, { id: a }, 'balance', 30);
          await em.increment(Account, { id: b }, 'balance', 30);
          expect((await em.findOneBy(Account, { id: b }))?.balance).toBe(130);
        });
        // readYourWrites 'session': the replicas are DELAY_S behind, so these wait for the two
        // commits' GTIDs in vain and read the primaries (a GTID the router never got would send
        // them to a replica, which still has 100).
        return { a: (await repo.findOneBy({ id: a }))?.balance, b: (await repo.findOneBy({ id: b }))?.balance };
      });
      expect(seen).toEqual({ a: 70, b: 130 });
      const transactionEvents = events.slice(0, -2);
      expect(transactionEvents.length).toBeGreaterThanOrEqual(3);
      expect(new Set(transactionEvents.map((e) => `${e.server} ${e.node} ${e.role}`))).toEqual(new Set(['db0 db0-primary primary', 'db1 db1-primary primary']));
      expect(events.slice(-2).map((e) => [e.node, e.fallback])).toEqual([['db0-primary', 'consistency-timeout'], ['db1-primary', 'consistency-timeout']]);
      expect(steps).toEqual(['recorded', 'prepared db1', 'decided', 'committed db1']);

      // On the primaries both parts are committed, nothing is left prepared; the replicas have neither yet.
      expect([await balanceOn(primaries()[0]!, a), await balanceOn(primaries()[1]!, b)]).toEqual([70, 130]);
      expect([await xaRecover(primaries()[0]!), await xaRecover(primaries()[1]!)]).toEqual([0, 0]);
      expect([await balanceOn(replicas()[0]!, a), await balanceOn(replicas()[1]!, b)]).toEqual([100, 100]);

      // A read outside any scope is not a consistent one: it goes to a replica, as configured.
      events.length = 0;
      expect((await repo.findOneBy({ id: b }))?.balance).toBe(100);
      expect(events.map((e) => [e.node, e.role, e.reason])).toEqual([['db1-replica', 'replica', 'read']]);
    } finally {
      await delayReplicas(0);
    }
    // Caught up: the replicas have both parts, and a consistent read is served by a replica.
    await caughtUp();
    expect([await balanceOn(replicas()[0]!, a), await balanceOn(replicas()[1]!, b)]).toEqual([70, 130]);
    events.length = 0;
    const after = await ds.withRouting({ consistentRead: true }, () => ds.getRepository(Account).findOneBy({ id: a }));
    expect(after?.balance).toBe(70);
    expect(events.map((e) => [e.node, e.role, e.fallback])).toEqual([['db0-replica', 'replica', undefined]]);
    expect((await ds.routerMetrics.registry.getSingleMetric('typeorm_sharding_router_misroutes_total')?.get())?.values.reduce((s, v) => s + v.value, 0)).toBe(0);
  });

  it('a failed branch rolls back on both primaries and leaves the replicas unchanged', async () => {
    const [a, b] = [idOn[0][0]!, idOn[1][0]!];
    const error = await ds
      .transaction(async (em) => {
        await em.decrement(Account, { id: a }, 'balance', 30);
        await em.increment(Account, { id: b }, 'balance', 30);
        await em.query('SELECT no_such_column FROM xa_accounts WHERE id = ?', [b]);
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(steps).toEqual(['rolled-back']);
    expect(new Set(events.map((e) => e.role))).toEqual(new Set(['primary']));
    await caughtUp();
    for (const nodes of [primaries(), replicas()]) expect([await balanceOn(nodes[0]!, a), await balanceOn(nodes[1]!, b)]).toEqual([100, 100]);
    expect([await xaRecover(primaries()[0]!), await xaRecover(primaries()[1]!)]).toEqual([0, 0]);
  });

  it('the resolver asks only the primaries (XA RECOVER, the log) and commits a decided branch there, though its replica holds the same prepared branch', async () => {
    const b = idOn[1][0]!;
    const [p0, p1] = primaries();
    const [r0, r1] = replicas();
    // A process that died after its decision: db1's branch prepared (its connection gone), the
    // decision `commit` in db0's log. Both replicate: db1's replica holds the prepared branch too.
    const gtrid = newGtrid(XID_PREFIX, 0);
    // A server's id in xids is the index of its first shard.
    const xid = xidSql(branchXid(gtrid, shards.findIndex((s) => s.server === 'db1')));
    const database = shards.find((s) => s.name === ds.shardOf(Account, b))!.database;
    const c = await mysql.createConnection({ host: '127.0.0.1', port: p1!.port, user: 'root', password: '' });
    await c.query(`XA START ${xid}`);
    await c.query(`UPDATE \`${database}\`.xa_accounts SET balance = balance + 5 WHERE id = ?`, [b]);
    await c.query(`XA END ${xid}`);
    await c.query(`XA PREPARE ${xid}`);
    await c.end();
    await sql(p0!, `INSERT INTO \`${shards[0]!.database}\`.tsh_xa_log (xid, state, participants) VALUES ('${gtrid}', 'commit', 'db0,db1')`);
    await caughtUp();
    expect(await xaRecover(p1!)).toBe(1);
    expect(await xaRecover(r1!)).toBe(1);

    const before = await Promise.all([p0!, p1!, r0!, r1!].map(xaRecoverCount));
    const report = await ds.resolveTransactions();
    const after = await Promise.all([p0!, p1!, r0!, r1!].map(xaRecoverCount));
    expect(report).toEqual({ committed: 1, rolledBack: 0, pending: 0 });
    expect(steps).toEqual(['resolved db1 commit']);
    // XA RECOVER ran on both primaries, never on a replica.
    expect(after.map((n, i) => n - before[i]!)).toEqual([1, 1, 0, 0]);
    expect(await xaRecover(p1!)).toBe(0);
    expect(await balanceOn(p1!, b)).toBe(105);
    // The replica's copy of the branch is finished by replication, from the primary's XA COMMIT.
    await caughtUp();
    expect(await xaRecover(r1!)).toBe(0);
    expect(await balanceOn(r1!, b)).toBe(105);
  });
});
