#!/usr/bin/env node
// typeorm-sharding benchmark: reproduces the PolarDB-X IN-pruning study on 64 MariaDB shards
// and measures the plugin's own overhead. See bench/README.md.
//
//   pnpm bench            full run (~10 min on 2 cores)
//   pnpm bench --quick    smoke run (< 1 min), same report structure
//   options: --keep (leave the databases), --reuse (skip create+load: data from a --keep run),
//            --rows=N (order rows per shard), --page-rows=N, --reps=N, --duration=ms,
//            --warmup=ms, --pool=N (connections per raw mysql2 shard pool), --server-pool=N
//            (the sharded sources' pool for the server), --only=matrix,overhead,
//            by-hand,planner,plan-cache,deep-paging,router,xa,growth,resharding,global-index,
//            --out=DIR, --cluster-ports=P,R1,R2 (the router case's three mariadbd; default: free ports)
import 'reflect-metadata';
import { execSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Order, Page } from './lib/entities.mjs';
import { adminConnection, createDatabases, dropDatabases, loadOrders, loadPages, serverVariable, threadsConnected } from './lib/mariadb.mjs';
import { MAX_IN, WINDOW, plainMariadb, rawPools, shardedMariadb, sqlitePair } from './lib/setup.mjs';
import { errorMessage, log } from './lib/util.mjs';
import { writeReport } from './lib/report.mjs';
import { runMatrix } from './cases/matrix.mjs';
import { runOverhead } from './cases/overhead.mjs';
import { runByHand, BY_HAND_SIZES, BY_HAND_CONCURRENCY } from './cases/by-hand.mjs';
import { runLayouts } from './cases/layouts.mjs';
import { runPlanner, runPlanCacheSweep } from './cases/planner.mjs';
import { runDeepPaging } from './cases/deep-paging.mjs';
import { runRouter } from './cases/router.mjs';
import { runXaCommit } from './cases/xa-commit.mjs';
import { runGrowth } from './cases/growth.mjs';
import { runResharding } from './cases/resharding.mjs';
import { runGlobalIndex } from './cases/global-index.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const SHARDS = 64;
const PAGING_SHARDS = 16;
const MAX_CONNECTIONS = 1000;

function parseArgs(argv) {
  const flags = {};
  for (const a of argv) {
    const m = /^--([\w-]+)(?:=(.*))?$/.exec(a);
    if (!m) throw new Error(`Unknown argument ${a}`);
    flags[m[1]] = m[2] ?? true;
  }
  const quick = Boolean(flags.quick);
  const num = (k, d) => (flags[k] === undefined ? d : Number(flags[k]));
  const cfg = {
    quick,
    keep: Boolean(flags.keep),
    reuse: Boolean(flags.reuse),
    rowsPerShard: num('rows', quick ? 500 : 10_000),
    pageRowsPerShard: num('page-rows', quick ? 1_000 : 10_000),
    sqliteRowsPerShard: num('sqlite-rows', quick ? 200 : 2_000),
    reps: num('reps', quick ? 1 : 3),
    overheadReps: quick ? 1 : 9,
    overheadWarmupMs: quick ? 0 : 100,
    overheadDurationMs: quick ? 100 : 500,
    pagingReps: quick ? 1 : 5,
    pagingSettleMs: quick ? 50 : 300,
    pagingLoopMs: quick ? 200 : 1_500,
    warmupMs: num('warmup', quick ? 0 : 300),
    durationMs: num('duration', quick ? 100 : 1_200),
    poolSize: num('pool', 2),
    serverPoolSize: num('server-pool', 16),
    plainPoolSize: num('plain-pool', 16),
    matrixClients: quick ? [1, 16] : [1, 16, 64],
    plannerIterations: quick ? 500 : 20_000,
    plannerBudgetMs: quick ? 400 : 3_000,
    sweepMax: 10_000,
    sweepEvery: quick ? 100 : 1_000,
    sweepStride: quick ? 997 : 37,
    sweepBudgetMs: quick ? 2_000 : 15_000,
    only: flags.only ? new Set(String(flags.only).split(',')) : undefined,
    out: flags.out ? String(flags.out) : join(HERE, 'results'),
    clusterPorts: flags['cluster-ports'] ? String(flags['cluster-ports']).split(',').map(Number) : undefined,
  };
  return cfg;
}

