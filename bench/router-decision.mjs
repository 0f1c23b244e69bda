#!/usr/bin/env node
// Routing decision time of the query router (issue 10) at a route-cache hit: the target is
// p99 ≤ 20 µs (the article's router: < 5 ms). No server is needed: the router's monitors are
// not started, so every replica is up and caught up, as in steady state.
//
//   pnpm bench:router            (builds the library first)
//   node bench/router-decision.mjs --iterations=200000
import { QueryRouter, readRouterConfig, withRouting } from '../packages/typeorm-sharding/dist/router/index.js';

const flags = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const ITERATIONS = Number(flags.iterations ?? 100_000);
const WARMUP = Math.min(50_000, ITERATIONS);

const config = readRouterConfig({
  defaults: { host: '127.0.0.1' },
  nodes: { p: { port: 3306 }, r1: { port: 3307 }, r2: { port: 3308 }, a1: { port: 3309 } },
  routing: {
    master: { nodes: ['p'] },
    slave: { nodes: ['r1', 'r2'], loadBalance: flags.balancer ?? 'load_score' },
    columnar: { nodes: ['a1'] },
  },
});
const router = new QueryRouter(config, { warn: () => undefined });
const commentSql = '/* FORCE_SLAVE */ SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`id` = ?';

const cases = {
  'read → replica (load_score)': () => ({ kind: 'select', shapeKey: 'SELECT `id` FROM `orders` WHERE `id` = ?', shardCount: 1 }),
  'write → primary': () => ({ kind: 'insert', shapeKey: 'INSERT INTO `orders` VALUES (?)' }),
  'aggregate over 16 shards → analytics': () => ({ kind: 'select', shapeKey: 'SELECT COUNT(*) FROM `orders`', hasAggregates: true, shardCount: 16 }),
  'read with a comment hint (hintsOf + route)': () => ({ kind: 'select', shapeKey: 'SELECT `o`.`id` FROM `orders` `o` WHERE `o`.`id` = ?', hints: router.hintsOf(commentSql) }),
};

function measure(make, wrap = (fn) => fn()) {
  const samples = new Float64Array(ITERATIONS);
  wrap(() => {
    for (let i = 0; i < WARMUP + ITERATIONS; i++) {
      const t0 = process.hrtime.bigint();
      const target = router.route('default', make());
      const t1 = process.hrtime.bigint();
      router.complete(target, { result: [] });
      if (i >= WARMUP) samples[i - WARMUP] = Number(t1 - t0) / 1000;
    }
  });
  samples.sort();
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { p50: at(0.5), p99: at(0.99), p999: at(0.999) };
}

// The timer's own cost, to read the numbers against.
const empty = new Float64Array(10_000);
for (let i = 0; i < empty.length; i++) {
  const t0 = process.hrtime.bigint();
  empty[i] = Number(process.hrtime.bigint() - t0) / 1000;
}
empty.sort();

const rows = [];
for (const [name, make] of Object.entries(cases)) rows.push([name, measure(make)]);
rows.push(['read inside withRouting({ consistentRead })', measure(cases['read → replica (load_score)'], (fn) => withRouting({ consistentRead: true }, fn))]);

const fmt = (v) => `${v.toFixed(2)} µs`;
console.log(`Routing decision time at a route-cache hit (${ITERATIONS.toLocaleString('en')} decisions per case, after ${WARMUP.toLocaleString('en')} to warm up; node ${process.version})`);
console.log(`timer overhead p50 ${fmt(empty[5000])}\n`);
console.log('| case | p50 | p99 | p99.9 |');
console.log('|---|---|---|---|');
for (const [name, r] of rows) console.log(`| ${name} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.p999)} |`);
const worst = Math.max(...rows.map(([, r]) => r.p99));
console.log(`\nworst p99 ${fmt(worst)} — target ≤ 20 µs: ${worst <= 20 ? 'met' : 'MISSED'}`);
const stats = await router.metrics.registry.getSingleMetricAsString('typeorm_sharding_router_route_cache_misses_total');
console.log(stats.split('\n').pop());
