import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  gtidOfResult,
  NodePools,
  parseGtidPosition,
  formatGtidPosition,
  QueryRouter,
  readRouterConfig,
  withRouting,
  type NodeDownEvent,
  type NodeUpEvent,
  type RouteTarget,
  type StatementDescriptor,
} from '../packages/typeorm-sharding/src/router/index.js';
import { canStartMariadb, startCluster, type MariadbCluster } from './support/mariadb-cluster.js';

// The query router against real processes: one primary and two GTID replicas started for this
// file (test/support/mariadb-cluster.ts), stopped by process id in afterAll.

const READ: StatementDescriptor = { kind: 'select', shapeKey: 'SELECT `v` FROM `rt`.`items` WHERE `id` = ?' };
const WRITE: StatementDescriptor = { kind: 'insert', shapeKey: 'INSERT INTO `rt`.`items` VALUES (?, ?)' };

describe.skipIf(!canStartMariadb())('the query router on a primary and two MariaDB replicas', () => {
  let cluster: MariadbCluster;
  let nextId = 1;

  beforeAll(async () => {
    cluster = await startCluster(2);
    await cluster.sql(cluster.primary, 'CREATE DATABASE rt', 'CREATE TABLE rt.items (id INT PRIMARY KEY, v VARCHAR(20))');
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  /** A router over the cluster, its pools, and a runner that executes statements as the engine will. */
  function open(routing: Record<string, unknown> = {}, top: Record<string, unknown> = {}) {
    const [r1, r2] = cluster.replicas;
    const router = new QueryRouter(
      readRouterConfig({
        defaults: { host: '127.0.0.1', user: 'root', poolSize: 4 },
        nodes: { primary: { port: cluster.primary.port }, replica1: { port: r1!.port }, replica2: { port: r2!.port } },
        routing: { master: { nodes: ['primary'] }, slave: { nodes: ['replica1', 'replica2'], loadBalance: 'round_robin' }, ...routing },
        ...top,
      }),
      { warn: () => undefined },
    );
    const pools = new NodePools(router.serverConfigs);
    /** Routes, waits for consistency if asked, runs with one retry, completes: the engine's loop. */
    const run = async (statement: StatementDescriptor, sql: string, values: unknown[]): Promise<{ rows: unknown; served: RouteTarget }> => {
      let target = router.route('default', statement);
      target = await router.awaitConsistency(target, pools.queryOn(target.node));
      for (;;) {
        try {
          const [rows] = await pools.get(target.node).promise().query(sql, values);
          router.complete(target, { result: rows });
          return { rows, served: target };
        } catch (error) {
          const retry = router.complete(target, { error });
          if (retry === undefined) throw error;
          target = retry;
        }
      }
    };
    const insert = (id: number) => run(WRITE, 'INSERT INTO rt.items VALUES (?, ?)', [id, `v${id}`]);
    const read = (id: number) => run(READ, 'SELECT v FROM rt.items WHERE id = ?', [id]);
    const close = async () => {
      await router.stop();
      await pools.close();
    };
    return { router, pools, run, insert, read, close };
  }

  async function misroutes(router: QueryRouter): Promise<number> {
    const m = (await router.metrics.registry.getMetricsAsJSON()).find((x) => x.name === 'typeorm_sharding_router_misroutes_total');
    return (m?.values ?? []).reduce((sum, v) => sum + v.value, 0);
  }

  it("gets each write's GTID from mysql2 without a round trip (MariaDB 10.11 session tracking)", async () => {
    const { pools, close } = open();
    try {
      const primary = pools.get('primary').promise();
      const [header] = await primary.query('INSERT INTO rt.items VALUES (?, ?)', [nextId++, 'a']);
      const gtid = gtidOfResult(header);
      expect(gtid).toBeDefined();
      const [[{ pos }]] = (await primary.query('SELECT @@gtid_binlog_pos AS pos')) as unknown as [[{ pos: string }]];
      expect(formatGtidPosition(gtid!)).toBe(formatGtidPosition(parseGtidPosition(pos)));
      expect(gtidOfResult(await primary.query('SELECT 1'))).toBeUndefined();
      const connection = await primary.getConnection();
      try {
        await connection.query('BEGIN');
        expect(gtidOfResult(await connection.query('INSERT INTO rt.items VALUES (?, ?)', [nextId++, 'b']))).toBeUndefined();
        const committed = gtidOfResult(await connection.query('COMMIT'));
        expect(committed?.get(0)?.sequence).toBe(gtid!.get(0)!.sequence + 1);
      } finally {
        connection.release();
      }
    } finally {
      await close();
    }
  });

  it('measures the lag of a replica whose replication is stopped and gives it no reads until it catches up', async () => {
    const { router, insert, read, close } = open({ maxReplicationLagMs: 300 });
    const [r1] = cluster.replicas;
    const lagEvents: unknown[] = [];
    router.on('lag', (e) => lagEvents.push(e));
    try {
      await router.checkLagNow();
      await cluster.sql(r1!, 'STOP SLAVE SQL_THREAD');
      await insert(nextId++);
      await new Promise((r) => setTimeout(r, 600));
      await router.checkLagNow();
      const lag = router.snapshot().find((n) => n.node === 'replica1')!.lagMs!;
      expect(lag).toBeGreaterThanOrEqual(500);
      expect(router.snapshot().find((n) => n.node === 'replica2')!.lagMs).toBe(0);
      expect(lagEvents).toContainEqual(expect.objectContaining({ node: 'replica1', eligible: false }));
      const served = [];
      for (let i = 0; i < 10; i++) served.push((await read(1)).served.node.name);
      expect(new Set(served)).toEqual(new Set(['replica2']));

      await cluster.sql(r1!, 'START SLAVE SQL_THREAD');
      for (let i = 0; i < 50 && router.snapshot().find((n) => n.node === 'replica1')!.lagMs !== 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        await router.checkLagNow();
      }
      const back = [];
      for (let i = 0; i < 10; i++) back.push((await read(1)).served.node.name);
      expect(new Set(back)).toEqual(new Set(['replica1', 'replica2']));
      expect(await misroutes(router)).toBe(0);
    } finally {
      await cluster.sql(r1!, 'START SLAVE SQL_THREAD');
      await close();
    }
  });

  it('reads its own writes through a lagging replica: GTID wait, or the primary on timeout', async () => {
    const { router, insert, read, pools, close } = open({ consistentReadTimeout: 30 });
    const [r1] = cluster.replicas;
    // replica1 applies every event one second late (MASTER_DELAY); replica2 keeps up.
    await cluster.sql(r1!, 'STOP SLAVE', 'CHANGE MASTER TO MASTER_DELAY=1', 'START SLAVE');
    try {
      // The lag is real: without the hint a read on replica1 right after a write misses it.
      const probe = nextId++;
      await insert(probe);
      const [stale] = (await pools.get('replica1').promise().query('SELECT v FROM rt.items WHERE id = ?', [probe])) as unknown as [unknown[]];
      expect(stale).toEqual([]);

      const servedBy: Record<string, number> = {};
      let missed = 0;
      const iterations = 300;
      for (let i = 0; i < iterations; i++) {
        await withRouting({ consistentRead: true }, async () => {
          const id = nextId++;
          await insert(id);
          const { rows, served } = await read(id);
          if ((rows as { v: string }[])[0]?.v !== `v${id}`) missed++;
          const key = `${served.node.name}${served.fallback ? `:${served.fallback}` : ''}`;
          servedBy[key] = (servedBy[key] ?? 0) + 1;
        });
      }
      expect(missed).toBe(0);
      // Both ways were taken: replica2 after its wait, replica1's reads sent to the primary on timeout.
      expect(servedBy['replica2']).toBeGreaterThan(0);
      expect(servedBy['primary:consistency-timeout']).toBeGreaterThan(0);
      expect(Object.values(servedBy).reduce((a, b) => a + b, 0)).toBe(iterations);
      expect(await misroutes(router)).toBe(0);
    } finally {
      await cluster.sql(r1!, 'STOP SLAVE', 'CHANGE MASTER TO MASTER_DELAY=0', 'START SLAVE');
      await close();
    }
  });

  it('marks a SIGKILLed replica down by heartbeat within ~3 s while 16 clients read, with no failed read', async () => {
    // errorThreshold 0: only the heartbeat may take the node out (statement errors are retried).
    const { router, read, close } = open({}, { healthCheck: { interval: 1000, timeout: 500, retry: 3, errorThreshold: 0 } });
    const [, r2] = cluster.replicas;
    let down: NodeDownEvent | undefined;
    let killedAt = 0;
    let downAfterMs = 0;
    router.on('node-down', (e) => {
      down ??= e;
      downAfterMs = performance.now() - killedAt;
    });
    router.start();
    let reads = 0;
    let failed = 0;
    const servedAfterDown: string[] = [];
    try {
      const client = async () => {
        while (reads < 1000 || servedAfterDown.length < 200) {
          const wasDown = down !== undefined;
          try {
            const { rows, served } = await read(1);
            if ((rows as unknown[]).length !== 1) failed++;
            if (wasDown) servedAfterDown.push(served.node.name);
          } catch {
            failed++;
          }
          reads++;
          if (reads === 200) {
            killedAt = performance.now();
            void cluster.kill(r2!);
          }
          if (performance.now() - killedAt > 15_000 && killedAt > 0) break;
        }
      };
      await Promise.all(Array.from({ length: 16 }, client));
      expect(failed).toBe(0);
      expect(reads).toBeGreaterThanOrEqual(1000);
      expect(down).toMatchObject({ node: 'replica2', cause: 'heartbeat' });
      expect(down!.failoverMs).toBeLessThanOrEqual(3000);
      expect(downAfterMs).toBeLessThan(4500);
      expect(servedAfterDown.length).toBeGreaterThan(0);
      expect(servedAfterDown).not.toContain('replica2');
      expect(router.failovers).toEqual([down!.failoverMs]);
      console.log(`failover ${down!.failoverMs.toFixed(0)} ms after the first failed heartbeat, ${downAfterMs.toFixed(0)} ms after the kill; ${reads} reads`);
    } finally {
      await close();
    }
  });

  it('serves reads from the primary when every replica is down, and from a restarted replica once it is back', async () => {
    const { router, read, close } = open({}, { healthCheck: { interval: 300, timeout: 250, retry: 2, rise: 2 } });
    const [r1, r2] = cluster.replicas;
    const events: (NodeDownEvent | NodeUpEvent)[] = [];
    const waitFor = async (predicate: () => boolean) => {
      for (let i = 0; i < 100 && !predicate(); i++) await new Promise((r) => setTimeout(r, 100));
    };
    router.on('node-down', (e) => events.push(e));
    router.on('node-up', (e) => events.push(e));
    router.start();
    try {
      await cluster.kill(r1!); // replica2 is still down from the test before
      await waitFor(() => router.snapshot().filter((n) => n.role === 'replica').every((n) => !n.up));
      const degraded = await read(1);
      expect([degraded.served.node.name, degraded.served.fallback]).toEqual(['primary', 'no-replica']);
      expect((degraded.rows as unknown[]).length).toBe(1);

      await cluster.restart(r2!);
      // Back: up after two good heartbeats, then in rotation once a lag check has measured it.
      const replica2 = () => router.snapshot().find((n) => n.node === 'replica2')!;
      await waitFor(() => replica2().up && replica2().lagMs === 0);
      expect(events.some((e) => e.node === 'replica2' && !('cause' in e))).toBe(true);
      expect(replica2().share).toBeLessThan(1);
      const back = await read(1);
      expect(back.served.node.name).toBe('replica2');
      expect(await misroutes(router)).toBe(0);
    } finally {
      await close();
    }
  });
});
