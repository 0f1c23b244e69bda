import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Column, DeleteDateColumn, Entity, PrimaryColumn } from 'typeorm';
import { NodeUnavailableError, Sharded, ShardKey, type ServerOptions } from '../packages/typeorm-sharding/src/index.js';
import { canStartMariadb, startCluster, type ClusterNode, type MariadbCluster } from './support/mariadb-cluster.js';
import { caughtUp, countNodes, createShardDatabases, Item, openRouted, replicasOf, SEEDED, type RoutedSource } from './support/routed-source.js';

// What the router does when it cannot know (issue 15), on real processes: a primary and two GTID
// replicas on loopback ports 3400–3402, four shard databases on the primary. A write whose result
// carries no GTID (INSERT … RETURNING), every replica killed at once, a lag that cannot be read
// (no SLAVE MONITOR), nodes that reject the client, save() under FORCE_SLAVE, a primary that dies
// under writes, and a write that reaches a read-only replica (the one misroute there is).

const DB = 'run';
const PORTS = [3400, 3401, 3402];
/** Privileges of the application's users: everything a ShardedDataSource needs, without SUPER / READ_ONLY ADMIN. */
const APP_PRIVILEGES = 'SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER, EXECUTE, REFERENCES, CREATE TEMPORARY TABLES, LOCK TABLES';

/** A row with a column default: TypeORM inserts it with `INSERT … RETURNING` on MariaDB ≥ 10.5. */
@Entity('notes')
@Sharded()
class Note {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('varchar', { length: 40 }) v!: string;
  @Column('varchar', { length: 20, default: 'new' }) tag!: string;
  @DeleteDateColumn({ type: 'datetime', nullable: true }) deletedAt!: Date | null;
}

