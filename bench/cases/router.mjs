// The query router (issue 10), on a primary and two GTID replicas started for the run
// (packages/mariadb-cluster): read throughput of findOneBy with two replicas against the
// primary alone (on one 2-core machine all three mariadbd share the cores with Node, so this
// measures the router's overhead, not scale-out), failover time when a replica is SIGKILLed
// under load (detected by heartbeat, and by the reads' own connection errors), and the
// routing decision at a route-cache hit.
import { canStartMariadb, startCluster } from '../../packages/mariadb-cluster/dist/index.js';
import { ShardedDataSource } from 'typeorm-sharding';
import { Order, orderRow } from '../lib/entities.mjs';
import { alternate, verify } from '../lib/loop.mjs';
import { measureDecisions } from '../lib/router-decision.mjs';
import { errorMessage, idLists, log, sleep } from '../lib/util.mjs';

const SHARDS = 4;
const CLIENTS = 16;
export const ROUTER_VARIANTS = ['primaryAlone', 'routerPrimaryOnly', 'twoReplicas'];
export const FAILOVER_CASES = ['heartbeat', 'traffic'];

function source(cluster, options) {
  return new ShardedDataSource(sourceOptions(cluster, options));
}

function sourceOptions(cluster, { replicas = [], router, poolSize }) {
  return {
    type: 'mariadb',
    entities: [Order],
    servers: [{ name: 'db', host: '127.0.0.1', port: cluster.primary.port, username: 'root', password: '', poolSize, ...(replicas.length ? { replicas: replicas.map((r) => ({ name: r.name, port: r.port })) } : {}) }],
    shards: Array.from({ length: SHARDS }, (_, i) => ({ name: `s${i}`, server: 'db', database: `bench_router_${i}` })),
    sharding: router === undefined ? {} : { router },
  };
}

async function caughtUp(cluster) {
  const [[{ pos }]] = await cluster.sql(cluster.primary, 'SELECT @@gtid_binlog_pos AS pos');
  for (const r of cluster.replicas) await cluster.sql(r, `SELECT MASTER_GTID_WAIT('${pos}', 60)`);
}

async function load(cluster, total) {
  await cluster.sql(cluster.primary, ...Array.from({ length: SHARDS }, (_, i) => `CREATE DATABASE bench_router_${i}`));
  const ds = await new ShardedDataSource({ ...sourceOptions(cluster, { poolSize: 4 }), synchronize: true }).initialize();
  try {
    const repo = ds.getRepository(Order);
    for (let from = 1; from <= total; from += 500) {
      const rows = [];
      for (let id = from; id < Math.min(total + 1, from + 500); id++) {
        const [rid, buyerId, amount, note, createdAt] = orderRow(id);
        rows.push({ id: rid, buyerId, amount, note, createdAt });
      }
      await repo.insert(rows);
    }
  } finally {
    await ds.destroy();
  }
  await caughtUp(cluster);
}

/** 16 clients read while replica2 is SIGKILLed after `killAfter` reads; the node-down event gives the failover time. */
async function failover(cluster, ids, detection, cfg) {
  const health = detection === 'heartbeat' ? { interval: 1000, timeout: 500, retry: 3, errorThreshold: 0 } : {};
  const ds = await source(cluster, { replicas: cluster.replicas, router: { healthCheck: health }, poolSize: 8 }).initialize();
  const repo = ds.getRepository(Order);
  const victim = cluster.replicas[1];
  let down;
  let killedAt = 0;
  ds.router.on('node-down', (e) => {
    down ??= { ...e, afterKillMs: performance.now() - killedAt };
  });
  let reads = 0;
  let failed = 0;
  const killAfter = cfg.quick ? 100 : 500;
  try {
    const client = async () => {
      while (!down || reads < killAfter * 2) {
        try {
          if (!(await repo.findOneBy({ id: ids[reads % ids.length] }))) failed++;
        } catch {
          failed++;
        }
        if (++reads === killAfter) {
          killedAt = performance.now();
          void cluster.kill(victim);
        }
        if (killedAt && performance.now() - killedAt > 15_000) break;
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    const retries = (await ds.routerMetrics.registry.getMetricsAsJSON()).find((m) => m.name === 'typeorm_sharding_router_retries_total');
    return { detection, failoverMs: down?.failoverMs ?? NaN, afterKillMs: down?.afterKillMs ?? NaN, cause: down?.cause ?? '—', reads, failed, retried: (retries?.values ?? []).reduce((n, v) => n + v.value, 0) };
  } finally {
    await ds.destroy();
    await cluster.restart(victim);
    await caughtUp(cluster);
  }
}

export async function runRouter(ctx) {
  const { cfg } = ctx;
  const decisions = await measureDecisions({ iterations: cfg.quick ? 20_000 : 100_000 });
  log(`[router] decision p99 worst ${Math.max(...decisions.rows.map((r) => r.p99)).toFixed(2)} µs`);
  if (!canStartMariadb()) return { decisions, error: 'mariadbd / mariadb-install-db are not installed: no replicas to measure' };
  const total = cfg.quick ? 2_000 : 20_000;
  log('[router] starting a primary and two replicas');
  // --cluster-ports=a,b,c: the primary's and the replicas' ports (a range agreed on a shared machine); else free ports.
  const cluster = await startCluster(2, cfg.clusterPorts ? { ports: cfg.clusterPorts } : {});
  const sources = [];
  try {
    await load(cluster, total);
    const ids = idLists(1, 4096, total, 4242).map((l) => l[0]);
    const poolSize = CLIENTS;
    const open = async (options) => {
      const ds = await source(cluster, { poolSize, ...options }).initialize();
      sources.push(ds);
      return ds;
    };
    const dss = {
      primaryAlone: await open({}),
      routerPrimaryOnly: await open({ router: {} }),
      twoReplicas: await open({ replicas: cluster.replicas, router: {} }),
    };
    const variants = ROUTER_VARIANTS.map((key) => ({ key, op: (i) => dss[key].getRepository(Order).findOneBy({ id: ids[i % ids.length] }) }));
    const failedVariants = {};
    for (const v of variants) {
      const err = await verify(v.key, v.op, 1);
      if (err) failedVariants[v.key] = { error: err };
    }
    const live = variants.filter((v) => !failedVariants[v.key]);
    const throughput = { ...failedVariants, ...(live.length ? await alternate(live, { reps: cfg.reps, clients: CLIENTS, warmupMs: cfg.warmupMs, durationMs: cfg.durationMs, minOps: cfg.warmupMs > 0 ? 10 : 1 }) : {}) };
    const served = dss.twoReplicas.router.snapshot().map((n) => ({ node: n.node, routed: n.routed }));
    log(`[router] ${ROUTER_VARIANTS.map((k) => `${k}=${throughput[k].error ? 'failed' : `${throughput[k].qps.toFixed(0)}qps`}`).join(' ')}`);
    for (const ds of sources.splice(0)) await ds.destroy();
    const failovers = [];
    for (const detection of FAILOVER_CASES) {
      try {
        failovers.push(await failover(cluster, ids, detection, cfg));
      } catch (e) {
        failovers.push({ detection, error: errorMessage(e) });
      }
      log(`[router] failover (${detection}): ${JSON.stringify(failovers.at(-1))}`);
      await sleep(100);
    }
    return { decisions, throughput, served, failovers, clients: CLIENTS, rows: total, shards: SHARDS };
  } finally {
    for (const ds of sources) await ds.destroy().catch(() => undefined);
    await cluster.stop();
  }
}
