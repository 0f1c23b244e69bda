import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LagEvent, NodeDownEvent, PhysicalQueryEvent } from '../packages/typeorm-sharding/src/index.js';
import { canStartMariadb, startCluster, type MariadbCluster } from './support/mariadb-cluster.js';
import { caughtUp, clientConnections, countNodes, createShardDatabases, Item, openRouted, replicasOf, SEEDED, waitFor, type RoutedSource } from './support/routed-source.js';

// Failover and lag through a ShardedDataSource, on real processes: a replica SIGKILLed under
// load, replication stopped until a replica lags, every replica down. Each test puts the
// cluster back as it found it.

const DB = 'rfo';

describe.skipIf(!canStartMariadb())('a ShardedDataSource when replicas fail or lag', () => {
  let cluster: MariadbCluster;
  let misroutes = 0;
  const opened: RoutedSource[] = [];

  beforeAll(async () => {
    cluster = await startCluster(2);
    await createShardDatabases(cluster, DB);
    const seed = await openRouted(cluster, DB, {});
    await seed.ds.getRepository(Item).insert(Array.from({ length: SEEDED }, (_, i) => ({ id: i + 1, v: `v${i + 1}` })));
    await seed.close();
    await caughtUp(cluster);
  });

  afterAll(async () => {
    for (const r of opened) await r.ds.destroy().catch(() => undefined);
    await cluster?.stop();
  });

  async function open(router: Record<string, unknown>): Promise<RoutedSource> {
    const r = await openRouted(cluster, DB, { replicas: replicasOf(cluster) }, { loadBalance: 'round_robin', ...router });
    opened.push(r);
    return r;
  }

  async function close(r: RoutedSource): Promise<void> {
    misroutes += await r.misroutes();
    await r.close();
  }

  /** Restarts the nodes that are down and waits until they have caught up. */
  async function heal(): Promise<void> {
    for (const node of cluster.replicas) if (node.pid === undefined) await cluster.restart(node);
    await caughtUp(cluster);
  }

  const reader = (r: RoutedSource) => async (id: number) => {
    const row = await r.ds.getRepository(Item).findOneBy({ id });
    return row?.v === `v${id}`;
  };

  it('loses no read when a replica is SIGKILLed under 16 clients, and marks it down within ~3 s', async () => {
    // The defaults: heartbeat every 1 s, 3 misses; 5 connection errors of real reads take it out sooner.
    const r = await open({});
    const read = reader(r);
    const [, replica2] = cluster.replicas;
    let down: NodeDownEvent | undefined;
    let killedAt = 0;
    let downAfterKillMs = 0;
    r.ds.router.on('node-down', (e) => {
      down ??= e;
      downAfterKillMs = performance.now() - killedAt;
    });
    let reads = 0;
    let failed = 0;
    const afterDown: PhysicalQueryEvent[] = [];
    try {
      const client = async (c: number) => {
        while (reads < 1000 || afterDown.length < 200) {
          const id = 1 + ((reads * 7 + c) % SEEDED);
          const wasDown = down !== undefined;
          const seenBefore = r.events.length;
          try {
            if (!(await read(id))) failed++;
          } catch {
            failed++;
          }
          if (wasDown) afterDown.push(...r.events.slice(seenBefore).filter((e) => e.shards.length > 0));
          if (++reads === 200) {
            killedAt = performance.now();
            void cluster.kill(replica2!);
          }
          if (killedAt > 0 && performance.now() - killedAt > 20_000) break;
        }
      };
      await Promise.all(Array.from({ length: 16 }, (_, c) => client(c)));
      expect(failed).toBe(0);
      expect(reads).toBeGreaterThanOrEqual(1000);
      expect(down).toMatchObject({ server: 'db', node: 'replica2', role: 'replica' });
      // From the first failed heartbeat or read to the node marked down; the kill-to-down bound is generous for a loaded machine.
      expect(down!.failoverMs).toBeLessThanOrEqual(3000);
      expect(downAfterKillMs).toBeLessThan(10_000);
      expect(r.ds.router.snapshot().find((n) => n.node === 'replica2')).toMatchObject({ up: false });
      expect(r.ds.router.failovers).toEqual([down!.failoverMs]);
      expect(afterDown.length).toBeGreaterThan(0);
      expect(afterDown.some((e) => e.node === 'replica2')).toBe(false);
      // Reads that hit the dead node before it was marked down were retried on another node.
      const retried = (await r.ds.routerMetrics.registry.getMetricsAsJSON()).find((m) => m.name === 'typeorm_sharding_router_retries_total')!.values;
      expect(retried.reduce((n, v) => n + v.value, 0)).toBeGreaterThan(0);
      console.log(`replica killed after 200 reads: down by ${down!.cause} ${down!.failoverMs.toFixed(0)} ms after its first failure, ${downAfterKillMs.toFixed(0)} ms after the kill; ${reads} reads, none failed`);
    } finally {
      await close(r);
      await heal();
    }
  });

  it('routes no read to a replica whose replication is stopped once it lags past the threshold, and ramps it back up after it caught up', async () => {
    // A short warm-up (two steps of 500 ms); latencyTolerance high so that the ramp is not held
    // back by the noise of a shared machine (holding back is unit-tested).
    const r = await open({ maxReplicationLagMs: 300, lagCheckInterval: 100, warmUp: { duration: 1000, steps: 2, initialShare: 0.1, latencyTolerance: 100 } });
    const read = reader(r);
    const [replica1] = cluster.replicas;
    const lag: LagEvent[] = [];
    r.ds.router.on('lag', (e) => lag.push(e));
    const routed = async (n: number) => {
      const from = r.events.length;
      for (let i = 0; i < n; i++) expect(await read(1 + (i % SEEDED))).toBe(true);
      return countNodes(r.events.slice(from));
    };
    const replica1State = () => r.ds.router.snapshot().find((n) => n.node === 'replica1')!;
    try {
      expect(await routed(10)).toEqual({ replica1: 5, replica2: 5 });
      await cluster.sql(replica1!, 'STOP SLAVE SQL_THREAD');
      await r.ds.getRepository(Item).update({ id: 1 }, { v: 'v1' });
      await r.ds.getRepository(Item).insert({ id: 5000, v: 'lagging' });
      await waitFor('replica1 out of rotation for its lag', () => lag.some((e) => e.node === 'replica1' && !e.eligible));
      expect(replica1State().lagMs).toBeGreaterThan(300);
      expect(await routed(20)).toEqual({ replica2: 20 });

      await cluster.sql(replica1!, 'START SLAVE SQL_THREAD');
      await waitFor('replica1 back in rotation', () => lag.some((e) => e.node === 'replica1' && e.eligible));
      // Back at 10 % of its share: most reads still go to replica2.
      expect(replica1State().share).toBeCloseTo(0.1);
      const ramping = await routed(22);
      expect(ramping.replica1 ?? 0).toBeGreaterThan(0);
      expect(ramping.replica1 ?? 0).toBeLessThan(ramping.replica2 ?? 0);
      await waitFor('replica1 warmed up', () => replica1State().share === 1, 10_000);
      expect(await routed(20)).toEqual({ replica1: 10, replica2: 10 });
    } finally {
      await cluster.sql(replica1!, 'START SLAVE SQL_THREAD');
      await close(r);
    }
  });

  it('serves reads from the primary while every replica is down, and from the replicas again once they are back', async () => {
    const r = await open({ healthCheck: { interval: 200, timeout: 150, retry: 2, rise: 2 }, lagCheckInterval: 200, warmUp: { duration: 0 } });
    const read = reader(r);
    try {
      await Promise.all(cluster.replicas.map((n) => cluster.kill(n)));
      await waitFor('both replicas down', () => r.ds.router.snapshot().filter((n) => n.role === 'replica').every((n) => !n.up));
      const from = r.events.length;
      for (let i = 1; i <= 8; i++) expect(await read(i)).toBe(true);
      expect(r.events.slice(from).map((e) => [e.node, e.fallback])).toEqual(Array.from({ length: 8 }, () => ['db-primary', 'no-replica']));

      await heal();
      await waitFor('replicas back and measured', () => r.ds.router.snapshot().filter((n) => n.role === 'replica').every((n) => n.up && n.lagMs === 0));
      const back = r.events.length;
      for (let i = 1; i <= 4; i++) expect(await read(i)).toBe(true);
      expect(countNodes(r.events.slice(back))).toEqual({ replica1: 2, replica2: 2 });
    } finally {
      await close(r);
      await heal();
    }
  });

  it('leaves no client connection on any node, and no write reached a replica', async () => {
    for (const node of [cluster.primary, ...cluster.replicas]) {
      await waitFor(`no client connection on ${node.name}`, async () => (await clientConnections(cluster, node)) === 0, 5000);
    }
    expect(misroutes).toBe(0);
  });
});