describe.skipIf(!canStartMariadb())('the query router when it cannot know', () => {
  let cluster: MariadbCluster;
  const opened: RoutedSource[] = [];
  let nextId = 10_000;

  beforeAll(async () => {
    // No fsync per commit: these tests kill processes, not machines, and the 2-core machine is shared.
    cluster = await startCluster(2, { ports: PORTS, serverOptions: ['--innodb-flush-log-at-trx-commit=2'] });
    await createShardDatabases(cluster, DB);
    await cluster.sql(
      cluster.primary,
      // `app` may not read replication state; `mon` may (SLAVE MONITOR). Both replicate to the replicas.
      "CREATE USER 'app'@'%' IDENTIFIED BY 'app-pw'",
      `GRANT ${APP_PRIVILEGES} ON *.* TO 'app'@'%'`,
      "CREATE USER 'mon'@'%' IDENTIFIED BY 'mon-pw'",
      `GRANT ${APP_PRIVILEGES}, SLAVE MONITOR ON *.* TO 'mon'@'%'`,
    );
    const seed = await open({}, { replicas: [] });
    await seed.ds.getRepository(Item).insert(Array.from({ length: SEEDED }, (_, i) => ({ id: i + 1, v: `v${i + 1}` })));
    await seed.close();
    await caughtUp(cluster);
  });

  afterAll(async () => {
    for (const r of opened) await r.ds.destroy().catch(() => undefined);
    await cluster?.stop();
  });

  /** A data source as user `mon` over the primary and both replicas (any key of `server` replaces the default). */
  async function open(router: Record<string, unknown> = {}, server: Partial<ServerOptions> = {}): Promise<RoutedSource> {
    const r = await openRouted(cluster, DB, { username: 'mon', password: 'mon-pw', replicas: replicasOf(cluster), ...server }, { loadBalance: 'round_robin', ...router }, { entities: [Item, Note] });
    opened.push(r);
    return r;
  }

  async function metric(r: RoutedSource, name: string, labels: Record<string, string> = {}): Promise<number> {
    const m = (await r.ds.routerMetrics.registry.getMetricsAsJSON()).find((x) => x.name === `typeorm_sharding_router_${name}`);
    return (m?.values ?? []).filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((n, v) => n + v.value, 0);
  }

  async function delay(node: ClusterNode, seconds: number): Promise<void> {
    await cluster.sql(node, 'STOP SLAVE', `CHANGE MASTER TO MASTER_DELAY=${seconds}`, 'START SLAVE');
  }

  /** Restarts killed nodes, undoes delays and read-only settings, and waits until every replica caught up. */
  async function heal(): Promise<void> {
    for (const node of [cluster.primary, ...cluster.replicas]) if (node.pid === undefined) await cluster.restart(node);
    for (const node of cluster.replicas) {
      await delay(node, 0);
      await cluster.sql(node, 'SET GLOBAL read_only = 0');
    }
    await cluster.sql(cluster.primary, 'SET GLOBAL read_only = 0');
    await caughtUp(cluster);
  }

  it('reads its writes after every write shape TypeORM emits, INSERT … RETURNING included: 0 stale reads in 1,000 with a delayed replica', async () => {
    const [replica1] = cluster.replicas;
    await delay(replica1!, 1);
    const r = await open({ readYourWrites: 'session', consistentReadTimeout: 20 });
    const { ds, events } = r;
    const notes = ds.getRepository(Note);
    const items = ds.getRepository(Item);
    try {
      // Each shape writes, then reads back (in a withRouting scope: readYourWrites 'session'; the last outside any, with CONSISTENT_READ).
      const shapes: ((id: number) => Promise<{ expected: string | null; found: string | null | undefined }>)[] = [
        async (id) => ds.withRouting({}, async () => (await notes.insert({ id, v: 'returning' }), { expected: 'returning', found: (await notes.findOneBy({ id }))?.v })),
        async (id) => ds.withRouting({}, async () => (await items.insert({ id, v: 'plain' }), { expected: 'plain', found: (await items.findOneBy({ id }))?.v })),
        async (id) => ds.withRouting({}, async () => (await notes.save({ id, v: 'saved' }), { expected: 'saved', found: (await notes.findOneBy({ id }))?.v })),
        async (id) => ds.withRouting({}, async () => (await notes.upsert({ id, v: 'upserted' }, ['id']), { expected: 'upserted', found: (await notes.findOneBy({ id }))?.v })),
        async (id) =>
          ds.withRouting({}, async () => {
            await notes.insert({ id, v: 'before' });
            await notes.update({ id }, { v: 'updated' });
            return { expected: 'updated', found: (await notes.findOneBy({ id }))?.v };
          }),
        async (id) =>
          ds.withRouting({}, async () => {
            await notes.insert({ id, v: 'doomed' });
            await notes.delete({ id });
            return { expected: null, found: (await notes.findOneBy({ id }))?.v ?? null };
          }),
        async (id) => ds.withRouting({}, async () => (await ds.query('INSERT INTO `notes` (`id`, `v`) VALUES (?, ?)', [id, 'raw']), { expected: 'raw', found: (await notes.findOneBy({ id }))?.v })),
        async (id) => ds.withRouting({}, async () => (await ds.transaction((em) => em.insert(Note, { id, v: 'in-tx' })), { expected: 'in-tx', found: (await notes.findOneBy({ id }))?.v })),
        async (id) =>
          ds.withRouting({}, async () => {
            await notes.insert({ id, v: 'hidden' });
            await notes.softDelete({ id });
            return { expected: null, found: (await notes.findOneBy({ id }))?.v ?? null };
          }),
        async (id) => (await notes.insert({ id, v: 'consistent' }), { expected: 'consistent', found: (await notes.findOne({ where: { id }, comment: 'CONSISTENT_READ' }))?.v }),
      ];
      const iterations = 1000;
      const stale: string[] = [];
      let started = 0;
      const worker = async () => {
        while (started < iterations) {
          const i = started++;
          const { expected, found } = await shapes[i % shapes.length]!(nextId++);
          if (found !== expected) stale.push(`shape ${i % shapes.length}: expected ${expected}, read ${found}`);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      expect(stale).toEqual([]);
      // The shapes are what they claim: TypeORM sent INSERT … RETURNING, and reads did reach a replica
      // (the delayed one only once it had the write: a slow machine may take longer than its delay).
      expect(events.some((e) => /^INSERT .* RETURNING /.test(e.sql))).toBe(true);
      const reads = events.filter((e) => e.sql.startsWith('SELECT') && e.role !== undefined);
      expect(countNodes(reads.filter((e) => e.reason === 'read'))['replica2']).toBeGreaterThan(0);
      // Every GTID was learnt (from the result, or from @@last_gtid on the writing connection).
      expect(await metric(r, 'unknown_gtids_total')).toBe(0);
    } finally {
      await r.close();
      await heal();
    }
  });

  it('loses no read when every replica is SIGKILLed at once under 16 clients: each read is retried until a node answers, the primary last', async () => {
    // The heartbeat slow (5 s × 3) so that only the reads' own failures can act.
    const r = await open({ healthCheck: { interval: 5000, timeout: 1000, retry: 3 } });
    const { ds } = r;
    const repo = ds.getRepository(Item);
    let reads = 0;
    let failed = 0;
    const errors = new Set<string>();
    let killed: Promise<unknown> | undefined;
    let afterKill = 0;
    try {
      const client = async (c: number) => {
        while (afterKill < 1500) {
          const id = 1 + ((reads * 7 + c) % SEEDED);
          try {
            if ((await repo.findOneBy({ id }))?.v !== `v${id}`) failed++;
          } catch (error) {
            failed++;
            errors.add(String((error as { code?: unknown }).code));
          }
          if (killed !== undefined) afterKill++;
          if (++reads === 300) killed = Promise.all(cluster.replicas.map((n) => cluster.kill(n)));
        }
      };
      await Promise.all(Array.from({ length: 16 }, (_, c) => client(c)));
      await killed;
      expect({ failed, errors: [...errors] }).toEqual({ failed: 0, errors: [] });
      expect(ds.router.snapshot().filter((n) => n.role === 'replica').every((n) => !n.up)).toBe(true);
      // Counted: the retries (by the node that failed) and the reads the primary took in the end.
      expect(await metric(r, 'retries_total')).toBeGreaterThan(0);
      expect(await metric(r, 'fallbacks_total', { role: 'primary', fallback: 'retry' })).toBeGreaterThan(0);
      expect(await metric(r, 'fallbacks_total', { role: 'primary', fallback: 'no-replica' })).toBeGreaterThan(0);
      console.log(`both replicas killed after 300 reads: ${reads} reads, none failed; ${await metric(r, 'retries_total')} retries, ${await metric(r, 'fallbacks_total', { role: 'primary', fallback: 'retry' })} retried on the primary`);
    } finally {
      await r.close();
      await heal();
    }
  });

  it('keeps a replica whose lag it cannot read (no SLAVE MONITOR) out of every read, and says so once, naming the privilege', async () => {
    const [replica1, replica2] = cluster.replicas;
    // replica1 is far behind, and its user may not run SHOW REPLICA STATUS; replica2 is measured.
    await delay(replica1!, 30);
    const r = await open({ lagCheckInterval: 100, readYourWrites: 'session', consistentReadTimeout: 50 }, { replicas: [{ name: 'replica1', port: replica1!.port, username: 'app', password: 'app-pw' }, { name: 'replica2', port: replica2!.port }] });
    const { ds, events, warnings } = r;
    const notes = ds.getRepository(Note);
    try {
      // The lag of replica1 is real: a write is not there.
      const probe = nextId++;
      await notes.insert({ id: probe, v: 'probe' });
      await caughtUp(cluster, [replica2!]);
      events.length = 0;
      for (let i = 0; i < 40; i++) {
        const id = nextId++;
        if (i % 2 === 0) expect((await ds.withRouting({}, async () => (await notes.insert({ id, v: 'x' }), notes.findOneBy({ id }))))?.v).toBe('x');
        else expect((await ds.getRepository(Item).findOneBy({ id: 1 + (i % SEEDED) }))?.v).toBe(`v${1 + (i % SEEDED)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500)); // a few more lag checks: still one warning
      const reads = events.filter((e) => e.sql.startsWith('SELECT'));
      expect(reads.filter((e) => e.node === 'replica1')).toEqual([]);
      expect(reads.filter((e) => e.node === 'replica2').length).toBeGreaterThan(0);
      expect(ds.router.snapshot().find((n) => n.node === 'replica1')).toMatchObject({ up: true, lagMs: undefined });
      const about = warnings.filter((w) => w.includes('replica1'));
      expect(about).toHaveLength(1);
      expect(about[0]).toContain('SLAVE MONITOR');
      expect(about[0]).toContain('REPLICATION CLIENT');
      expect(warnings.filter((w) => w.includes('replica2'))).toEqual([]);
    } finally {
      await r.close();
      await heal();
    }
  });

  it("reads its writes after a transaction whose COMMIT reports no GTID (mysql2's resetOnRelease undoes the GTID tracking): on the primary, until a poll covers it", async () => {
    // Both replicas 5 s behind but within the lag threshold: a read there without a wait misses the write.
    for (const node of cluster.replicas) await delay(node, 5);
    const r = await openRouted(cluster, DB, { username: 'mon', password: 'mon-pw', replicas: replicasOf(cluster) }, { loadBalance: 'round_robin', readYourWrites: 'session', maxReplicationLagMs: 60_000 }, { entities: [Item, Note], extra: { resetOnRelease: true } });
    opened.push(r);
    const { ds, events, warnings } = r;
    const notes = ds.getRepository(Note);
    try {
      // Every pooled connection has been released once by now: none tracks last_gtid any more.
      events.length = 0;
      const stale: string[] = [];
      for (let i = 0; i < 6; i++) {
        const id = nextId++;
        const found = await ds.withRouting({}, async () => {
          if (i % 2 === 0) await notes.save({ id, v: 'saved' });
          else await ds.transaction((em) => em.insert(Note, { id, v: 'saved' }));
          return notes.findOneBy({ id });
        });
        if (found?.v !== 'saved') stale.push(`${i % 2 === 0 ? 'save' : 'transaction'} ${id}: read ${JSON.stringify(found)}`);
      }
      expect(stale).toEqual([]);
      const reads = events.filter((e) => e.reason === 'read' || e.fallback !== undefined);
      expect(reads.length).toBe(6);
      // On the primary: at once, or (when a lag check polled the primary in between) after a wait that timed out.
      expect(reads.every((e) => e.role === 'primary' && (e.fallback === 'unknown-write' || e.fallback === 'consistency-timeout'))).toBe(true);
      expect(reads.some((e) => e.fallback === 'unknown-write')).toBe(true);
      expect(await metric(r, 'unknown_gtids_total')).toBeGreaterThanOrEqual(6);
      expect(warnings.filter((w) => w.includes('reported no GTID'))).toHaveLength(1);
      // A read-only transaction is not a write: a read after it still goes to a replica.
      events.length = 0;
      await ds.withRouting({}, async () => (await ds.transaction((em) => em.findOneBy(Note, { id: 1 })), notes.findOneBy({ id: 1 })));
      expect(events[events.length - 1]).toMatchObject({ role: 'replica' });
    } finally {
      await r.close();
      await heal();
    }
  });

  it('treats a node that rejects the credentials as a failed node: its reads are retried elsewhere and count against it', async () => {
    const [replica1] = cluster.replicas;
    // Errors of real reads act at once; the heartbeat (on the monitoring connection, opened before) does not.
    const r = await open({ healthCheck: { interval: 5000, timeout: 1000, retry: 3, errorThreshold: 2 } });
    const { ds } = r;
    try {
      // Only on replica1, after the router has measured it: new connections to it are refused.
      await cluster.sql(replica1!, "SET SESSION sql_log_bin = 0", "ALTER USER 'mon'@'%' IDENTIFIED BY 'rotated'");
      const repo = ds.getRepository(Item);
      for (let i = 0; i < 40; i++) expect((await repo.findOneBy({ id: 1 + i }))?.v).toBe(`v${1 + i}`);
      expect(await metric(r, 'requests_total', { node: 'replica1', outcome: 'node_error' })).toBeGreaterThan(0);
      expect(await metric(r, 'failovers_total', { node: 'replica1', cause: 'traffic' })).toBe(1);
      expect(ds.router.snapshot().find((n) => n.node === 'replica1')).toMatchObject({ up: false });
    } finally {
      await cluster.sql(replica1!, "SET SESSION sql_log_bin = 0", "ALTER USER 'mon'@'%' IDENTIFIED BY 'mon-pw'");
      await r.close();
      await heal();
    }
  });

  it('treats a read-only primary as a failed node: the write fails with NodeUnavailableError naming the server and the node', async () => {
    const r = await open({ healthCheck: { interval: 5000, timeout: 1000, retry: 3, errorThreshold: 2 } });
    const { ds } = r;
    try {
      await cluster.sql(cluster.primary, 'SET GLOBAL read_only = 1');
      const error = await ds.getRepository(Item).insert({ id: nextId++, v: 'refused' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NodeUnavailableError);
      expect(error).toMatchObject({ server: 'db', role: 'primary', node: 'db-primary', cause: { errno: 1290 } });
      expect(await metric(r, 'requests_total', { node: 'db-primary', outcome: 'node_error' })).toBe(1);
    } finally {
      await r.close();
      await heal();
    }
  });

  it('never loses an update of save() inside withRouting({ forceSlave: true }): the reads a write makes for itself go to the primary', async () => {
    // Both replicas a second behind: any read of them right after a write is stale.
    for (const node of cluster.replicas) await delay(node, 1);
    // They stay in rotation: a second behind is within this data source's lag threshold.
    const r = await open({ maxReplicationLagMs: 60_000 });
    const { ds, events } = r;
    const notes = ds.getRepository(Note);
    const ids = Array.from({ length: 20 }, () => nextId++);
    try {
      await notes.insert(ids.map((id) => ({ id, v: 'a' })));
      await caughtUp(cluster);
      events.length = 0;
      await ds.withRouting({ forceSlave: true }, async () => {
        for (const id of ids) {
          await notes.save({ id, v: 'b' });
          // The replicas still hold 'a': a check read there would find nothing to change.
          await notes.save({ id, v: 'a' });
        }
        // The hint still moves the scope's own reads.
        await notes.findOneBy({ id: ids[0]! });
      });
      const all = (await cluster.sql(cluster.primary, ...[0, 1, 2, 3].map((s) => `SELECT id, v FROM ${DB}_${s}.notes WHERE id IN (${ids.join(',')})`))).flat() as { v: string }[];
      expect(all.map((row) => row.v)).toEqual(ids.map(() => 'a'));
      const selects = events.filter((e) => e.sql.startsWith('SELECT'));
      expect(selects.slice(0, -1).every((e) => e.role === 'primary' && e.reason === 'write-own-read')).toBe(true);
      expect(selects[selects.length - 1]).toMatchObject({ role: 'replica', reason: 'hint:FORCE_SLAVE' });
    } finally {
      await r.close();
      await heal();
    }
  });

  it('raises one NodeUnavailableError naming the server for the first writes after the primary dies, before the router has marked it down', async () => {
    const r = await open({ healthCheck: { interval: 5000, timeout: 1000, retry: 3, errorThreshold: 100 } });
    const { ds } = r;
    const repo = ds.getRepository(Item);
    try {
      await repo.insert({ id: nextId++, v: 'warm' });
      const open = ds.createQueryRunner();
      await open.startTransaction();
      await open.manager.findOneBy(Item, { id: 1 });
      await cluster.kill(cluster.primary);
      const failures = [
        await repo.insert({ id: nextId++, v: 'lost' }).catch((e: unknown) => e),
        await repo.update({ id: 1 }, { v: 'lost' }).catch((e: unknown) => e),
        await repo.save({ id: nextId++, v: 'lost' }).catch((e: unknown) => e),
        await ds.transaction((em) => em.insert(Item, { id: nextId++, v: 'lost' })).catch((e: unknown) => e),
        // A stream inside a transaction that was open on the primary's connection before it died.
        await (async () => {
          for await (const row of await open.manager.createQueryBuilder(Item, 'i').where('i.id = :id', { id: 1 }).stream()) void row;
        })().catch((e: unknown) => e),
      ];
      await open.rollbackTransaction().catch(() => undefined);
      await open.release();
      expect(ds.router.snapshot().find((n) => n.role === 'primary')).toMatchObject({ up: true });
      for (const error of failures) {
        expect(error).toBeInstanceOf(NodeUnavailableError);
        expect(error).toMatchObject({ code: 'SHARDING_NODE_UNAVAILABLE', server: 'db', role: 'primary', node: 'db-primary' });
      }
      // Reads go on on the replicas.
      expect((await repo.findOneBy({ id: 2 }))?.v).toBe('v2');
    } finally {
      await r.close();
      await heal();
    }
  });

  it('counts a write that reached a replica as a misroute: a FORCE_SLAVE read calling a function that writes, refused by the read-only replica', async () => {
    // Every node logs its binlog: each must accept the function (the replicas apply it as it comes).
    for (const node of [cluster.primary, ...cluster.replicas]) await cluster.sql(node, 'SET GLOBAL log_bin_trust_function_creators = 1');
    await cluster.sql(
      cluster.primary,
      `CREATE TABLE ${DB}_0.bumps (n INT)`,
      `CREATE FUNCTION ${DB}_0.bump() RETURNS INT MODIFIES SQL DATA BEGIN INSERT INTO ${DB}_0.bumps VALUES (1); RETURN 1; END`,
    );
    await caughtUp(cluster);
    for (const node of cluster.replicas) await cluster.sql(node, 'SET GLOBAL read_only = 1');
    const r = await open();
    try {
      const error = await r.ds.query(`/* FORCE_SLAVE */ SELECT ${DB}_0.bump() AS b FROM items WHERE id = ?`, [1]).catch((e: unknown) => e);
      expect(error).toMatchObject({ errno: 1290 });
      expect(error).not.toBeInstanceOf(NodeUnavailableError);
      expect(await r.misroutes()).toBe(1);
      expect(r.ds.router.snapshot().every((n) => n.up)).toBe(true);
    } finally {
      await r.close();
      await heal();
    }
  });
});
