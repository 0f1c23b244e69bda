// Renders bench/results/REPORT.md and the SVG charts from the results object.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lineChart, domainOf } from './svg.mjs';
import { pairedRatio } from './loop.mjs';
import { IN_SIZES, CONCURRENCY } from '../cases/matrix.mjs';
import { BY_HAND_SIZES, BY_HAND_CONCURRENCY } from '../cases/by-hand.mjs';
import { PLANNER_CASES, nsPerExtraValue } from '../cases/planner.mjs';
import { existsSync, readFileSync } from 'node:fs';
import { OFFSETS } from '../cases/deep-paging.mjs';
import { FAILOVER_CASES, ROUTER_VARIANTS } from '../cases/router.mjs';
import { DECISION_CASES } from './router-decision.mjs';
import { XA_CLIENTS, XA_VARIANTS } from '../cases/xa-commit.mjs';
import { GX_INSERTS, GX_READS, GX_TOPOLOGIES } from '../cases/global-index.mjs';

export const REQUIRED_SECTIONS = [
  '## Targets',
  '## Configuration',
  '## 1. The article\'s study: IN size × concurrency × pruning',
  '## 2. Sharded against unsharded',
  '## 3. Plugin overhead: findOneBy',
  '## 4. Against doing it by hand',
  '## 5. Planner alone',
  '## 6. Plan cache',
  '## 7. Deep paging',
  '## 8. Query router: read throughput with replicas',
  '### 8a. Failover time',
  '### 8b. Routing decision at a route-cache hit',
  '## 9. Transactions across servers',
  '## 10. Growth with the shard count',
  '## 12. Global indexes',
  '## Method',
];
export const CHARTS = {
  latencyOn: 'latency-pruning-on.svg',
  latencyOff: 'latency-pruning-off.svg',
  throughputOn: 'throughput-pruning-on.svg',
  throughputOff: 'throughput-pruning-off.svg',
  vsUnsharded: 'throughput-vs-unsharded.svg',
};

const n0 = (v) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '—');
const f1 = (v) => (Number.isFinite(v) ? v.toFixed(1) : '—');
const f2 = (v) => (Number.isFinite(v) ? v.toFixed(2) : '—');
const ms = (v) => (Number.isFinite(v) ? (v < 10 ? v.toFixed(2) : v.toFixed(1)) : '—');
const x2 = (v) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : '—');
/** Deep paging: sharded / unsharded time per page, from the closed-loop throughputs (inverse). */
const pagingRatio = (row) => row.unsharded.qps / row.sharded.qps;
const mib = (b) => (Number.isFinite(b) ? `${(b / 1048576).toFixed(1)} MiB` : '—');
const cellText = (r, f) => (!r ? '—' : r.error ? `failed: ${r.error.replace(/\|/g, '\\|')}` : f(r));

/** " (min–max over n repetitions)" for a paired ratio. */
const spread = (r) => (r.n > 1 ? ` (${r.min.toFixed(2)}–${r.max.toFixed(2)} over ${r.n} reps)` : '');

/** A target row: status from a measured value (or an error). */
function target(name, goal, measured, met, note = '') {
  let status;
  if (measured?.error) status = `⚠️ failed: ${measured.error.replace(/\|/g, '\\|')}`;
  else if (met === undefined) status = '— not run';
  else status = met ? '✅ met' : '❌ missed';
  return { name, goal, measured: measured?.error ? '—' : measured?.text ?? '—', status, note };
}

/**
 * The best a read that waits for the lookup's answer can do against findOneBy({ id }): its time
 * plus what a second raw point read adds (raw two − raw one, mean time per call), over its time.
 */
function lookupFloor(reads) {
  const extra = reads.rawTwo?.mean - reads.rawOne?.mean;
  return (reads.byId?.mean + extra) / reads.byId?.mean;
}

function findCell(cells, n, c) {
  return cells?.find((x) => x.n === n && x.c === c);
}

