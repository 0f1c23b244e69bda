import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { In } from 'typeorm';
import { NodeUnavailableError, ShardedDataSource, type HintProblem, type PhysicalQueryEvent } from '../packages/typeorm-sharding/src/index.js';
import { canStartMariadb, startCluster, type MariadbCluster } from './support/mariadb-cluster.js';
import { caughtUp, clientConnections, countNodes, createShardDatabases, Item, openRouted, replicasOf, SEEDED, waitFor, type RoutedSource } from './support/routed-source.js';

// The query router through a ShardedDataSource: one primary and two GTID replicas started for
// this file (test/support/mariadb-cluster.ts), four shard databases on the primary.

const DB = 'rds';

describe.skipIf(!canStartMariadb())('a ShardedDataSource routing statements over a primary and two replicas', () => {
  let cluster: MariadbCluster;
  let misroutes = 0;
  const opened: RoutedSource[] = [];
  let nextId = 1000;

  beforeAll(async () => {
    cluster = await startCluster(2);
    await createShardDatabases(cluster, DB);
    const seed = await open();
    await seed.ds.getRepository(Item).insert(Array.from({ length: SEEDED }, (_, i) => ({ id: i + 1, v: `v${i + 1}` })));
    await close(seed);
    await caughtUp(cluster);
  });

  afterAll(async () => {
    for (const r of opened) await r.ds.destroy().catch(() => undefined);
    await cluster?.stop();
  });

  async function open(server: Record<string, unknown> = { replicas: replicasOf(cluster) }, router: Record<string, unknown> = { loadBalance: 'round_robin' }, extra: Record<string, unknown> = {}): Promise<RoutedSource> {
    const r = await openRouted(cluster, DB, server, router, extra);
    opened.push(r);
    return r;
  }

  /** Closes a source after adding its misroute count to the file's. */
  async function close(r: RoutedSource): Promise<void> {
    misroutes += await r.misroutes();
    await r.close();
  }

  const last = (events: readonly PhysicalQueryEvent[]) => events[events.length - 1]!;

  it('reads outside transactions from the replicas; writes, DDL, locking reads, session-state reads and transactions on the primary', async () => {
    const r = await open();
    const { ds, events } = r;
    try {
      const repo = ds.getRepository(Item);
      for (let i = 0; i < 4; i++) expect(await repo.findOneBy({ id: 1 })).toEqual({ id: 1, v: 'v1' });
      expect(events.map((e) => [e.node, e.role, e.reason])).toEqual([
        ['replica1', 'replica', 'read'],
        ['replica2', 'replica', 'read'],
        ['replica1', 'replica', 'read'],
        ['replica2', 'replica', 'read'],
      ]);

      events.length = 0;
      await repo.insert({ id: nextId++, v: 'new' });
      await repo.update({ id: 2 }, { v: 'v2' });
      expect(events.map((e) => [e.role, e.reason])).toEqual([['primary', 'write'], ['primary', 'write']]);

      events.length = 0;
      await ds.transaction(async (em) => {
        await em.findOne(Item, { where: { id: 3 }, lock: { mode: 'pessimistic_write' } });
        await em.findOneBy(Item, { id: 4 });
        await em.update(Item, { id: 4 }, { v: 'v4' });
      });
      expect(events.map((e) => [e.node, e.reason])).toEqual([['db-primary', 'locking-read'], ['db-primary', 'transaction'], ['db-primary', 'write']]);

      events.length = 0;
      const slave = ds.createQueryRunner('slave');
      try {
        await slave.query('SELECT `v` FROM `items` WHERE `id` = ? FOR UPDATE', [5]);
        await slave.query('SELECT LAST_INSERT_ID() AS id');
        await slave.query('SELECT `v` FROM `items` WHERE `id` = ?', [5]);
      } finally {
        await slave.release();
      }
      await ds.query('CREATE TABLE `router_notes` (`id` INT PRIMARY KEY)');
      await ds.query('DROP TABLE `router_notes`');
      expect(events.map((e) => [e.role, e.reason])).toEqual([
        ['primary', 'locking-read'],
        ['primary', 'session-state'],
        ['replica', 'read'],
        ['primary', 'ddl'],
        ['primary', 'ddl'],
      ]);

      // TypeORM's replication contract: raw query() runs on a `master` QueryRunner, which reads the
      // primary (so do the reads save() makes before it writes); a hint can send it to a replica.
      events.length = 0;
      await ds.query('SELECT `v` FROM `items` WHERE `id` = ?', [6]);
      await ds.query('/* FORCE_SLAVE */ SELECT `v` FROM `items` WHERE `id` = ?', [6]);
      await repo.save({ id: 7, v: 'seven' });
      expect(events.map((e) => [e.role, e.reason])).toEqual([
        ['primary', 'master-runner'],
        ['replica', 'hint:FORCE_SLAVE'],
        ['primary', 'master-runner'],
        ['primary', 'write'],
      ]);
      expect(await r.misroutes()).toBe(0);
    } finally {
      await close(r);
    }
  });

  it('follows each routing hint, written as a comment or as a withRouting scope, and names it in the events', async () => {
    const r = await open();
    const { ds, events, warnings } = r;
    const problems: HintProblem[] = [];
    const overridden: unknown[] = [];
    ds.router.on('hint-problem', (p) => problems.push(p));
    ds.router.on('hint-overridden', (o) => overridden.push(o));
    try {
      const repo = ds.getRepository(Item);
      await repo.find({ where: { id: 1 }, comment: 'FORCE_MASTER' });
      expect(last(events)).toMatchObject({ role: 'primary', reason: 'hint:FORCE_MASTER', hints: ['FORCE_MASTER'] });
      await ds.withRouting({ forceMaster: true }, () => repo.findOneBy({ id: 1 }));
      expect(last(events)).toMatchObject({ role: 'primary', reason: 'hint:FORCE_MASTER', hints: ['FORCE_MASTER'] });

      await ds.createQueryBuilder(Item, 'i').comment('FORCE_SLAVE').where('i.id = :id', { id: 1 }).setQueryRunner(ds.createQueryRunner('master')).getMany();
      expect(last(events)).toMatchObject({ role: 'replica', reason: 'hint:FORCE_SLAVE', hints: ['FORCE_SLAVE'] });

      // FORCE_SLAVE cannot move a write: it stays on the primary, reported once.
      await ds.createQueryBuilder().update(Item).set({ v: 'v8' }).where('id = :id', { id: 8 }).comment('FORCE_SLAVE').execute();
      expect(last(events)).toMatchObject({ role: 'primary', reason: 'write', hints: ['FORCE_SLAVE'] });
      expect(overridden).toEqual([{ hint: 'FORCE_SLAVE', reason: 'write' }]);

      // ROUTE_STICKY: the same replica for the statement shape, or for the scope.
      events.length = 0;
      for (let i = 0; i < 6; i++) await repo.find({ where: { id: In([1, 2, 3]) }, comment: 'ROUTE_STICKY' });
      expect(new Set(events.map((e) => e.node)).size).toBe(1);
      expect(events.every((e) => e.role === 'replica' && e.hints?.includes('ROUTE_STICKY'))).toBe(true);
      events.length = 0;
      await ds.withRouting({ sticky: true }, async () => {
        for (let i = 0; i < 6; i++) await repo.findOneBy({ id: 10 + i });
      });
      expect(new Set(events.map((e) => e.node)).size).toBe(1);

      // CONSISTENT_READ: the read sees the write just made, on a replica once it has it.
      events.length = 0;
      const id = nextId++;
      const seen = await ds.withRouting({ consistentRead: true }, async () => {
        await repo.insert({ id, v: 'fresh' });
        return repo.findOneBy({ id });
      });
      expect(seen).toEqual({ id, v: 'fresh' });
      expect(last(events).hints).toEqual(['CONSISTENT_READ']);
      const id2 = nextId++;
      await repo.insert({ id: id2, v: 'fresh' });
      expect(await repo.findOne({ where: { id: id2 }, comment: 'CONSISTENT_READ' })).toEqual({ id: id2, v: 'fresh' });
      expect(last(events).hints).toEqual(['CONSISTENT_READ']);

      // MASTER_ONLY on BEGIN: every statement of the transaction on the primary, by that hint.
      events.length = 0;
      const runner = ds.createQueryRunner();
      try {
        await runner.query('/*+ MASTER_ONLY */ BEGIN');
        await runner.query('SELECT `v` FROM `items` WHERE `id` = ?', [1]);
        await runner.query('UPDATE `items` SET `v` = ? WHERE `id` = ?', ['v1', 1]);
        await runner.query('COMMIT');
      } finally {
        await runner.release();
      }
      await ds.withRouting({ masterOnly: true }, () => ds.transaction((em) => em.findOneBy(Item, { id: 2 })));
      expect(events.map((e) => [e.role, e.reason])).toEqual([
        ['primary', 'hint:MASTER_ONLY'],
        ['primary', 'hint:MASTER_ONLY'],
        ['primary', 'hint:MASTER_ONLY'],
      ]);

      // An unknown hint is reported (event and warning, once per comment), never silently dropped.
      await repo.find({ where: { id: 1 }, comment: 'FORCE_MASTR' });
      await repo.find({ where: { id: 1 }, comment: 'FORCE_MASTR' });
      expect(problems).toEqual([expect.objectContaining({ kind: 'unknown-hint', hint: 'FORCE_MASTR' })]);
      expect(warnings.filter((w) => w.includes('FORCE_MASTR'))).toHaveLength(1);
      expect(last(events)).toMatchObject({ role: 'replica', reason: 'read' });
      expect(await r.misroutes()).toBe(0);
    } finally {
      await close(r);
    }
  });

  it('sends analytics-shaped reads (aggregates, GROUP BY, full scans over shards) to the analytics replica', async () => {
    const [r1, r2] = cluster.replicas;
    const r = await open({ replicas: [{ name: 'read', port: r1!.port }], analytics: [{ name: 'columnar', port: r2!.port }] });
    const { ds, events } = r;
    try {
      const repo = ds.getRepository(Item);
      expect(await repo.count({ where: { id: In(Array.from({ length: SEEDED }, (_, i) => i + 1)) } })).toBe(SEEDED);
      expect(last(events)).toMatchObject({ node: 'columnar', role: 'analytics', reason: 'analytics' });
      await repo.find({ where: { v: 'v9' } });
      expect(last(events)).toMatchObject({ node: 'columnar', reason: 'analytics' });
      // A COUNT on one shard is a point read.
      expect(await repo.count({ where: { id: 1 } })).toBe(1);
      expect(last(events)).toMatchObject({ node: 'read', role: 'replica', reason: 'read' });
      await repo.findOneBy({ id: 1 });
      expect(last(events)).toMatchObject({ node: 'read', reason: 'read' });
    } finally {
      await close(r);
    }
  });

  it('streams a read from a replica', async () => {
    const r = await open();
    try {
      const stream = await r.ds.getRepository(Item).createQueryBuilder('i').where('i.id <= :n', { n: 8 }).orderBy('i.id').stream();
      const rows: unknown[] = [];
      for await (const row of stream) rows.push(row);
      expect(rows).toHaveLength(8);
      expect(r.events.length).toBeGreaterThan(0);
      expect(r.events.every((e) => e.role === 'replica')).toBe(true);
    } finally {
      await close(r);
    }
  });

  it("accepts TypeORM's replication form: master and slaves, selector ORDER", async () => {
    const [r1, r2] = cluster.replicas;
    const r = await open(
      {},
      { healthCheck: { interval: 500, timeout: 250 } },
      {
        servers: undefined,
        replication: {
          master: { host: '127.0.0.1', port: cluster.primary.port, username: 'root', password: '' },
          slaves: [{ host: '127.0.0.1', port: r1!.port, username: 'root', password: '' }, { host: '127.0.0.1', port: r2!.port, username: 'root', password: '' }],
          selector: 'ORDER',
          removeNodeErrorCount: 3,
        },
        shards: Array.from({ length: 4 }, (_, i) => ({ name: `s${i}`, database: `${DB}_${i}` })),
      },
    );
    const { ds, events } = r;
    try {
      const repo = ds.getRepository(Item);
      for (let i = 0; i < 3; i++) await repo.findOneBy({ id: 1 });
      const server = `127.0.0.1:${cluster.primary.port}`;
      expect(events.map((e) => e.node)).toEqual([`${server}-slave0`, `${server}-slave0`, `${server}-slave0`]);
      await repo.insert({ id: nextId++, v: 'x' });
      expect(last(events)).toMatchObject({ node: `${server}-master`, role: 'primary' });
      expect(ds.router.config.health.errorThreshold).toBe(3);
    } finally {
      await close(r);
    }
  });

  it('is built from a YAML file shaped like the article, its password from the environment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsh-yaml-'));
    const file = join(dir, 'sharding.yaml');
    writeFileSync(
      file,
      [
        'nodes:',
        '  polardb-master: { port: "${PRIMARY_PORT}", poolSize: 4 }',
        '  polardb-slave1: { port: "${SLAVE1_PORT}", poolSize: 4 }',
        '  polardb-slave2: { port: "${SLAVE2_PORT}", poolSize: 4 }',
        'defaults: { host: 127.0.0.1, user: root, password: "${DB_PASSWORD}" }',
        'routing:',
        '  master: { nodes: [polardb-master] }',
        '  slave: { nodes: [polardb-slave1, polardb-slave2], loadBalance: weighted_round_robin }',
        'healthCheck: { interval: 1000, timeout: 500, retry: 3 }',
        'sharding:',
        '  shards:',
        ...Array.from({ length: 4 }, (_, i) => `    - { name: s${i}, database: ${DB}_${i} }`),
      ].join('\n'),
    );
    const env = { PRIMARY_PORT: String(cluster.primary.port), SLAVE1_PORT: String(cluster.replicas[0]!.port), SLAVE2_PORT: String(cluster.replicas[1]!.port), DB_PASSWORD: '' };
    const events: PhysicalQueryEvent[] = [];
    try {
      const ds = await ShardedDataSource.fromYaml(file, { type: 'mariadb', entities: [Item], env, sharding: { onPhysicalQuery: (e) => events.push(e) } });
      opened.push({ ds, events, warnings: [], misroutes: async () => 0, close: () => ds.destroy() });
      await ds.initialize();
      try {
        const repo = ds.getRepository(Item);
        for (let i = 0; i < 4; i++) expect(await repo.findOneBy({ id: 1 })).toEqual({ id: 1, v: 'v1' });
        expect(new Set(events.map((e) => e.node))).toEqual(new Set(['polardb-slave1', 'polardb-slave2']));
        await repo.insert({ id: nextId++, v: 'yaml' });
        expect(last(events)).toMatchObject({ node: 'polardb-master', role: 'primary' });
        expect(ds.shardNames).toEqual(['s0', 's1', 's2', 's3']);
      } finally {
        misroutes += await (await import('./support/routed-source.js')).misroutesOf(ds);
        await ds.destroy();
      }
      // A secret never shows in an error: a bad port that came from the environment is named by its variable.
      const secretEnv = { ...env, PRIMARY_PORT: 'p@ssw0rd-123' };
      const error = await ShardedDataSource.fromYaml(file, { entities: [Item], env: secretEnv }).catch((e: unknown) => e);
      expect((error as Error).message).toContain('nodes.polardb-master.port');
      expect((error as Error).message).toContain('${PRIMARY_PORT}');
      expect((error as Error).message).not.toContain('p@ssw0rd-123');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads its writes through a lagging replica, 1,000 times: a GTID wait on the replica, or the primary on timeout', async () => {
    const [r1] = cluster.replicas;
    // replica1 applies every event late; replica2 keeps up. MASTER_DELAY counts from the event's
    // time stamp, in whole seconds: a delay of 2 is 1 to 2 s, always far beyond the 50 ms wait
    // (a delay of 1 is 0 to 1 s: a write late in its second is due a few milliseconds later).
    // The lag threshold keeps replica1 in rotation, so that half the reads must wait there.
    await cluster.sql(r1!, 'STOP SLAVE', 'CHANGE MASTER TO MASTER_DELAY=2', 'START SLAVE');
    const r = await open(undefined, { loadBalance: 'round_robin', readYourWrites: 'session', consistentReadTimeout: 50, maxReplicationLagMs: 10_000 });
    const { ds, events } = r;
    try {
      const repo = ds.getRepository(Item);
      // The lag is real: a plain read on replica1 right after a write misses it.
      const probe = nextId++;
      await repo.insert({ id: probe, v: 'probe' });
      const [stale] = (await cluster.sql(r1!, `SELECT v FROM ${DB}_0.items WHERE id = ${probe} UNION ALL SELECT v FROM ${DB}_1.items WHERE id = ${probe} UNION ALL SELECT v FROM ${DB}_2.items WHERE id = ${probe} UNION ALL SELECT v FROM ${DB}_3.items WHERE id = ${probe}`)) as [unknown[]];
      expect(stale).toEqual([]);

      events.length = 0;
      // Each read that did not see its write, with the way it was written and what it found.
      const missed: { i: number; way: string; found: unknown }[] = [];
      // TSH_TRIALS=10000 for a longer hunt (about 10 s per 1,000 on a 2-core machine).
      const iterations = Number(process.env.TSH_TRIALS ?? 1000);
      let started = 0;
      const worker = async () => {
        while (started < iterations) {
          const i = started++;
          const id = nextId++;
          const v = `w${i}`;
          let found: Item | null;
          if (i % 3 === 0) {
            // readYourWrites: 'session': after a write, reads of the same withRouting scope see it.
            found = await ds.withRouting({}, async () => {
              await repo.insert({ id, v });
              return repo.findOneBy({ id });
            });
          } else if (i % 3 === 1) {
            // save() commits a transaction: the COMMIT's GTID is what the read waits for.
            found = await ds.withRouting({}, async () => {
              await repo.save({ id, v });
              return repo.findOneBy({ id });
            });
          } else {
            // Outside any scope, CONSISTENT_READ waits for every write the router has seen.
            await repo.insert({ id, v });
            found = await repo.findOne({ where: { id }, comment: 'CONSISTENT_READ' });
          }
          if (found?.v !== v) missed.push({ i, way: ['scope insert', 'scope save', 'CONSISTENT_READ'][i % 3]!, found });
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      expect(missed).toEqual([]);
      const reads = events.filter((e) => e.reason === 'read' || e.fallback === 'consistency-timeout');
      expect(reads).toHaveLength(iterations);
      // Both ways were taken: replica2 after its wait, replica1's reads on the primary after the timeout.
      expect(reads.filter((e) => e.node === 'replica2').length).toBeGreaterThan(0);
      const timedOut = reads.filter((e) => e.node === 'db-primary' && e.fallback === 'consistency-timeout').length;
      expect(timedOut).toBeGreaterThan(0);
      // A read on replica1 is a correct one whose wait reached, which takes its write to be over a
      // second old: rare, but not impossible on a loaded machine. Most of its reads time out.
      expect(countNodes(reads)['replica1'] ?? 0).toBeLessThan(timedOut);
      const waits = (await ds.routerMetrics.registry.getMetricsAsJSON()).find((m) => m.name === 'typeorm_sharding_router_consistent_reads_total')!.values;
      expect(waits.find((v) => v.labels.outcome === 'reached')?.value).toBeGreaterThan(0);
      expect(waits.find((v) => v.labels.outcome === 'timeout')?.value).toBeGreaterThan(0);
      expect(await r.misroutes()).toBe(0);
    } finally {
      await cluster.sql(r1!, 'STOP SLAVE', 'CHANGE MASTER TO MASTER_DELAY=0', 'START SLAVE');
      await close(r);
    }
  });

  it('refuses a write at once with NodeUnavailableError naming the server when the primary is down, and keeps reading from the replicas', async () => {
    const r = await open(undefined, { loadBalance: 'round_robin', healthCheck: { interval: 200, timeout: 150, retry: 2, rise: 2 } });
    const { ds, events } = r;
    try {
      const repo = ds.getRepository(Item);
      await cluster.kill(cluster.primary);
      await waitFor('the primary marked down', () => ds.router.snapshot().some((n) => n.role === 'primary' && !n.up));
      events.length = 0;
      const error = await repo.insert({ id: nextId++, v: 'lost' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NodeUnavailableError);
      expect(error).toMatchObject({ code: 'SHARDING_NODE_UNAVAILABLE', server: 'db', role: 'primary' });
      expect(events.every((e) => e.node === undefined)).toBe(true);
      await expect(ds.transaction((em) => em.findOneBy(Item, { id: 1 }))).rejects.toBeInstanceOf(NodeUnavailableError);
      for (let i = 0; i < 4; i++) expect(await repo.findOneBy({ id: 1 + i })).toEqual({ id: 1 + i, v: `v${1 + i}` });
      expect(events.filter((e) => e.role === 'replica')).toHaveLength(4);

      await cluster.restart(cluster.primary);
      await waitFor('the primary back', () => ds.router.snapshot().every((n) => n.role !== 'primary' || n.up));
      await repo.insert({ id: nextId++, v: 'back' });
      expect(last(events)).toMatchObject({ role: 'primary', reason: 'write' });
      expect(await r.misroutes()).toBe(0);
    } finally {
      if (cluster.primary.pid === undefined) await cluster.restart(cluster.primary);
      await close(r);
    }
  });

  it('leaves no connection open on any node and no open handle once every data source is destroyed; no write ever reached a replica', async () => {
    const handles = () => process.getActiveResourcesInfo().filter((h) => h === 'TCPSocketWrap' || h === 'Timeout').length;
    const settled = async () => {
      for (const node of [cluster.primary, ...cluster.replicas]) {
        await waitFor(`no client connection on ${node.name}`, async () => (await clientConnections(cluster, node)) === 0, 5000);
      }
    };
    await settled();
    const before = handles();
    const r = await open();
    await r.ds.getRepository(Item).findOneBy({ id: 1 });
    expect(handles()).toBeGreaterThan(before);
    await close(r);
    await settled();
    await waitFor('no open handle', () => handles() <= before, 5000);
    expect(misroutes).toBe(0);
  });
});
