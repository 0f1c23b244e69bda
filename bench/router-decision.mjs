#!/usr/bin/env node
// Routing decision time of the query router (issue 10) at a route-cache hit: the target is
// p99 ≤ 20 µs (the article's router: < 5 ms). No server is needed. `pnpm bench` reports the
// same numbers in its section 8, beside read throughput with replicas and failover time.
//
//   pnpm bench:router            (builds the library first)
//   node bench/router-decision.mjs --iterations=200000 --balancer=round_robin
import { measureDecisions } from './lib/router-decision.mjs';

const flags = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const { rows, timerP50, iterations, routeCacheMisses } = await measureDecisions({ iterations: Number(flags.iterations ?? 100_000), balancer: flags.balancer ?? 'load_score' });

const fmt = (v) => `${v.toFixed(2)} µs`;
console.log(`Routing decision time at a route-cache hit (${iterations.toLocaleString('en')} decisions per case, after a warm-up; node ${process.version})`);
console.log(`timer overhead p50 ${fmt(timerP50)}\n`);
console.log('| case | p50 | p99 | p99.9 |');
console.log('|---|---|---|---|');
for (const r of rows) console.log(`| ${r.name} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.p999)} |`);
const worst = Math.max(...rows.map((r) => r.p99));
console.log(`\nworst p99 ${fmt(worst)} — target ≤ 20 µs: ${worst <= 20 ? 'met' : 'MISSED'}`);
console.log(`route-cache misses: ${routeCacheMisses} (one per shape)`);