export function evaluateTargets(R) {
  const rows = [];
  // 1-3. findOneBy overhead: time per call = 1 / qps, paired per repetition
  const overheadCells = [...(R.overhead?.mariadb ?? []).map((c) => ['MariaDB', c]), ...(R.overhead?.sqlite ? [['SQLite in memory', R.overhead.sqlite]] : [])];
  for (const [backend, want] of [['MariaDB', 1], ['MariaDB', 16], ['SQLite in memory', 1]]) {
    const cell = overheadCells.find(([b, c]) => b === backend && c.c === want)?.[1];
    const err = !cell ? { error: 'not run' } : cell.sharded?.error ? cell.sharded : cell.unsharded?.error ? cell.unsharded : undefined;
    const r = cell && !err ? pairedRatio(cell.unsharded, cell.sharded) : { value: NaN };
    rows.push(target(`findOneBy sharded / unsharded, ${backend}, ${want} client${want > 1 ? 's' : ''} (time per call)`, '≤ 1.10×', err ?? { text: `${x2(r.value)}${spread(r)}` }, err ? undefined : r.value <= 1.1));
  }
  // 4. plugin vs hand-written TypeORM
  {
    const cells = R.byHand?.cells ?? [];
    const ok = cells.filter((c) => !c.plugin?.error && !c.handTypeorm?.error);
    const failed = cells.find((c) => c.plugin?.error || c.handTypeorm?.error);
    if (!cells.length || (failed && !ok.length)) {
      rows.push(target('find(In(ids)) plugin / hand-written per-shard TypeORM (worst cell, throughput)', '≤ 1.00×', { error: failed ? (failed.plugin?.error ?? failed.handTypeorm?.error) : 'not run' }));
    } else {
      const worst = ok.map((c) => ({ c, r: pairedRatio(c.handTypeorm, c.plugin) })).sort((a, b) => b.r.value - a.r.value)[0];
      rows.push(target('find(In(ids)) plugin / hand-written per-shard TypeORM (worst cell, time per call)', '≤ 1.00×', { text: `${x2(worst.r.value)} (IN ${worst.c.n}, ${worst.c.c} clients)${spread(worst.r)}` }, worst.r.value <= 1.0, failed ? 'some cells failed' : ''));
    }
  }
  // 5. planner p99
  for (const dialect of ['mysql', 'sqlite']) {
    const list = (R.planner ?? []).filter((p) => p.dialect === dialect && (p.key === 'point' || p.key === 'in8'));
    const failed = list.find((p) => p.error);
    if (!list.length || failed) {
      rows.push(target(`planner p99, ${dialect === 'mysql' ? 'MariaDB' : 'SQLite'} dialect (findOneBy and IN of 8, 64 shards)`, '≤ 50 µs', { error: failed?.error ?? 'not run' }));
    } else {
      const worst = list.sort((a, b) => b.p99 - a.p99)[0];
      rows.push(target(`planner p99, ${dialect === 'mysql' ? 'MariaDB' : 'SQLite'} dialect (findOneBy and IN of 8, 64 shards)`, '≤ 50 µs', { text: `${f1(worst.p99)} µs wall (${worst.label}); CPU-time p99 ${n0(worst.cpuP99)} µs` }, worst.p99 <= 50));
    }
  }
  // 5b. issue 18: the planner against TypeORM's own SQL building for the same find, same run
  for (const dialect of ['mysql', 'sqlite']) {
    const p = (R.planner ?? []).find((x) => x.dialect === dialect && x.key === 'in8');
    const name = `planner / TypeORM's SQL building for the same find(In(8 ids)), 64 shards, ${dialect === 'mysql' ? 'MariaDB' : 'SQLite'} dialect (p50 per call, measured alternately) (issue 18)`;
    if (!p || p.error || !Number.isFinite(p.typeormP50)) rows.push(target(name, '≤ 0.50×', { error: p?.error ?? 'not run' }));
    else {
      const r = p.p50 / p.typeormP50;
      const slope = nsPerExtraValue(R.planner, dialect);
      rows.push(target(name, '≤ 0.50×', { text: `${x2(r)} (${f1(p.p50)} against ${f1(p.typeormP50)} µs; ${n0(slope)} ns per extra IN value)` }, r <= 0.5));
    }
  }
  // 6. pruning gain at IN 8, 16 clients
  {
    const cell = findCell(R.matrix?.cells, 8, 16);
    const st = R.matrix?.statements?.[8];
    const err = !cell ? { error: 'not run' } : cell.pruned?.error ? cell.pruned : cell.broadcast?.error ? cell.broadcast : undefined;
    if (err) rows.push(target('64 shards, IN of 8, 16 clients: pruned / broadcast throughput, share of the ideal gain', '≥ 80 % of ideal', err));
    else {
      const g = pairedRatio(cell.pruned, cell.broadcast);
      const gain = g.value;
      const ideal = st.broadcast / st.pruned;
      rows.push(target('64 shards, IN of 8, 16 clients: pruned / broadcast throughput, share of the ideal gain', `≥ 80 % of ideal (${f1(ideal)}×)`, { text: `${f2(gain)}× = ${n0((gain / ideal) * 100)} % of ideal${spread(g)}` }, gain >= 0.8 * ideal));
    }
  }
  // 7. plan cache
  for (const dialect of ['mysql', 'sqlite']) {
    const s = (R.planCache ?? []).find((p) => p.dialect === dialect);
    const name = `plan-cache entries of one new query shape after IN lists of ${s && !s.error ? `${n0(s.lengths)} lengths 1..${n0(s.maxLength)}` : 'every length'}, ${dialect === 'mysql' ? 'MariaDB' : 'SQLite'} dialect`;
    if (!s || s.error) rows.push(target(name, '1 entry per shape', { error: s?.error ?? 'not run' }));
    else rows.push(target(name, '1 entry per shape', { text: `${s.entriesAdded} new entr${s.entriesAdded === 1 ? 'y' : 'ies'}, ${s.misses} miss${s.misses === 1 ? '' : 'es'}` }, s.misses === 1 && s.entriesAdded === 1));
  }
  // 8. deep paging memory: does the live peak grow with the rows the shards send?
  {
    const d = R.deepPaging;
    const ca = d?.offsets?.find((o) => o.offset === 1000);
    const cb = d?.offsets?.find((o) => o.offset === 10000);
    const a = ca?.sharded;
    const b = cb?.sharded;
    const err = d?.error ? { error: d.error } : !a || !b ? { error: 'not run' } : b.error ? b : a.error ? a : undefined;
    const name = 'deep paging, 16 shards: memory bounded by shards × page — growth of the live peak (full gc after every physical statement) per extra row the shards send, OFFSET 1,000 → 10,000 (a buffering merge keeps a few hundred bytes per row)';
    if (err) rows.push(target(name, '≤ 16 B per row', err));
    else {
      const extraRows = cb.shardRows - ca.shardRows;
      const perRow = extraRows > 0 ? Math.max(0, b.liveBytes - a.liveBytes) / extraRows : NaN;
      const streamed = ca.uncapped?.liveBytes !== undefined && cb.uncapped?.liveBytes !== undefined ? `; streamed without windows: ${mib(ca.uncapped.liveBytes)} → ${mib(cb.uncapped.liveBytes)}` : '';
      rows.push(target(name, '≤ 16 B per row', { text: `${f1(perRow)} B/row (${mib(a.liveBytes)} → ${mib(b.liveBytes)} while the shards send ${n0(ca.shardRows)} → ${n0(cb.shardRows)} rows${streamed})` }, Number.isFinite(perRow) ? perRow <= 16 : undefined, extraRows > 0 ? 'the windows are buffered: every row they send is held until the page is located' : 'too few rows per shard to tell'));
    }
  }
  // 8b. issue 18 item 1: the first page of the feed, and OFFSET 1,000
  {
    const row = R.deepPaging?.offsets?.find((o) => o.offset === 0);
    const name = 'feed page, 16 shards on one server, OFFSET 0: sharded / unsharded throughput, one client (issue 18)';
    const ok = row?.sharded && row?.unsharded && !row.sharded.error && !row.unsharded.error && row.sharded.qps && row.unsharded.qps;
    if (!ok) rows.push(target(name, '≥ 0.60', { error: R.deepPaging?.error ?? 'not run' }));
    else {
      const r = row.sharded.qps / row.unsharded.qps;
      const cpu = `Node ${n0(row.sharded.nodeCpuUs)} + server ${n0(row.sharded.serverCpuUs)} µs per page against ${n0(row.unsharded.nodeCpuUs)} + ${n0(row.unsharded.serverCpuUs)}`;
      const feed = R.layouts?.cells?.find((c) => c.n === 'feed page');
      const ceiling = feed?.databases?.qps && feed?.unsharded?.qps ? `the same UNION ALL by hand over raw mysql2 reaches ${f2(feed.databases.qps / feed.unsharded.qps)} (§4b): 16 shard databases cost the server one index read each` : '';
      rows.push(target(name, '≥ 0.60', { text: `${f2(r)} (${n0(row.sharded.qps)} / ${n0(row.unsharded.qps)} qps; ${cpu})` }, r >= 0.6, ceiling));
    }
    const part = row?.partitioned;
    const pname = `feed page, the same rows as ${R.deepPaging?.partitions ?? 16} MySQL partitions of one shard database (\`partitions: ${R.deepPaging?.partitions ?? 16}\`), OFFSET 0: sharded / unsharded throughput, one client (issue 18)`;
    if (!part || part.error || !part.qps || !row.unsharded?.qps) rows.push(target(pname, '≥ 0.60', { error: part?.error ?? R.deepPaging?.error ?? 'not run' }));
    else {
      const r = part.qps / row.unsharded.qps;
      rows.push(target(pname, '≥ 0.60', { text: `${f2(r)} (${n0(part.qps)} / ${n0(row.unsharded.qps)} qps; Node ${n0(part.nodeCpuUs)} + server ${n0(part.serverCpuUs)} µs per page)${part.mismatch ? ` ❌ ${part.mismatch}` : ''}` }, r >= 0.6 && !part.mismatch));
    }
    const deep = R.deepPaging?.offsets?.find((o) => o.offset === 1000);
    const name2 = 'deep paging, 16 shards on one server, OFFSET 1,000: sharded / unsharded time per page (issue 18)';
    const ratio = deep?.sharded && deep?.unsharded && !deep.sharded.error && !deep.unsharded.error ? pagingRatio(deep) : undefined;
    if (ratio === undefined) rows.push(target(name2, '≤ 1.50×', { error: R.deepPaging?.error ?? 'not run' }));
    else rows.push(target(name2, '≤ 1.50×', { text: x2(ratio) }, ratio <= 1.5));
  }
  // 9. DESIGN §5: 64 shards on one server vs one table, IN of 8
  {
    const cell = findCell(R.matrix?.cells, 8, 16);
    const err = !cell ? { error: 'not run' } : cell.pruned?.error ? cell.pruned : cell.unsharded?.error ? cell.unsharded : undefined;
    const name = '64 shards on one server, IN of 8, 16 clients: pruned / unsharded throughput (DESIGN §5)';
    if (err) rows.push(target(name, '≥ 0.50', err));
    else {
      const r = pairedRatio(cell.pruned, cell.unsharded);
      rows.push(target(name, '≥ 0.50', { text: `${f2(r.value)}${spread(r)}` }, r.value >= 0.5));
    }
    const cerr = !cell ? { error: 'not run' } : cell.coalesced?.error ? cell.coalesced : cell.unsharded?.error ? cell.unsharded : undefined;
    const cname = '64 shards on one server, IN of 8, 16 clients: the default (one UNION ALL per server) / unsharded throughput (issue 9)';
    if (cerr) rows.push(target(cname, '≥ 0.75', cerr));
    else {
      const r = pairedRatio(cell.coalesced, cell.unsharded);
      rows.push(target(cname, '≥ 0.75', { text: `${f2(r.value)}${spread(r)}` }, r.value >= 0.75));
    }
  }
  // 10. issue 9: every cell of the matrix, the default against unsharded
  {
    const cells = (R.matrix?.cells ?? []).filter((c) => !c.coalesced?.error && !c.unsharded?.error);
    const name = 'every IN size × clients cell: the default / unsharded throughput, worst cell (issue 9)';
    if (!cells.length) rows.push(target(name, '≥ 0.60', { error: 'not run' }));
    else {
      const worst = cells.map((c) => ({ c, r: pairedRatio(c.coalesced, c.unsharded) })).sort((a, b) => a.r.value - b.r.value)[0];
      rows.push(target(name, '≥ 0.60', { text: `${f2(worst.r.value)} (IN ${worst.c.n}, ${worst.c.c} clients)${spread(worst.r)}` }, worst.r.value >= 0.6));
    }
  }
  // 11. issue 9: the plugin against raw mysql2 routed by hand over one pool per shard
  {
    const cell = findCell(R.byHand?.cells, 8, 16);
    const err = !cell ? { error: 'not run' } : cell.plugin?.error ? cell.plugin : cell.rawMysql2?.error ? cell.rawMysql2 : undefined;
    const name = 'IN of 8, 16 clients: the plugin (default) / raw mysql2 routed by hand over one pool per shard, throughput (issue 9)';
    if (err) rows.push(target(name, '≥ 2.00', err));
    else {
      const r = pairedRatio(cell.plugin, cell.rawMysql2);
      rows.push(target(name, '≥ 2.00', { text: `${f2(r.value)}${spread(r)}` }, r.value >= 2));
    }
  }
  // 11b. issue 18: the plugin's default against its ceiling, the same UNION ALLs sent by hand
  {
    const cells = (R.byHand?.cells ?? []).filter((c) => c.plugin && c.rawUnion && !c.plugin.error && !c.rawUnion.error);
    const name = 'every by-hand cell: the plugin (default) / the same pruned statements coalesced by hand into one UNION ALL per server over raw mysql2, throughput, worst cell (issue 18)';
    if (!cells.length) rows.push(target(name, '≥ 0.90', { error: R.byHand?.cells?.find((c) => c.rawUnion?.error)?.rawUnion.error ?? 'not run' }));
    else {
      const worst = cells.map((c) => ({ c, r: pairedRatio(c.plugin, c.rawUnion) })).sort((a, b) => a.r.value - b.r.value)[0];
      rows.push(target(name, '≥ 0.90', { text: `${f2(worst.r.value)} (IN ${worst.c.n}, ${worst.c.c} clients)${spread(worst.r)}` }, worst.r.value >= 0.9));
    }
  }
  // 11c. issue 18 item 3: the layout that beat the ceiling, built, through the plugin
  {
    const cells = (R.layouts?.plugin ?? []).filter((c) => c.plugin && c.unsharded && !c.plugin.error && !c.unsharded.error);
    const name = `every IN size × clients cell: the plugin over ${R.layouts?.partitions ?? 64} MySQL partitions of one shard database (\`sharding.partitions\`) / unsharded, find(In(ids)) throughput, worst cell (issue 18, item 3)`;
    if (!cells.length) rows.push(target(name, '≥ 0.75', { error: R.layouts?.plugin?.find((c) => c.plugin?.error)?.plugin.error ?? R.layouts?.error ?? 'not run' }));
    else {
      const worst = cells.map((c) => ({ c, r: pairedRatio(c.plugin, c.unsharded) })).sort((a, b) => a.r.value - b.r.value)[0];
      rows.push(target(name, '≥ 0.75', { text: `${f2(worst.r.value)} (IN ${worst.c.n}, ${worst.c.c} clients)${spread(worst.r)}` }, worst.r.value >= 0.75));
    }
  }
  // 12. issue 9: deep paging on one server
  {
    const row = R.deepPaging?.offsets?.find((o) => o.offset === 10_000);
    const name = 'deep paging, 16 shards on one server, OFFSET 10,000: sharded / unsharded time per page (issue 9)';
    const ratio = row?.sharded && row?.unsharded && !row.sharded.error && !row.unsharded.error ? pagingRatio(row) : undefined;
    if (ratio === undefined) rows.push(target(name, '≤ 1.50×', { error: R.deepPaging?.error ?? 'not run' }));
    else rows.push(target(name, '≤ 1.50×', { text: x2(ratio) }, ratio <= 1.5));
  }
  // 13. issue 10: the routing decision at a route-cache hit
  {
    const d = R.router?.decisions;
    const name = 'query router: routing decision incl. the replica choice at a route-cache hit, p99 of the worst case (issue 10)';
    if (!d?.rows?.length) rows.push(target(name, '≤ 20 µs', { error: R.router?.error ?? 'not run' }));
    else {
      const worst = [...d.rows].sort((a, b) => b.p99 - a.p99)[0];
      rows.push(target(name, '≤ 20 µs', { text: `${f2(worst.p99)} µs (${worst.name})` }, worst.p99 <= 20));
    }
  }
  // 14. issue 10: a replica SIGKILLed under 16 clients
  {
    const f = R.router?.failovers?.find((x) => x.detection === 'heartbeat');
    const name = 'query router: a replica SIGKILLed under 16 clients — failed reads, and time to mark it down by heartbeat (1 s × 3 misses) (issue 10)';
    if (!f || f.error) rows.push(target(name, '0 failed, ≤ 3 s', { error: f?.error ?? R.router?.error ?? 'not run' }));
    else rows.push(target(name, '0 failed, ≤ 3 s', { text: `${f.failed} failed of ${n0(f.reads)}; down ${n0(f.failoverMs)} ms after the first failed heartbeat` }, f.failed === 0 && f.failoverMs <= 3000));
  }
  // 15. issue 18 item 4: the router's own cost with only a primary, and the XA tax at 16 clients
  {
    const t = R.router?.throughput;
    const name = 'query router on, primary only / no router: findOneBy throughput, 16 clients (issue 18)';
    const err = !t ? { error: R.router?.error ?? 'not run' } : t.routerPrimaryOnly?.error ? t.routerPrimaryOnly : t.primaryAlone?.error ? t.primaryAlone : undefined;
    if (err) rows.push(target(name, '≥ 0.95×', err));
    else {
      const r = pairedRatio(t.primaryAlone, t.routerPrimaryOnly);
      rows.push(target(name, '≥ 0.95×', { text: `${f2(1 / r.value)}× (Node CPU ${n0(t.routerPrimaryOnly.nodeCpuUs)} against ${n0(t.primaryAlone.nodeCpuUs)} µs per call)` }, 1 / r.value >= 0.95));
    }
  }
  {
    const cell = R.xa?.cells?.find((c) => c.c === 16);
    const name = 'XA two-phase commit over two servers / local commit, time per transfer, 16 clients (issue 18)';
    const err = !cell ? { error: R.xa?.error ?? 'not run' } : cell.xa?.error ? cell.xa : cell.local?.error ? cell.local : undefined;
    if (err) rows.push(target(name, '≤ 2.00×', err));
    else {
      const r = pairedRatio(cell.local, cell.xa);
      rows.push(target(name, '≤ 2.00×', { text: `${x2(r.value)}${spread(r)}` }, r.value <= 2));
    }
  }
  // issue 16: global index reads, one server and two
  for (const topology of GX_TOPOLOGIES) {
    const T = R.globalIndex?.topologies?.[topology];
    const where = topology === 'one' ? 'one server' : 'two servers';
    const reads = T?.reads;
    const err = (...keys) => (!reads ? { error: R.globalIndex?.error ?? 'not run' } : keys.map((k) => reads[k]).find((r) => r?.error));
    // Each read by email twice: its first read (the lookup table, then the owner) and a repeated one (the owner remembered).
    for (const [key, which] of [['lookup', 'first read of a value'], ['remembered', 'repeated read, owner remembered']]) {
      {
        const name = `findOneBy({ email }) through the lookup / scattered, throughput, 64 shards, 16 clients, ${where}, ${which} (issue 16)`;
        const e = err(key, 'scatter');
        if (e) rows.push(target(name, '≥ 10.00×', e));
        else {
          const r = pairedRatio(reads[key], reads.scatter);
          // No read of one row beats a read by its shard key: that ratio is the ceiling here.
          const ceiling = pairedRatio(reads.byId, reads.scatter).value;
          const note = key === 'remembered' && Number.isFinite(ceiling) ? `findOneBy({ id }) / scattered: ${x2(ceiling)}` : '';
          rows.push(target(name, '≥ 10.00×', { text: `${x2(r.value)}${spread(r)}` }, r.value >= 10, note));
        }
      }
      {
        const name = `findOneBy({ email }) through the lookup / findOneBy({ id }), time per call, 64 shards, 16 clients, ${where}, ${which} (issue 16)`;
        const e = err(key, 'byId');
        if (e) rows.push(target(name, '≤ 1.30×', e));
        else {
          const r = pairedRatio(reads.byId, reads[key]);
          const ceiling = pairedRatio(reads.rawOne, reads.rawTwo).value;
          const floor = lookupFloor(reads);
          const note = key === 'lookup' && Number.isFinite(ceiling) ? `two raw mysql2 point reads in sequence / one: ${x2(ceiling)}; findOneBy({ id }) plus one raw point read / findOneBy({ id }): ${x2(floor)}` : '';
          rows.push(target(name, '≤ 1.30×', { text: `${x2(r.value)}${spread(r)}` }, r.value <= 1.3, note));
        }
      }
    }
  }
  // 16. issue 18 item 5: growth to 1,024 shards
  for (const backend of ['mariadb', 'sqlite']) {
    const label = backend === 'mariadb' ? 'MariaDB databases on one server' : 'SQLite files';
    const list = R.growth?.[backend] ?? [];
    const big = list.find((g) => g.shards === 1024);
    const small = list.find((g) => g.shards === 16);
    // A quick run measures 16 and 64 shards only: the 1,024-shard targets are not run then, not failed.
    const quickOnly = !R.growth?.error && list.length > 0 && !big;
    const missing = quickOnly ? undefined : { error: R.growth?.error ?? big?.error ?? 'not run' };
    const ok = big && !big.error;
    rows.push(target(`1,024 shards (${label}): initialize() time (issue 18)`, '≤ 1 s', ok ? { text: `${n0(big.initMs)} ms` } : missing, ok ? big.initMs <= 1000 : undefined));
    rows.push(target(`1,024 shards (${label}): process RSS after initialize() (issue 18)`, '≤ 256 MiB', ok ? { text: `${n0(big.rssMiB)} MiB (${n0(big.rssDeltaMiB)} MiB of it for the data source)` } : missing, ok ? big.rssMiB <= 256 : undefined));
    if (backend === 'sqlite' && (!ok || big.rawCountCpuUsPerShard !== undefined)) {
      // SQLite's engine runs in Node's process: its own COUNT (raw better-sqlite3 statements prepared
      // once per shard, on the same files, in the same process) is the ceiling, and the target is
      // judged on what the plugin adds to it.
      const own = ok ? big.countCpuUsPerShard - big.rawCountCpuUsPerShard : undefined;
      const text = ok ? { text: `${f1(own)} µs of the plugin's own (${f1(big.countCpuUsPerShard)} µs in all − ${f1(big.rawCountCpuUsPerShard)} µs of SQLite's engine: raw better-sqlite3 COUNT(*) on the same files)` } : missing;
      rows.push(target(`1,024 shards (${label}): a scattered count(), the plugin's own Node CPU per shard beyond SQLite's engine (issue 18)`, '≤ 10 µs', text, ok ? own <= 10 : undefined, "judged on the plugin's own cost: the raw COUNT is the SQLite engine itself, which runs in Node's process"));
    } else {
      const cpuNote = backend === 'sqlite' ? "SQLite runs in Node's process: its own COUNT work is included" : '';
      rows.push(target(`1,024 shards (${label}): a scattered count(), Node CPU per shard (issue 18)`, '≤ 10 µs', ok ? { text: `${f1(big.countCpuUsPerShard)} µs` } : missing, ok ? big.countCpuUsPerShard <= 10 : undefined, cpuNote));
    }
    const flat = ok && small && !small.error ? big.findOneByUs / small.findOneByUs : undefined;
    rows.push(target(`findOneBy time, 1,024 / 16 shards (${label}): flat (issue 18)`, '≤ 1.50×', flat === undefined ? missing : { text: `${x2(flat)} (${n0(small.findOneByUs)} → ${n0(big.findOneByUs)} µs)` }, flat === undefined ? undefined : flat <= 1.5));
  }
  return rows;
}