async function main() {
  const started = performance.now();
  const cfg = parseArgs(process.argv.slice(2));
  const wants = (name) => !cfg.only || cfg.only.has(name);
  if (typeof globalThis.gc !== 'function') log('note: run with --expose-gc for steadier numbers (pnpm bench does)');
  mkdirSync(cfg.out, { recursive: true });

  const admin = await adminConnection();
  const mariadbVersion = (await admin.query('SELECT VERSION() AS v'))[0][0].v;
  const originalMaxConnections = Number(await serverVariable(admin, 'max_connections'));
  // 64 shards × pools for two sharded sources + raw pools exceed MariaDB's default of 151.
  if (originalMaxConnections < MAX_CONNECTIONS) await admin.query(`SET GLOBAL max_connections = ${MAX_CONNECTIONS}`);
  const load0 = loadavg()[0];

  const R = { meta: {} };
  const ctx = { cfg, totalOrders: SHARDS * cfg.rowsPerShard, totalPages: PAGING_SHARDS * cfg.pageRowsPerShard };
  let maxThreads = 0;
  ctx.sampleThreads = () => {
    threadsConnected(admin).then((t) => (maxThreads = Math.max(maxThreads, t)), () => undefined);
  };
  const sources = [];
  const open = async (ds) => {
    await ds.initialize();
    sources.push(ds);
    return ds;
  };
  let threadsAfterInit;
  let loadSeconds = 0;
  try {
    // --- schema and data --------------------------------------------------------------
    log('[setup] creating databases and data sources');
    if (!cfg.reuse) await createDatabases(admin, SHARDS);
    // The article's study: one statement per shard, pruning on and off.
    ctx.dsOn = await open(shardedMariadb({ count: SHARDS, entities: [Order], pruning: true, coalesce: false, poolSize: cfg.serverPoolSize, synchronize: !cfg.reuse }));
    ctx.dsOff = await open(shardedMariadb({ count: SHARDS, entities: [Order], pruning: false, coalesce: false, poolSize: cfg.serverPoolSize }));
    // The default: the statements to the server's shards as one UNION ALL per 16 shards.
    ctx.dsDefault = await open(shardedMariadb({ count: SHARDS, entities: [Order], pruning: true, poolSize: cfg.serverPoolSize }));
    ctx.plain = await open(plainMariadb({ entities: [Order, Page], poolSize: cfg.plainPoolSize, synchronize: !cfg.reuse }));
    ctx.probe = { sample: () => {} };
    ctx.ds16 = await open(shardedMariadb({
      count: PAGING_SHARDS,
      entities: [Page],
      poolSize: cfg.serverPoolSize,
      synchronize: !cfg.reuse,
      onPhysicalQuery: () => ctx.probe.sample(),
    }));
    const orderAlgorithm = ctx.dsOn.shardingRules.ruleOf('orders').shardKey.algorithm;
    ctx.shardIndexOf = (id) => orderAlgorithm.shardIndexOf(id);
    const pageAlgorithm = ctx.ds16.shardingRules.ruleOf('pages').shardKey.algorithm;
    if (!cfg.reuse) {
      const t = performance.now();
      await loadOrders({ total: ctx.totalOrders, shardIndexOf: ctx.shardIndexOf, shardCount: SHARDS, label: `load orders → ${SHARDS} shards + plain` });
      ctx.pagesLoaded = wants('deep-paging');
      if (ctx.pagesLoaded) await loadPages({ total: ctx.totalPages, shardIndexOf: (id) => pageAlgorithm.shardIndexOf(id), shardCount: PAGING_SHARDS, label: `load pages  → ${PAGING_SHARDS} shards + plain` });
      loadSeconds = (performance.now() - t) / 1000;
    } else {
      // A --keep run loaded the pages when it ran deep-paging.
      ctx.pagesLoaded = (await admin.query('SELECT COUNT(*) AS n FROM `bench_plain`.`pages`').then(([r]) => Number(r[0].n), () => 0)) > 0;
    }
    ctx.pools = rawPools(SHARDS, cfg.poolSize);
    log('[setup] SQLite pair');
    try {
      ctx.sqlite = await sqlitePair({ count: SHARDS, rowsPerShard: cfg.sqliteRowsPerShard });
    } catch (e) {
      ctx.sqliteError = errorMessage(e);
      log(`[sqlite] setup failed: ${ctx.sqliteError}`);
    }
    threadsAfterInit = await threadsConnected(admin);
    log(`[setup] ${threadsAfterInit} connections open on MariaDB after initialisation`);

    // --- cases: each caught on its own so the report is always written ----------------
    const guarded = async (name, key, fn) => {
      if (!wants(name)) return;
      log(`--- ${name}`);
      try {
        R[key] = await fn(ctx);
      } catch (e) {
        log(`[${name}] failed: ${e?.stack ?? e}`);
        R[key] = { error: errorMessage(e) };
      }
    };
    await guarded('planner', 'planner', runPlanner);
    if (R.planner?.error) {
      R.plannerError = R.planner.error;
      R.planner = [];
    }
    await guarded('plan-cache', 'planCache', runPlanCacheSweep);
    if (R.planCache?.error) {
      R.planCacheError = R.planCache.error;
      R.planCache = [];
    }
    await guarded('overhead', 'overhead', runOverhead);
    await guarded('by-hand', 'byHand', runByHand);
    // Issue 18: the table layouts by hand; part of by-hand (its ceiling), or alone.
    if (wants('by-hand')) cfg.only?.add('layouts');
    await guarded('layouts', 'layouts', (c) => runLayouts(c, { sizes: BY_HAND_SIZES, concurrency: BY_HAND_CONCURRENCY, admin }));
    await guarded('matrix', 'matrix', runMatrix);
    await guarded('deep-paging', 'deepPaging', runDeepPaging);
    await guarded('router', 'router', runRouter);
    await guarded('xa', 'xa', runXaCommit);
    await guarded('growth', 'growth', (c) => runGrowth(c, admin));
    await guarded('resharding', 'resharding', runResharding);
    await guarded('global-index', 'globalIndex', runGlobalIndex);
    ctx.sampleThreads();
  } finally {
    for (const ds of sources.reverse()) await ds.destroy().catch((e) => log(`destroy: ${errorMessage(e)}`));
    await Promise.all((ctx.pools ?? []).map((p) => p.end().catch(() => undefined)));
    await ctx.sqlite?.sharded.destroy().catch(() => undefined);
    await ctx.sqlite?.plain.destroy().catch(() => undefined);
    if (!cfg.keep) await dropDatabases(admin, SHARDS).catch((e) => log(`drop: ${errorMessage(e)}`));
    if (originalMaxConnections < MAX_CONNECTIONS && !cfg.keep) await admin.query(`SET GLOBAL max_connections = ${originalMaxConnections}`).catch(() => undefined);
    await admin.end().catch(() => undefined);
  }

  const commit = (() => {
    try {
      return execSync('git rev-parse --short HEAD', { cwd: HERE, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() + (execSync('git status --porcelain -- ../packages/typeorm-sharding/src', { cwd: HERE, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() ? ' + uncommitted library changes' : '');
    } catch {
      return 'unknown';
    }
  })();
  const typeormVersion = JSON.parse(readFileSync(new URL(import.meta.resolve('typeorm/package.json')), 'utf8')).version;
  R.meta = {
    quick: cfg.quick,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    commit,
    totalSeconds: (performance.now() - started) / 1000,
    window: WINDOW,
    maxIn: MAX_IN,
    pagingReps: cfg.pagingReps,
    config: [
      ['machine', `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; load average ${load0.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at end`],
      ['software', `Node ${process.version}, TypeORM ${typeormVersion}, MariaDB ${mariadbVersion} on ${'127.0.0.1:3306'}`],
      ['data', `orders: ${SHARDS} shards × ${cfg.rowsPerShard.toLocaleString('en-US')} rows (ids 1..${ctx.totalOrders.toLocaleString('en-US')}, routed by the plugin's hash) + the same rows in bench_plain.orders; pages: ${PAGING_SHARDS} shards × ${cfg.pageRowsPerShard.toLocaleString('en-US')} rows + bench_plain.pages; SQLite: ${SHARDS} in-memory shards × ${cfg.sqliteRowsPerShard.toLocaleString('en-US')} rows + one in-memory table${loadSeconds ? `; MariaDB load took ${loadSeconds.toFixed(1)} s` : ''}`],
      ['sharding options', `concurrency (window) ${WINDOW} (= CPU cores, the default), maxInValuesPerQuery ${MAX_IN}, pruning true / false`],
      ['connections', `one pool of ${cfg.serverPoolSize} per ShardedDataSource for its one server (three 64-shard sources: one statement per shard with pruning on and off, and the default, one UNION ALL per 16 shards; one 16-shard source), shared by all its shards; ${cfg.poolSize} per raw mysql2 shard pool (the hand-routed baseline: ${SHARDS} pools); ${cfg.plainPoolSize} for the unsharded DataSource; max_connections raised from ${originalMaxConnections} to ${MAX_CONNECTIONS} for the run (for the ${SHARDS} raw pools)${cfg.keep ? ' (left raised: --keep)' : ' and restored afterwards'}; Threads_connected ${threadsAfterInit ?? '—'} after initialisation, peak ${maxThreads || '—'} sampled between cells`],
      ['measurement', `${cfg.reps} alternating repetition(s) per cell (64 clients: ${Math.max(1, cfg.reps - 1)}) (findOneBy on MariaDB: ${cfg.overheadReps * 2} × ${cfg.overheadDurationMs / 2} ms with 1 client, ${cfg.overheadReps} × ${cfg.overheadDurationMs} ms with 16; on SQLite ${cfg.overheadReps * 3} × ${cfg.overheadDurationMs / 5} ms), ${cfg.warmupMs > 0 ? `warm-up ≥ ${cfg.warmupMs} ms and ≥ one call per client` : 'no warm-up (quick mode)'}, window ≥ ${cfg.durationMs} ms per variant per repetition; planner: up to ${cfg.plannerIterations.toLocaleString('en-US')} calls or ${cfg.plannerBudgetMs / 1000} s per case`],
    ],
    method: [
      'Every case measures its variants side by side: within each repetition every variant runs once, in an order rotated per repetition, so drift of the (shared, 2-core) machine hits all variants alike. Throughput = calls completed in the measuring window / window; latencies are per call, as the client sees them (including queueing in Node).',
      'Closed loop: each client loop awaits its call and immediately starts the next; the warm-up lasts until every client has completed one call, so slow cells start measuring in a steady state.',
      'Before timing, each variant is called once and its row count checked; a variant that throws or returns the wrong rows is reported as "failed: <message>" and the run goes on.',
      'Ideal gain = physical statements per logical query, broadcast / pruned, counted from the same id lists with the plugin\'s hash (64 × ⌈n/256⌉ against the number of (shard, batch) pairs).',
      'MariaDB runs on the same 2 cores as Node: every statement costs CPU on both sides, so throughput follows the number of statements sent.',
      'Profiling: `node --expose-gc --cpu-prof --cpu-prof-dir=bench/results/profiles bench/run.mjs --reuse --only=<case>` (after a `--keep` run) writes .cpuprofile files for Chrome DevTools / speedscope.',
    ],
  };
  writeFileSync(join(cfg.out, 'results.json'), JSON.stringify(R, (k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2));
  writeReport(R, cfg.out);
  log(`report: ${join(cfg.out, 'REPORT.md')} (${R.meta.totalSeconds.toFixed(1)} s)`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