function charts(R, dir) {
  const cells = R.matrix?.cells ?? [];
  const clients = R.matrix?.clients ?? CONCURRENCY;
  const lat = (variant, field) => clients.map((c) => ({ c, values: IN_SIZES.map((n) => findCell(cells, n, c)?.[variant]?.[field] ?? NaN) }));
  const latencySeries = (variant) =>
    lat(variant, 'p50').map((s, k) => ({ name: `${s.c} client${s.c > 1 ? 's' : ''} p50`, values: s.values, color: ['#1f77b4', '#d62728', '#2ca02c'][k] }))
      .concat(lat(variant, 'p99').map((s, k) => ({ name: `${s.c} client${s.c > 1 ? 's' : ''} p99`, values: s.values, color: ['#1f77b4', '#d62728', '#2ca02c'][k], dash: true })));
  const qpsSeries = (variant) => lat(variant, 'qps').map((s, k) => ({ name: `${s.c} client${s.c > 1 ? 's' : ''}`, values: s.values, color: ['#1f77b4', '#d62728', '#2ca02c'][k] }));
  const latOn = latencySeries('pruned');
  const latOff = latencySeries('broadcast');
  const qOn = qpsSeries('pruned');
  const qOff = qpsSeries('broadcast');
  const latDomain = domainOf([...latOn, ...latOff]);
  const qDomain = domainOf([...qOn, ...qOff]);
  const common = { xs: IN_SIZES, xLabel: 'values in the IN list', log: true };
  const files = {
    [CHARTS.latencyOn]: lineChart({ ...common, title: 'Latency, pruning ON (64 shards)', yLabel: 'latency, ms', series: latOn, domain: latDomain }),
    [CHARTS.latencyOff]: lineChart({ ...common, title: 'Latency, pruning OFF (naive broadcast)', yLabel: 'latency, ms', series: latOff, domain: latDomain }),
    [CHARTS.throughputOn]: lineChart({ ...common, title: 'Throughput, pruning ON (64 shards)', yLabel: 'queries / s', series: qOn, domain: qDomain }),
    [CHARTS.throughputOff]: lineChart({ ...common, title: 'Throughput, pruning OFF (naive broadcast)', yLabel: 'queries / s', series: qOff, domain: qDomain }),
    [CHARTS.vsUnsharded]: lineChart({
      ...common,
      title: 'Throughput at 16 clients: sharded vs one table',
      yLabel: 'queries / s',
      series: [
        { name: 'unsharded table', values: IN_SIZES.map((n) => findCell(cells, n, 16)?.unsharded?.qps ?? NaN), color: '#555555' },
        { name: '64 shards, pruned', values: IN_SIZES.map((n) => findCell(cells, n, 16)?.pruned?.qps ?? NaN), color: '#1f77b4' },
        { name: '64 shards, broadcast', values: IN_SIZES.map((n) => findCell(cells, n, 16)?.broadcast?.qps ?? NaN), color: '#d62728', dash: true },
      ],
    }),
  };
  for (const [name, svg] of Object.entries(files)) writeFileSync(join(dir, name), svg);
}

/**
 * The targets of the report this run replaces (`REPORT.md` in `dir`, usually the committed one),
 * by name: its measured text and its run's commit. Only a full run is compared with a full run.
 */
function previousTargets(dir, quick) {
  const file = join(dir, 'REPORT.md');
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  const shape = /<!-- bench-shape (\{.*\}) -->/.exec(text);
  if (!shape || JSON.parse(shape[1]).quick !== quick) return undefined;
  const commit = /· commit `([^`]+)`/.exec(text)?.[1] ?? '?';
  const at = text.indexOf('## Targets');
  const byName = new Map();
  for (const line of text.slice(at).split('\n').slice(1)) {
    if (line.startsWith('## ')) break;
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
    if (cells.length >= 5 && /^\d+$/.test(cells[0])) byName.set(cells[1], cells[3]);
  }
  return { commit, byName };
}

/** The first number of a measured text (`1.04× (…)`, `38.0 µs wall …`, `5.79× = 69 % …`). */
function leadingNumber(text) {
  const m = /-?\d[\d,]*(?:\.\d+)?/.exec(text ?? '');
  return m ? Number(m[0].replace(/,/g, '')) : NaN;
}

/**
 * How a target moved against the previous report: "⚠️ regressed 31 %" when it got worse by more
 * than 25 % (the direction from its goal: ≤ is lower-is-better, ≥ higher-is-better).
 */
export function regressionNote(goal, measured, previous) {
  const [now, before] = [leadingNumber(measured), leadingNumber(previous)];
  if (!Number.isFinite(now) || !Number.isFinite(before) || before === 0) return previous ? `was ${previous.split(' (')[0]}` : 'new';
  const lowerIsBetter = goal.trim().startsWith('≤');
  const higherIsBetter = goal.trim().startsWith('≥');
  const worse = lowerIsBetter ? now / before : higherIsBetter ? before / now : 1;
  const was = `was ${previous.split(' (')[0]}`;
  return worse > 1.25 ? `⚠️ regressed ${Math.round((worse - 1) * 100)} % (${was})` : was;
}

export function writeReport(R, dir) {
  const previous = previousTargets(dir, R.meta.quick);
  charts(R, dir);
  const L = [];
  const meta = R.meta;
  L.push('# typeorm-sharding benchmark report');
  L.push('');
  // Machine-readable shape of the report, read by bench/check-report.mjs.
  L.push(`<!-- bench-shape ${JSON.stringify({ quick: meta.quick, inSizes: IN_SIZES, clients: R.matrix?.clients ?? CONCURRENCY, byHand: { sizes: BY_HAND_SIZES, clients: BY_HAND_CONCURRENCY }, planner: PLANNER_CASES.length * 2, planCache: 2, offsets: OFFSETS })} -->`);
  L.push('');
  L.push(`Generated by \`pnpm bench${meta.quick ? ' --quick' : ''}\` on ${meta.date} · commit \`${meta.commit}\` · ${meta.quick ? '**quick mode: short windows and a small data set; the numbers are a smoke test, not measurements**' : 'full run'} · total ${f1(meta.totalSeconds)} s.`);
  L.push('');
  L.push('## Targets');
  L.push('');
  L.push('Targets from DESIGN.md §5 and issue 5. Ratios are taken from variants measured side by side in the same run.');
  L.push('');
  L.push(previous ? `The last column compares each target with the report this run replaced (commit \`${previous.commit}\`); a target more than 25 % worse is flagged.` : 'No earlier full report to compare with.');
  L.push('');
  L.push('| # | Target | Goal | Measured | Against the previous report | Status |');
  L.push('|---|---|---|---|---|---|');
  evaluateTargets(R).forEach((t, i) => {
    const measured = `${t.measured}${t.note ? ` (${t.note})` : ''}`;
    const before = previous?.byName.get(t.name);
    const against = !previous ? '—' : before === undefined ? 'new' : regressionNote(t.goal, t.measured, before);
    L.push(`| ${i + 1} | ${t.name} | ${t.goal} | ${measured} | ${against} | ${t.status} |`);
  });
  L.push('');
  L.push('## Configuration');
  L.push('');
  L.push('| Setting | Value |');
  L.push('|---|---|');
  for (const [k, v] of meta.config) L.push(`| ${k} | ${v} |`);
  L.push('');

  // 1. matrix
  const M = R.matrix;
  L.push("## 1. The article's study: IN size × concurrency × pruning");
  L.push('');
  L.push(`${M?.shardCount ?? 64} shards on one MariaDB server, \`repo.find({ where: { id: In(ids) } })\` with ids drawn uniformly from all rows; *clients* = closed-loop client loops (the article's concurrency); the plugin's own window stays at its default (CPU cores = ${meta.window}). Pruning OFF sends the whole list to every shard (the article's naive mode). Latency lines: p50 solid, p99 dashed; the on/off charts share their y scale.`);
  L.push('');
  L.push(`![latency, pruning on](${CHARTS.latencyOn}) ![latency, pruning off](${CHARTS.latencyOff})`);
  L.push('');
  L.push(`![throughput, pruning on](${CHARTS.throughputOn}) ![throughput, pruning off](${CHARTS.throughputOff})`);
  L.push('');
  L.push('| IN size | clients | pruned qps | pruned p50 / p99 ms | broadcast qps | broadcast p50 / p99 ms | statements pruned / broadcast | gain (pruned / broadcast qps) | ideal gain (statements saved) |');
  L.push('|---|---|---|---|---|---|---|---|---|');
  for (const cell of M?.cells ?? []) {
    const st = M.statements[cell.n];
    const gain = pairedRatio(cell.pruned, cell.broadcast).value;
    L.push(`| ${cell.n} | ${cell.c} | ${cellText(cell.pruned, (r) => n0(r.qps))} | ${cellText(cell.pruned, (r) => `${ms(r.p50)} / ${ms(r.p99)}`)} | ${cellText(cell.broadcast, (r) => n0(r.qps))} | ${cellText(cell.broadcast, (r) => `${ms(r.p50)} / ${ms(r.p99)}`)} | ${f1(st.pruned)} / ${st.broadcast} | ${x2(gain)} | ${x2(st.broadcast / st.pruned)} |`);
  }
  if (M?.error) L.push(`\nfailed: ${M.error}`);
  L.push('');

  // 2. sharded vs unsharded
  L.push('## 2. Sharded against unsharded');
  L.push('');
  L.push('The same IN queries on one unsharded table holding every row (bench_plain), measured in the same alternation as section 1: what sharding costs when all shards share one server.');
  L.push('');
  L.push(`![throughput vs unsharded](${CHARTS.vsUnsharded})`);
  L.push('');
  L.push('| IN size | clients | unsharded qps | unsharded p50 / p99 ms | pruned qps | pruned / unsharded qps | broadcast / unsharded qps | default (UNION ALL per server) qps | default / unsharded qps |');
  L.push('|---|---|---|---|---|---|---|---|---|');
  for (const cell of M?.cells ?? []) {
    L.push(`| ${cell.n} | ${cell.c} | ${cellText(cell.unsharded, (r) => n0(r.qps))} | ${cellText(cell.unsharded, (r) => `${ms(r.p50)} / ${ms(r.p99)}`)} | ${cellText(cell.pruned, (r) => n0(r.qps))} | ${f2(pairedRatio(cell.pruned, cell.unsharded).value)} | ${f2(pairedRatio(cell.broadcast, cell.unsharded).value)} | ${cellText(cell.coalesced, (r) => n0(r.qps))} | ${f2(pairedRatio(cell.coalesced, cell.unsharded).value)} |`);
  }
  L.push('');
  L.push('### CPU per logical query');
  L.push('');
  L.push('Where the time goes: CPU seconds used in the measuring windows / queries completed, for Node (this process: TypeORM, the plugin, mysql2) and for the MariaDB server process (read from /proc; it also counts any other load on the server). On a 2-core machine that runs both, throughput is roughly 2 cores / (Node + server CPU per query).');
  L.push('');
  L.push('| IN size | clients | pruned: Node / server µs | broadcast: Node / server µs | unsharded: Node / server µs |');
  L.push('|---|---|---|---|---|');
  const cpu = (r) => `${n0(r.nodeCpuUs)} / ${n0(r.serverCpuUs)}`;
  for (const cell of M?.cells ?? []) {
    L.push(`| ${cell.n} | ${cell.c} | ${cellText(cell.pruned, cpu)} | ${cellText(cell.broadcast, cpu)} | ${cellText(cell.unsharded, cpu)} |`);
  }
  L.push('');

  // 3. overhead
  const O = R.overhead;
  L.push('## 3. Plugin overhead: findOneBy');
  L.push('');
  L.push('`repo.findOneBy({ id })` on the ShardedDataSource (routes to one shard) against the same call on one plain TypeORM DataSource holding all rows (*unsharded*), and against plain TypeORM on the right shard\'s own DataSource, the shard picked by hand (*hand-routed*: same connections and databases as the plugin, without the plugin). *sharded / unsharded* is the target; *sharded / hand-routed* isolates the plugin\'s own cost, *hand-routed / unsharded* the cost of 64 databases on one server. Ratios are time per call (inverse throughput), the median of the per-repetition ratios (variants alternate within each repetition), with the min–max spread.');
  L.push('');
  L.push('| backend | clients | sharded qps | hand-routed qps | unsharded qps | sharded mean / p50 / p99 µs | unsharded mean / p50 / p99 µs | sharded / unsharded | target ≤ 1.10× | sharded / hand-routed | hand-routed / unsharded | Node CPU µs per call: sharded / hand-routed / unsharded | server CPU µs per call: sharded / hand-routed / unsharded |');
  L.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  const us = (r) => `${n0(r.mean * 1000)} / ${n0(r.p50 * 1000)} / ${n0(r.p99 * 1000)}`;
  const rr = (r) => (Number.isFinite(r.value) ? `${x2(r.value)}${r.n > 1 ? ` (${r.min.toFixed(2)}–${r.max.toFixed(2)})` : ''}` : '—');
  for (const [backend, cell] of [...(O?.mariadb ?? []).map((c) => ['MariaDB', c]), ...(O?.sqlite ? [['SQLite :memory:', O.sqlite]] : [])]) {
    const target = pairedRatio(cell.unsharded, cell.sharded);
    const own = pairedRatio(cell.handRouted, cell.sharded);
    const topo = pairedRatio(cell.unsharded, cell.handRouted);
    const sqliteRow = backend !== 'MariaDB';
    L.push(`| ${backend} | ${cell.c} | ${cellText(cell.sharded, (r) => n0(r.qps))} | ${cellText(cell.handRouted, (r) => n0(r.qps))} | ${cellText(cell.unsharded, (r) => n0(r.qps))} | ${cellText(cell.sharded, us)} | ${cellText(cell.unsharded, us)} | ${rr(target)} | ${Number.isFinite(target.value) ? (target.value <= 1.1 ? '✅' : '❌') : '—'} | ${rr(own)} | ${rr(topo)} | ${n0(cell.sharded?.nodeCpuUs)} / ${n0(cell.handRouted?.nodeCpuUs)} / ${n0(cell.unsharded?.nodeCpuUs)} | ${sqliteRow ? '—' : `${n0(cell.sharded?.serverCpuUs)} / ${n0(cell.handRouted?.serverCpuUs)} / ${n0(cell.unsharded?.serverCpuUs)}`} |`);
  }
  if (O?.error) L.push(`\nfailed: ${O.error}`);
  L.push('');

  // 4. by hand
  const B = R.byHand;
  L.push('## 4. Against doing it by hand');
  L.push('');
  L.push(`*plugin*: \`repo.find({ where: { id: In(ids) } })\` on the ShardedDataSource. *hand-written TypeORM*: the ids grouped by shard with the same hash, split into batches of ${meta.maxIn}, one \`find({ where: { id: In(group) } })\` per batch on \`ds.getShardDataSource(name)\`, at most ${B?.window ?? meta.window} in flight (the plugin's window). *raw mysql2*: the same routing and window with \`pool.query\` on one mysql2 pool per shard — the no-ORM limit. *raw UNION ALL*: the same pruned statements, database-qualified and coalesced by hand into one UNION ALL per 16 shards over one raw mysql2 pool for the server — the database-per-shard ceiling of the plugin's default (issue 18). Ratio = plugin time per call / baseline time per call; *plugin / raw UNION ALL* is a throughput ratio (≥ 0.9 is the goal).`);
  L.push('');
  L.push('| IN size | clients | plugin qps | plugin p50 / p99 ms | hand TypeORM qps | hand TypeORM p50 / p99 ms | raw mysql2 qps | raw mysql2 p50 / p99 ms | raw UNION ALL qps | TypeORM over UNION ALL qps | plugin / hand TypeORM | plugin / raw mysql2 | plugin / raw UNION ALL (throughput) | plugin / TypeORM over UNION ALL (throughput) | Node CPU µs per call: plugin / hand / raw / raw UNION ALL / TypeORM over UNION ALL |');
  L.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  const pp = (r) => `${ms(r.p50)} / ${ms(r.p99)}`;
  for (const cell of B?.cells ?? []) {
    const r1 = pairedRatio(cell.handTypeorm, cell.plugin).value;
    const r2 = pairedRatio(cell.rawMysql2, cell.plugin).value;
    const r3 = cell.rawUnion && !cell.rawUnion.error ? pairedRatio(cell.plugin, cell.rawUnion).value : NaN;
    const r4 = cell.typeormUnion && !cell.typeormUnion.error ? pairedRatio(cell.plugin, cell.typeormUnion).value : NaN;
    L.push(`| ${cell.n} | ${cell.c} | ${cellText(cell.plugin, (r) => n0(r.qps))} | ${cellText(cell.plugin, pp)} | ${cellText(cell.handTypeorm, (r) => n0(r.qps))} | ${cellText(cell.handTypeorm, pp)} | ${cellText(cell.rawMysql2, (r) => n0(r.qps))} | ${cellText(cell.rawMysql2, pp)} | ${cellText(cell.rawUnion, (r) => n0(r.qps))} | ${cellText(cell.typeormUnion, (r) => n0(r.qps))} | ${x2(r1)} ${Number.isFinite(r1) ? (r1 <= 1 ? '✅' : '❌') : ''} | ${x2(r2)} | ${f2(r3)} ${Number.isFinite(r3) ? (r3 >= 0.9 ? '✅' : '❌') : ''} | ${f2(r4)} | ${n0(cell.plugin?.nodeCpuUs)} / ${n0(cell.handTypeorm?.nodeCpuUs)} / ${n0(cell.rawMysql2?.nodeCpuUs)} / ${n0(cell.rawUnion?.nodeCpuUs)} / ${n0(cell.typeormUnion?.nodeCpuUs)} |`);
  }
  if (B?.error) L.push(`\nfailed: ${B.error}`);
  L.push('');
  L.push('*TypeORM over UNION ALL*: TypeORM\'s own `find` (SQL build, hydration into entities) on the unsharded DataSource with a query runner that sends the hand-written UNION ALL instead of its text — what any plugin that keeps TypeORM\'s `find` can reach; *raw UNION ALL* has no ORM at all, so the gap between the two is TypeORM\'s, and *plugin / TypeORM over UNION ALL* is the plugin\'s own share.');
  L.push('');
  const LY = R.layouts;
  if (LY) {
    L.push('### 4b. One statement per server under other table layouts (by hand, raw mysql2)');
    L.push('');
    L.push('The same pruned lookup sent as one statement per server with no plugin and no ORM, the shards\' tables addressed three ways, against the same IN on one unsharded table (issue 18). *databases*: a database per shard, one UNION ALL branch per shard (today\'s layout). *tables*: a table per shard (`orders_<i>`) in one database, one UNION ALL branch per table. *partitions*: one table `PARTITION BY LIST` on a stored bucket column (the shard index), one statement `… WHERE (bucket, id) IN ((3, 11), …)` (the server prunes to the buckets\' partitions; naming them with `PARTITION (p3, p17, …)` and `WHERE id IN (all ids)` instead looks every id up in every named partition: 25× slower at IN 128). *key partitions*: one table `PARTITION BY KEY (id)` with as many partitions as shards, what `@Sharded({ partitions })` builds in a shard database, one plain statement `… WHERE id IN (…)` (the server prunes by the key itself; no stored column). Ratio = layout / unsharded throughput (≥ 0.75 is the goal of §2). The *feed page* row is §7\'s first page (`ORDER BY createdAt DESC, id DESC LIMIT 20` over the 16 page shards, one client) sent the same three ways: a UNION ALL of 16 branches, each `LIMIT` the plugin\'s cap of 7 (databases, tables), or one plain statement on the partitioned table (partitions, key partitions), whose partitions\' ordered index scans the server merges itself. Every variant is checked to return the unsharded page. With no plugin and no ORM, it bounds what the plugin can reach in each layout (the feed page\'s target in §7 is ≥ 0.6).');
    L.push('');
    L.push('| IN size | clients | unsharded qps | databases qps | tables qps | partitions qps | key partitions qps | databases / unsharded | tables / unsharded | partitions / unsharded | key partitions / unsharded | Node CPU µs per call: unsharded / databases / tables / partitions / key partitions | server CPU µs per call: unsharded / databases / tables / partitions / key partitions |');
    L.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    const mark = (v) => `${f2(v)} ${Number.isFinite(v) ? (v >= 0.75 ? '✅' : '❌') : ''}`;
    for (const cell of LY.cells ?? []) {
      const ratio = (k) => (cell[k] && !cell[k].error && cell.unsharded && !cell.unsharded.error ? pairedRatio(cell[k], cell.unsharded).value : NaN);
      const keys = ['unsharded', 'databases', 'tables', 'partitions', 'keyPartitions'];
      L.push(`| ${cell.n} | ${cell.c} | ${keys.map((k) => cellText(cell[k] ?? { error: 'not run' }, (r) => n0(r.qps))).join(' | ')} | ${keys.slice(1).map((k) => mark(ratio(k))).join(' | ')} | ${keys.map((k) => n0(cell[k]?.nodeCpuUs)).join(' / ')} | ${keys.map((k) => n0(cell[k]?.serverCpuUs)).join(' / ')} |`);
    }
    if (LY.error) L.push(`\nfailed: ${LY.error}`);
    L.push('');
    if (LY.plugin?.length) {
      L.push(`### 4c. The built layout through the plugin: ${LY.partitions} MySQL partitions of one shard database`);
      L.push('');
      L.push(`\`repo.find({ where: { id: In(ids) } })\` on a ShardedDataSource of one shard database whose \`orders\` is \`sharding.partitions: { orders: ${LY.partitions} }\` (PARTITION BY KEY (id), made by synchronize; the same rows), against the same \`find\` on the unsharded table: what the *key partitions* column above costs with TypeORM and the plugin on top. Alternating, paired per repetition.`);
      L.push('');
      L.push('| IN size | clients | plugin qps | unsharded qps | plugin / unsharded | Node CPU µs per call: plugin / unsharded | server CPU µs per call: plugin / unsharded |');
      L.push('|---|---|---|---|---|---|---|');
      for (const cell of LY.plugin) {
        const r = cell.plugin && cell.unsharded && !cell.plugin.error && !cell.unsharded.error ? pairedRatio(cell.plugin, cell.unsharded).value : NaN;
        L.push(`| ${cell.n} | ${cell.c} | ${cellText(cell.plugin, (x) => n0(x.qps))} | ${cellText(cell.unsharded, (x) => n0(x.qps))} | ${mark(r)} | ${n0(cell.plugin?.nodeCpuUs)} / ${n0(cell.unsharded?.nodeCpuUs)} | ${n0(cell.plugin?.serverCpuUs)} / ${n0(cell.unsharded?.serverCpuUs)} |`);
      }
      L.push('');
    }
  }

  // 5. planner
  L.push('## 5. Planner alone');
  L.push('');
  L.push('`ds.explain(sql, parameters)` on the SQL TypeORM generates for each call (ids vary per call, the plan is cached): parameterize → plan-cache hit → route → rewrite, no I/O. Timed one call at a time with `process.hrtime.bigint()` (wall) and `process.cpuUsage()` (CPU time of this process, which leaves out preemption by other processes on a shared machine; µs resolution); µs. Target p99 ≤ 50 µs (judged on findOneBy and IN of 8; larger lists are shown for the cost per value).');
  L.push('');
  L.push('| dialect | logical query | shards | physical statements per call | p50 µs | p99 µs | mean µs | CPU-time p50 / p99 µs | TypeORM\'s SQL build p50 µs | planner / TypeORM (p50) | calls | p99 ≤ 50 µs |');
  L.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const p of R.planner ?? []) {
    if (p.error) L.push(`| ${p.dialect} | ${p.label} | — | — | failed: ${p.error} | — | — | — | — | — | — | — |`);
    else L.push(`| ${p.dialect} | ${p.label} | ${p.shards} | ${f1(p.statementsPerCall)} | ${f1(p.p50)} | ${f1(p.p99)} | ${f1(p.mean)} | ${n0(p.cpuP50)} / ${n0(p.cpuP99)} | ${f1(p.typeormP50)} | ${x2(p.p50 / p.typeormP50)} | ${n0(p.iterations)} | ${p.p99 <= 50 ? '✅' : '❌'} |`);
  }
  for (const dialect of ['mysql', 'sqlite']) {
    const slope = nsPerExtraValue(R.planner ?? [], dialect);
    if (Number.isFinite(slope)) L.push('', `${dialect}: ${n0(slope)} ns per extra IN value (slope of the mean from the smallest to the largest IN list).`);
  }
  if (R.plannerError) L.push(`\nfailed: ${R.plannerError}`);
  L.push('');

  // 6. plan cache
  L.push('## 6. Plan cache');
  L.push('');
  L.push('One `find({ select: { id, amount }, where: { id: In(ids) } })` shape that no other case uses, sent through `ds.explain` with IN lists of every length up to a bound, then every k-th length up to 10,000, and the longest; `ds.planCacheStats` before and after. One shape must give exactly one new entry (one miss) whatever the list length. The sweep has a time budget: *ns per IN value* is the planner\'s cost per list item (parameterize + route + rewrite over 64 shards), which decides how many lengths fit.');
  L.push('');
  L.push('| dialect | IN lengths tried | every length up to | longest | new entries | misses | cache size / capacity | seconds | ns per IN value | target |');
  L.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const s of R.planCache ?? []) {
    if (s.error) L.push(`| ${s.dialect} | failed: ${s.error} | — | — | — | — | — | — | — | — |`);
    else L.push(`| ${s.dialect} | ${n0(s.lengths)}${s.budgetHitAt ? ` (time budget reached at ${n0(s.budgetHitAt)})` : ''} | ${n0(s.everyUpTo)} | ${n0(s.maxLength)} | ${s.entriesAdded} | ${s.misses} | ${s.sizeAfter} / ${s.capacity} | ${f1(s.seconds)} | ${n0(s.nsPerValue)} | ${s.misses === 1 && s.entriesAdded === 1 ? '✅' : '❌'} |`);
  }
  if (R.planCacheError) L.push(`\nfailed: ${R.planCacheError}`);
  L.push('');

  // 7. deep paging
  const D = R.deepPaging;
  L.push('## 7. Deep paging');
  L.push('');
  L.push(`\`repo.find({ order: { createdAt: 'DESC', id: 'DESC' }, skip: OFFSET, take: ${D?.page ?? 20} })\` over ${D?.shards ?? 16} shards (${n0(D?.totalRows)} rows) against one unsharded table with the same rows. *Time*: median of ${meta.pagingReps} alternating single queries (time until the rows are returned). *qps*: one client in a closed loop, alternating; unlike the single-query time it also pays for work left running after the result is returned (e.g. streams drained in the background); *Node / server CPU per page* in the same loops (the server's from /proc: it counts any other load on it). *Live peak*: in separate repetitions, heap + external memory above a gc'd baseline after a full gc at every physical statement and after the result — what the read still holds there (rows buffered for the merge), not garbage a collection has not reached yet; *heap peak* is sampled every ms without gc and counts young garbage too. *Rows the shards send*: a shallow page over 16 shards is capped (each shard's branch \`LIMIT\` its share of offset+count + 3·√share + 2, 7 of a first page of 20, the rows tagged with the shard, the server merging and cutting them to offset+count; re-read plainly when a shard filled its cap); a deep one is read by windows (\`sharding.pageWindows\`: each shard \`LIMIT rows OFFSET start\` around position offset/16, ± 2·√offset rows), counted from the statements \`explain()\` gives. *Sharded plan*: \`ANALYZE FORMAT=JSON\` of each physical statement (it runs them; plain EXPLAIN of a UNION ALL shows every branch as a full scan with filesort on MariaDB 10.11, which ANALYZE contradicts): per branch the access, the key, the rows it read.`);
  L.push('');
  L.push('| OFFSET | sharded ms | unsharded ms | sharded / unsharded time | sharded qps | unsharded qps | Node CPU µs per page, sharded / unsharded | server CPU µs per page, sharded / unsharded | sharded live / heap peak | unsharded live / heap peak | rows the shards send | same first row | unsharded plan (EXPLAIN) | sharded plan (ANALYZE, per statement) |');
  L.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const o of D?.offsets ?? []) {
    const mem = (r) => `${r.liveBytes !== undefined ? mib(r.liveBytes) : mib(r.retainedBytes)} / ${mib(r.peakBytes)}`;
    const pair = (k) => `${cellText(o.sharded, (r) => n0(r[k]))} / ${cellText(o.unsharded, (r) => n0(r[k]))}`;
    L.push(`| ${n0(o.offset)} | ${cellText(o.sharded, (r) => ms(r.ms))} | ${cellText(o.unsharded, (r) => ms(r.ms))} | ${x2(o.sharded?.ms / o.unsharded?.ms)} | ${cellText(o.sharded, (r) => f1(r.qps))} | ${cellText(o.unsharded, (r) => f1(r.qps))} | ${pair('nodeCpuUs')} | ${pair('serverCpuUs')} | ${cellText(o.sharded, mem)} | ${cellText(o.unsharded, mem)} | ${n0(o.shardRows)} | ${o.sharded?.error || o.unsharded?.error ? '—' : o.sharded?.mismatch ? `❌ ${o.sharded.mismatch}` : '✅'} | ${(o.plan ?? '—').replace(/\|/g, '\\|')} | ${(o.shardedPlan ?? '—').replace(/\|/g, '\\|')} |`);
  }
  const first = D?.offsets?.find((o) => o.offset === 0);
  if (first?.uncapped || first?.perShard) {
    L.push('');
    L.push('### 7a. The first page: where the merge runs');
    L.push('');
    L.push('OFFSET 0, the same closed loops, alternating. *capped* (the default): one UNION ALL per 16 shards, each branch its capped window, the server merges and cuts to 20 rows. *uncapped* (`pageWindows: false`): each branch `LIMIT 20`, the server merges and cuts to 20 rows (320 rows read). *one statement per shard* (`coalesce: false`): 16 statements, 320 rows to Node, merged there. *partitions*: the same rows in one shard database whose `pages` table is `PARTITION BY KEY (id) PARTITIONS 16` (`sharding.partitions`), through the plugin: one statement, the server merges its partitions\' ordered index scans.');
    L.push('');
    L.push('| variant | qps | / unsharded throughput | Node CPU µs per page | server CPU µs per page |');
    L.push('|---|---|---|---|---|');
    for (const [label, key] of [['capped (default)', 'sharded'], ['uncapped, the server merges', 'uncapped'], ['one statement per shard, Node merges', 'perShard'], [`${D.partitions ?? 16} partitions of one shard database, one plain statement`, 'partitioned'], ['unsharded', 'unsharded']]) {
      const r = first[key];
      L.push(`| ${label} | ${cellText(r, (v) => f1(v.qps))} | ${cellText(r, (v) => f2(v.qps / first.unsharded?.qps))} | ${cellText(r, (v) => n0(v.nodeCpuUs))} | ${cellText(r, (v) => n0(v.serverCpuUs))} |`);
    }
  }
  if (D?.offsets?.some((o) => o.partitioned)) {
    L.push('');
    L.push(`### 7b. Every OFFSET with the rows as ${D.partitions ?? 16} partitions of one shard database`);
    L.push('');
    L.push('The same page through the plugin on one shard database whose table is `PARTITION BY KEY (id) PARTITIONS 16`: one plain statement with the page\'s own `LIMIT`/`OFFSET`; the server merges the partitions\' ordered index scans. Same alternating runs and loops as the table above.');
    L.push('');
    L.push('| OFFSET | partitioned ms | unsharded ms | partitioned / unsharded time | partitioned qps | / unsharded throughput | Node CPU µs per page | server CPU µs per page | live / heap peak | same first row |');
    L.push('|---|---|---|---|---|---|---|---|---|---|');
    for (const o of D.offsets) {
      const p = o.partitioned ?? { error: 'not run' };
      L.push(`| ${n0(o.offset)} | ${cellText(p, (r) => ms(r.ms))} | ${cellText(o.unsharded, (r) => ms(r.ms))} | ${x2(p.ms / o.unsharded?.ms)} | ${cellText(p, (r) => f1(r.qps))} | ${cellText(p, (r) => f2(r.qps / o.unsharded?.qps))} | ${cellText(p, (r) => n0(r.nodeCpuUs))} | ${cellText(p, (r) => n0(r.serverCpuUs))} | ${cellText(p, (r) => (r.liveBytes !== undefined ? `${mib(r.liveBytes)} / ${mib(r.peakBytes)}` : '—'))} | ${p.error || o.unsharded?.error ? '—' : p.mismatch ? `❌ ${p.mismatch}` : '✅'} |`);
    }
  }
  if (D?.error) L.push(`\nfailed: ${D.error}`);
  L.push('');

  // 8. router
  const Q = R.router;
  L.push('## 8. Query router: read throughput with replicas');
  L.push('');
  L.push(`\`repo.findOneBy({ id })\` from ${Q?.clients ?? 16} clients over ${Q?.shards ?? 4} shards of one server (${n0(Q?.rows)} rows) on a primary and two GTID replicas started for the run (\`packages/mariadb-cluster\`: three \`mariadbd\` on this machine). *primary alone*: no router (every read on the primary, as before issue 10). *router, primary only*: the router on, no replica (its own cost per statement: descriptor, decision, completion). *two replicas*: reads spread by the default balancer (load score). All three servers share the machine's cores with Node, so on 2 cores this measures the router's overhead, not scale-out. Ratios: time per call against the primary alone (paired per repetition).`);
  L.push('');
  L.push('| variant | qps | p50 / p99 ms | Node CPU µs per call | / primary alone (time per call) |');
  L.push('|---|---|---|---|---|');
  const labels = { primaryAlone: 'primary alone (no router)', routerPrimaryOnly: 'router, primary only', twoReplicas: 'router, two replicas' };
  for (const key of ROUTER_VARIANTS) {
    const r = Q?.throughput?.[key] ?? { error: Q?.error ?? 'not run' };
    const ratio = pairedRatio(Q?.throughput?.primaryAlone, r);
    L.push(`| ${labels[key]} | ${cellText(r, (x) => n0(x.qps))} | ${cellText(r, (x) => `${ms(x.p50)} / ${ms(x.p99)}`)} | ${cellText(r, (x) => n0(x.nodeCpuUs))} | ${x2(ratio.value)} |`);
  }
  if (Q?.served) L.push(`\nStatements routed per node in the two-replica variant: ${Q.served.map((n) => `${n.node} ${n0(n.routed)}`).join(', ')}.`);
  L.push('');
  L.push('### 8a. Failover time');
  L.push('');
  L.push('Replica 2 is SIGKILLed while 16 clients read; *marked down after* is the router\'s failover time (from the first failed heartbeat or read to the node marked down; reads avoid it from then on), *after the kill* the wall time to that moment. *heartbeat*: only heartbeats may take it out (`errorThreshold: 0`; every 1 s, 3 misses); *traffic*: the default, where 5 consecutive connection errors of real reads take it out first. Reads that hit the dead node before are retried once on the other replica.');
  L.push('');
  L.push('| detection | marked down after ms | after the kill ms | by | reads | failed reads | retried reads |');
  L.push('|---|---|---|---|---|---|---|');
  for (const key of FAILOVER_CASES) {
    const f = Q?.failovers?.find((x) => x.detection === key) ?? { error: Q?.error ?? 'not run' };
    L.push(`| ${key} | ${cellText(f, (x) => n0(x.failoverMs))} | ${cellText(f, (x) => n0(x.afterKillMs))} | ${cellText(f, (x) => x.cause)} | ${cellText(f, (x) => n0(x.reads))} | ${cellText(f, (x) => n0(x.failed))} | ${cellText(f, (x) => n0(x.retried))} |`);
  }
  L.push('');
  L.push('### 8b. Routing decision at a route-cache hit');
  L.push('');
  L.push(`\`router.route(server, descriptor)\` timed one call at a time with \`process.hrtime.bigint()\` (${n0(Q?.decisions?.iterations)} calls per case after a warm-up; timer cost ${f2(Q?.decisions?.timerP50)} µs), one primary, two replicas with the load-score balancer, one analytics node; no server needed. Target p99 ≤ 20 µs (the article's router: < 5 ms). \`pnpm bench:router\` runs this alone.`);
  L.push('');
  L.push('| case | p50 µs | p99 µs | p99.9 µs |');
  L.push('|---|---|---|---|');
  for (const name of DECISION_CASES) {
    const d = Q?.decisions?.rows?.find((x) => x.name === name) ?? { error: Q?.error ?? 'not run' };
    L.push(`| ${name} | ${cellText(d, (x) => f2(x.p50))} | ${cellText(d, (x) => f2(x.p99))} | ${cellText(d, (x) => f2(x.p999))} |`);
  }
  // 9. transactions across servers
  const X = R.xa;
  L.push('## 9. Transactions across servers');
  L.push('');
  L.push('A transfer (`ds.transaction`: decrement one account, increment another) on 4 shards over two servers — the benchmark MariaDB reached as two servers (two pools, two XA branches: every round trip, PREPARE and log write is real; the network is loopback). *local*: both accounts on one server, a plain local transaction. *xa*: the accounts on different servers, XA two-phase commit with the decision in the first server\'s local transaction (the transfers of issue 11). *sequential*: the same cross-server transfer with `crossServer: \'sequential\'` (each server commits its own part: not atomic). *raw local* / *raw XA ONE PHASE*: mysql2 by hand on one server, a plain transaction and the same as an XA one (what starting every transaction as XA would cost a one-server transaction). *Time per transfer* is relative to *local*.');
  L.push('');
  L.push('| clients | variant | transfers / s | p50 / p99 ms | time per transfer / local |');
  L.push('|---|---|---|---|---|');
  const label = { local: 'local (one server)', xa: 'xa (two servers)', sequential: 'sequential (two servers, not atomic)', rawLocal: 'raw local (mysql2)', rawXaOnePhase: 'raw XA ONE PHASE (mysql2)' };
  for (const cell of X?.cells ?? []) {
    for (const key of XA_VARIANTS) {
      const base = key.startsWith('raw') ? cell.rawLocal : cell.local;
      L.push(`| ${cell.c} | ${label[key]} | ${cellText(cell[key], (r) => n0(r.qps))} | ${cellText(cell[key], (r) => `${ms(r.p50)} / ${ms(r.p99)}`)} | ${x2(1 / pairedRatio(cell[key], base).value)} |`);
    }
  }
  if (X?.cells) L.push(`\nTotal balance after the runs: ${X.totalIntact ? 'intact' : '**changed**'}. Clients: ${XA_CLIENTS.join(', ')}.`);
  if (X?.error) L.push(`\nfailed: ${X.error}`);
  L.push('');

  // 10. growth
  const G = R.growth;
  L.push('## 10. Growth with the shard count');
  L.push('');
  L.push('One `orders` entity over N shards — SQLite files, and MariaDB databases on the benchmark server (one pool of 8 for the server) — each configuration measured in a fresh Node process (`bench/lib/growth-child.mjs`; the schemas are made first, outside the measurement): `initialize()` wall time and the process RSS after it (and the part of it the data source added), `findOneBy({ id })` mean time one call at a time, a scattered `count()`: Node CPU (user + system) per call per shard, and the heap one more cached plan shape keeps. On SQLite the database engine runs inside Node, so its work is in the CPU figure: *raw SQLite* is `SELECT COUNT(*)` through better-sqlite3 statements prepared once per shard on the same files in the same process, and *plugin\'s own* the difference.');
  L.push('');
  L.push('| backend | shards | initialize() ms | RSS MiB (data source) | findOneBy µs | count() ms | count() Node CPU µs / shard | raw SQLite COUNT µs / shard | plugin\'s own µs / shard | plan cache KiB / shape |');
  L.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const backend of ['sqlite', 'mariadb']) {
    for (const g of G?.[backend] ?? []) {
      const raw = g.rawCountCpuUsPerShard === undefined ? '—' : f1(g.rawCountCpuUsPerShard);
      const own = g.rawCountCpuUsPerShard === undefined ? '—' : f1(g.countCpuUsPerShard - g.rawCountCpuUsPerShard);
      if (g.error) L.push(`| ${backend} | ${n0(g.shards)} | failed: ${String(g.error).split('\n')[0].replace(/\|/g, '\\|')} | — | — | — | — | — | — | — |`);
      else L.push(`| ${backend} | ${n0(g.shards)} | ${n0(g.initMs)} | ${n0(g.rssMiB)} (${n0(g.rssDeltaMiB)}) | ${n0(g.findOneByUs)} | ${f1(g.countUs / 1000)} | ${f1(g.countCpuUsPerShard)} | ${raw} | ${own} | ${f1(g.planCacheBytesPerShape / 1024)} |`);
    }
  }
  if (G?.error) L.push(`\nfailed: ${G.error}`);
  L.push('');

  // 10. online resharding
  const RS = R.resharding;
  L.push('## 11. Online resharding');
  L.push('');
  L.push('A quarter of a shard\'s buckets moved to a new database of the same MariaDB by the mover (`Mover.start`: a consistent snapshot, chunks of 1,000 rows by primary key filtered by bucket, upserts, progress persisted per chunk, then the binlog catch-up), against one `INSERT … SELECT` of the same rows with the same bucket filter. Then moves under 8 writers updating rows of every bucket and retrying fenced writes: *pause* is the mover\'s fence → publish time, *longest write* the slowest write to a moving bucket that the writers saw during the switch (goal ≤ 1 s p99).');
  L.push('');
  if (RS && !RS.error) {
    L.push('| measure | value |');
    L.push('|---|---|');
    L.push(`| copy, mover (rows / s) | ${n0(RS.moverRowsPerSecond)} (${n0(RS.rows)} rows) |`);
    L.push(`| copy, INSERT … SELECT (rows / s) | ${n0(RS.plainRowsPerSecond)} |`);
    L.push(`| mover / INSERT … SELECT | ${x2(RS.moverRowsPerSecond / RS.plainRowsPerSecond)} |`);
    L.push(`| cutover pause p50 / p99 (ms, ${RS.trials} moves) | ${n0(RS.pauseP50)} / ${n0(RS.pauseP99)} |`);
    L.push(`| longest write to a moving bucket p50 / p99 (ms) | ${n0(RS.stallP50)} / ${n0(RS.stallP99)} |`);
    L.push(`| writes / s idle → during copy and switch | ${n0(RS.idleWritesPerSecond)} → ${n0(RS.movingWritesPerSecond)} |`);
  }
  if (RS?.error) L.push(`failed: ${RS.error}`);
  L.push('');

  // 12. global indexes
  const GI = R.globalIndex;
  L.push('## 12. Global indexes');
  L.push('');
  L.push(`Users with a globally unique email (a lookup table \`email → id\`, sharded by the email) over ${GI?.shards ?? 64} shards, ${n0(GI?.users)} rows, ${GI?.clients ?? 16} clients, on one server and on two — the same 64 databases reached as two servers (even shards on one pool, odd on another), as the XA case does: every round trip is real, the network is loopback. *lookup*: \`findOneBy({ email })\` on a data source that remembers no owner (\`rememberedOwners: 0\`: the lookup row, then the owner's row on its shard, its \`WHERE email = ?\` kept) — what the first read of a value costs; *remembered*: the same call on a data source that has read every value once and remembers its owner (its shard straight away; the owner's read checks the guess) — what a repeated read costs; *scatter*: the same call on a table whose email is unique per shard only (\`uniquePerShard\`: no lookup table, every shard asked, one UNION ALL per 16 shards of a server); *byId*: \`findOneBy({ id })\`. *raw two* / *raw one*: mysql2 by hand, the lookup row then the owner row against one point read — the ceiling of a read that needs the lookup's answer before it can ask the owner. Round trips and statements per call are counted with \`onPhysicalQuery\`.`);
  L.push('');
  L.push('| servers | variant | calls / s | p50 / p99 ms | Node CPU µs / call | server CPU µs / call | round trips / shard statements | lookup / variant throughput | time / byId (raw: / raw one) |');
  L.push('|---|---|---|---|---|---|---|---|---|');
  const giLabel = { lookup: 'lookup', remembered: 'remembered owner', scatter: 'scatter', byId: 'byId', rawTwo: 'raw two (mysql2)', rawOne: 'raw one (mysql2)' };
  for (const topology of GX_TOPOLOGIES) {
    const T = GI?.topologies?.[topology];
    if (!T) continue;
    for (const key of GX_READS) {
      const r = T.reads[key];
      const shape = T.shape?.[key];
      const base = key.startsWith('raw') ? T.reads.rawOne : T.reads.byId;
      L.push(`| ${topology} | ${giLabel[key]} | ${cellText(r, (x) => n0(x.qps))} | ${cellText(r, (x) => `${ms(x.p50)} / ${ms(x.p99)}`)} | ${cellText(r, (x) => n0(x.nodeCpuUs))} | ${cellText(r, (x) => n0(x.serverCpuUs))} | ${shape ? `${shape.roundTrips} / ${shape.statements}` : key === 'rawTwo' ? '2 / 2' : key === 'rawOne' ? '1 / 1' : '—'} | ${key === 'lookup' || key === 'remembered' || key.startsWith('raw') ? '—' : x2(pairedRatio(T.reads.lookup, r).value)} | ${x2(pairedRatio(base, r).value)} |`);
    }
  }
  for (const topology of GX_TOPOLOGIES) {
    const T = GI?.topologies?.[topology];
    if (T) L.push(`\n${topology === 'one' ? 'One server' : 'Two servers'}: lookup / byId time ${x2(pairedRatio(T.reads.byId, T.reads.lookup).value)} (remembered owner ${x2(pairedRatio(T.reads.byId, T.reads.remembered).value)}); the floor of a read that needs two round trips in sequence, byId plus one raw point read (raw two − raw one) over byId, ${x2(lookupFloor(T.reads))}.`);
  }
  L.push('');
  L.push('Inserts, one row per call: *plain* into the table without a global index; *indexed* into the table with one — the lookup row is a second write in the owner\'s transaction, its shard on the owner\'s server (a local transaction); *indexed, across servers*: the lookup row\'s shard on the other server (XA two-phase commit). Report only.');
  L.push('');
  L.push('| servers | variant | inserts / s | p50 / p99 ms | Node CPU µs / call | time / plain |');
  L.push('|---|---|---|---|---|---|');
  const insLabel = { insertPlain: 'plain (no global index)', insertIndexed: 'indexed, lookup row on the same server', insertIndexedCross: 'indexed, lookup row across servers (XA)' };
  for (const topology of GX_TOPOLOGIES) {
    const T = GI?.topologies?.[topology];
    if (!T) continue;
    for (const key of GX_INSERTS[topology]) {
      const r = T.inserts[key];
      L.push(`| ${topology} | ${insLabel[key]} | ${cellText(r, (x) => n0(x.qps))} | ${cellText(r, (x) => `${ms(x.p50)} / ${ms(x.p99)}`)} | ${cellText(r, (x) => n0(x.nodeCpuUs))} | ${x2(pairedRatio(T.inserts.insertPlain, r).value)} |`);
    }
  }
  if (GI?.error) L.push(`\nfailed: ${GI.error}`);
  L.push('');

  L.push('## Method');
  L.push('');
  for (const line of meta.method) L.push(`- ${line}`);
  L.push('');
  writeFileSync(join(dir, 'REPORT.md'), L.join('\n'));
}
