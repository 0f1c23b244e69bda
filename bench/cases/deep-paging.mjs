// Deep paging: ORDER BY createdAt DESC, id DESC with OFFSET 0 / 1,000 / 10,000 and a page
// of 20 over 16 shards, against the same query on the unsharded table.
//  - one query at a time (alternating): time to the result;
//  - memory (separate repetitions): the live heap + external memory above a gc'd baseline, taken
//    with a full gc after every physical statement and after the result — what the read holds at
//    those points (rows buffered for the merge), not garbage waiting for a collection; the
//    heap peak (young garbage included) is sampled every millisecond without gc;
//  - a closed loop of one client for a while (alternating): queries per second and Node / server
//    CPU per page, which also pays for work the library does after handing back the result
//    (draining streams). At OFFSET 0 the sharded read's variants run beside it: uncapped (each
//    shard LIMIT offset+count, `pageWindows: false`) and one statement per shard (the merge in
//    Node, `coalesce: false`);
//  - the plan of every physical statement by ANALYZE (it runs them): per UNION ALL branch;
//  - *partitioned* (issue 18): the same rows split 16 ways inside one shard database by MySQL
//    partitions (`sharding.partitions: { pages: 16 }`, PARTITION BY KEY (id)), through the plugin:
//    one plain statement whose partitions' ordered index scans the server merges itself.
import mysql from 'mysql2/promise';
import { ShardedDataSource } from 'typeorm-sharding';
import { closedLoop } from '../lib/loop.mjs';
import { gc, errorMessage, log, summarize, sleep } from '../lib/util.mjs';
import { Page, shardedMariadb } from '../lib/setup.mjs';
import { MARIADB, PLAIN_DB } from '../lib/mariadb.mjs';

export const PAGE = 20;
export const OFFSETS = [0, 1000, 10000];
export const PARTITIONED_DB = 'bench_pages_part';
export const PARTITIONS = 16;

/**
 * One shard database holding the unsharded table's rows as `PARTITIONS` partitions of one
 * table (synchronize partitions it; the rows are copied on the server), with fresh statistics.
 */
async function partitionedPages(cfg) {
  const admin = await mysql.createConnection(MARIADB);
  try {
    await admin.query(`DROP DATABASE IF EXISTS \`${PARTITIONED_DB}\``);
    await admin.query(`CREATE DATABASE \`${PARTITIONED_DB}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
    const ds = new ShardedDataSource({
      type: 'mariadb', host: MARIADB.host, port: MARIADB.port, username: MARIADB.user, password: MARIADB.password,
      entities: [Page], poolSize: cfg.serverPoolSize, synchronize: true,
      shards: [{ name: 'p0', database: PARTITIONED_DB }],
      sharding: { partitions: { pages: PARTITIONS } },
    });
    await ds.initialize();
    await admin.query(`INSERT INTO \`${PARTITIONED_DB}\`.\`pages\` SELECT * FROM \`${PLAIN_DB}\`.\`pages\``);
    await admin.query(`ANALYZE TABLE \`${PARTITIONED_DB}\`.\`pages\``);
    return ds;
  } finally {
    await admin.end();
  }
}

/** Drops the partitioned copy (after the section, unless --keep). */
async function dropPartitioned(cfg) {
  if (cfg.keep) return;
  const admin = await mysql.createConnection(MARIADB);
  await admin.query(`DROP DATABASE IF EXISTS \`${PARTITIONED_DB}\``).finally(() => admin.end());
}

function memNow() {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

/** Live memory now: after a full gc, what is still reachable (plus external buffers still referenced). */
function liveNow() {
  gc();
  return memNow();
}

/** Runs `fn` once, returning { ms, rows, first }. */
async function timed(fn) {
  const t = performance.now();
  const rows = await fn();
  return { ms: performance.now() - t, rows: rows.length, first: rows[0]?.id };
}

/**
 * Runs `fn` once, returning { liveBytes, peakBytes }: the live peak (a full gc after every physical
 * statement and after the result, above a gc'd baseline) and the heap peak (every ms, no gc).
 */
async function measuredMemory(fn, probe) {
  gc();
  await sleep(5);
  const base = liveNow();
  let live = base;
  let peak = base;
  probe.sample = () => {
    const v = liveNow();
    if (v > live) live = v;
  };
  const timer = setInterval(() => {
    const v = memNow();
    if (v > peak) peak = v;
  }, 1);
  let rows;
  try {
    rows = await fn();
    probe.sample();
  } finally {
    clearInterval(timer);
    probe.sample = () => {};
  }
  void rows;
  return { liveBytes: Math.max(0, live - base), peakBytes: Math.max(0, Math.max(peak, live) - base) };
}

/**
 * The plan MariaDB ran for each physical statement (`ANALYZE FORMAT=JSON`, which runs it: plain
 * EXPLAIN of a UNION ALL shows every branch as a full scan with filesort on MariaDB 10.11, which
 * ANALYZE contradicts), summarised per branch: access, key, rows read, filesort or not.
 */
async function analyzedPlan(ds, sql, params) {
  const lines = [];
  for (const st of ds.explain(sql, params)) lines.push(await analyzedStatement(ds.getShardDataSource(st.shard), st.sql, st.parameters));
  const counts = new Map();
  for (const l of lines) counts.set(l, (counts.get(l) ?? 0) + 1);
  return [...counts].map(([l, n]) => (n > 1 ? `${n} statements: ${l}` : l)).join(' / ');
}

/** One statement's `ANALYZE FORMAT=JSON` on `ds`, per table read: access, key, rows read, filesort or not. */
async function analyzedStatement(ds, sql, parameters) {
  const raw = await ds.query(`ANALYZE FORMAT=JSON ${sql}`, [...parameters]);
  const text = Object.values(raw[0] ?? {})[0];
  const tree = JSON.parse(typeof text === 'string' ? text : '{}');
  const branches = [];
  const walk = (node, sorted) => {
    if (Array.isArray(node)) return node.forEach((n) => walk(n, sorted));
    if (!node || typeof node !== 'object') return;
    if (node.table && typeof node.table === 'object' && node.table.table_name && !String(node.table.table_name).startsWith('<')) {
      const t = node.table;
      branches.push(`${t.access_type}${t.key ? ` on ${t.key}` : ''}, ${t.r_rows} rows read${sorted ? ', filesort' : ''}`);
    }
    for (const [k, v] of Object.entries(node)) if (k !== 'table') walk(v, sorted || k === 'filesort' || k === 'read_sorted_file');
  };
  const union = tree.query_block?.union_result;
  walk(union?.query_specifications ?? tree.query_block, false);
  const counts = new Map();
  for (const b of branches) counts.set(b, (counts.get(b) ?? 0) + 1);
  const summary = [...counts].map(([b, n]) => (n > 1 ? `${n}× ${b}` : b)).join('; ');
  return union ? `UNION ALL of ${branches.length}: ${summary}; union result ${union.r_rows} rows` : summary;
}

/**
 * Rows the shards send for the page: per shard statement (or UNION ALL branch) its LIMIT — a
 * capped share of offset+count on a shallow page, a window on a deep one (see the README's
 * pages) — capped by the rows the shard holds.
 */
function rowsSent(ds16, perShard, offset) {
  const [sql, params] = ds16.getRepository(Page).createQueryBuilder('Page').setFindOptions({ order: { createdAt: 'DESC', id: 'DESC' }, skip: offset, take: PAGE }).getQueryAndParameters();
  const statements = ds16.explain(sql, params).flatMap((st) => st.branches ?? [st]);
  if (statements.length !== perShard.length) return perShard.reduce((a, c) => a + Math.min(c, offset + PAGE), 0);
  return statements.reduce((sum, st) => {
    const m = /LIMIT (\d+)(?: OFFSET (\d+))?\s*$/.exec(st.sql);
    const held = perShard[ds16.shardNames.indexOf(st.shard)];
    return sum + (m ? Math.max(0, Math.min(Number(m[1]), held - Number(m[2] ?? 0))) : held);
  }, 0);
}

export async function runDeepPaging(ctx) {
  const { ds16, plain, cfg, probe } = ctx;
  const find = (ds, offset) => ds.getRepository(Page).find({ order: { createdAt: 'DESC', id: 'DESC' }, skip: offset, take: PAGE });
  const queryOf = (ds, offset) => ds.getRepository(Page).createQueryBuilder('Page').setFindOptions({ order: { createdAt: 'DESC', id: 'DESC' }, skip: offset, take: PAGE }).getQueryAndParameters();
  // The sharded read's variants, on the same shards: every shard LIMIT offset+count (and deep
  // pages streamed), and one statement per shard merged in Node.
  const same = { count: ds16.shardNames.length, entities: [Page], poolSize: cfg.serverPoolSize, onPhysicalQuery: () => probe.sample() };
  const uncapped = await shardedMariadb({ ...same, extra: { pageWindows: false } }).initialize();
  const perShardDs = await shardedMariadb({ ...same, coalesce: false }).initialize();
  let partitioned;
  try {
    partitioned = await partitionedPages(cfg);
    const variants = { sharded: (offset) => find(ds16, offset), unsharded: (offset) => find(plain, offset), uncapped: (offset) => find(uncapped, offset), perShard: (offset) => find(perShardDs, offset), partitioned: (offset) => find(partitioned, offset) };
    // Rows each shard holds: shard s is sent LIMIT offset+count and returns min(rows, offset+count).
    const perShard = [];
    for (const name of ds16.shardNames) perShard.push(Number((await ds16.getShardDataSource(name).query('SELECT COUNT(*) AS c FROM pages'))[0].c));
    const out = { shards: ds16.shardNames.length, page: PAGE, totalRows: ctx.totalPages, partitions: PARTITIONS, offsets: [] };
    for (const offset of OFFSETS) {
      const cell = { offset, shardRows: rowsSent(ds16, perShard, offset) };
      // The server's plan for the unsharded query, and for every physical statement of the sharded one.
      try {
        const [sql, params] = queryOf(plain, offset);
        const plan = (await plain.query(`EXPLAIN ${sql}`, params))[0];
        cell.plan = `${plan.type}${plan.key ? ` on ${plan.key}` : ''}${plan.Extra ? `, ${plan.Extra}` : ''}`;
        cell.plan += ` (ANALYZE: ${await analyzedStatement(plain, sql, params)})`;
      } catch (e) {
        cell.plan = `EXPLAIN failed: ${errorMessage(e)}`;
      }
      try {
        cell.shardedPlan = await analyzedPlan(ds16, ...queryOf(ds16, offset));
      } catch (e) {
        cell.shardedPlan = `ANALYZE failed: ${errorMessage(e)}`;
      }
      const loopKeys = offset === 0 ? ['sharded', 'uncapped', 'perShard', 'partitioned', 'unsharded'] : ['sharded', 'partitioned', 'unsharded'];
      // Memory of the streamed plain path beside the windows at deep offsets.
      const memKeys = offset === 0 ? ['sharded', 'partitioned', 'unsharded'] : ['sharded', 'uncapped', 'partitioned', 'unsharded'];
      const acc = Object.fromEntries(loopKeys.concat(memKeys).map((k) => [k, { times: [], mem: [] }]));
      const errors = {};
      const firstIds = {};
      const order = (keys, rep) => (rep % 2 === 0 ? keys : [...keys].reverse());
      for (let rep = 0; rep < cfg.pagingReps; rep++) {
        for (const key of order(['sharded', 'partitioned', 'unsharded'], rep)) {
          if (errors[key]) continue;
          try {
            const r = await timed(() => variants[key](offset));
            acc[key].times.push(r);
            firstIds[key] = r.first;
            await sleep(cfg.pagingSettleMs); // let any background draining finish before the next run
          } catch (e) {
            errors[key] = errorMessage(e);
          }
        }
        for (const key of order(memKeys, rep)) {
          if (errors[key]) continue;
          try {
            acc[key].mem.push(await measuredMemory(() => variants[key](offset), probe));
            await sleep(cfg.pagingSettleMs);
          } catch (e) {
            errors[key] = errorMessage(e);
          }
        }
      }
      // Throughput, alternating, one client: includes work done after the result is returned.
      const loops = Object.fromEntries(loopKeys.map((k) => [k, { ops: 0, seconds: 0, nodeCpu: 0, serverCpu: 0 }]));
      for (let rep = 0; rep < cfg.pagingReps; rep++) {
        for (const key of order(loopKeys, rep)) {
          if (errors[key]) continue;
          const r = await closedLoop(() => variants[key](offset), { clients: 1, warmupMs: cfg.quick ? 0 : 100, durationMs: cfg.pagingLoopMs, minOps: 2 });
          if (r.error) errors[key] = errorMessage(r.error);
          loops[key].ops += r.ops;
          loops[key].seconds += r.seconds;
          loops[key].nodeCpu += r.nodeCpu;
          loops[key].serverCpu += r.serverCpu;
          await sleep(cfg.pagingSettleMs);
        }
      }
      for (const key of new Set([...loopKeys, ...memKeys])) {
        if (errors[key]) {
          cell[key] = { error: /not supported|unsupported/i.test(errors[key]) ? `not supported yet (${errors[key]})` : errors[key] };
          continue;
        }
        const r = {};
        if (acc[key].times.length > 0) {
          const t = summarize(acc[key].times.map((x) => x.ms));
          Object.assign(r, { ms: t.p50, msMax: t.max, rows: acc[key].times[0].rows });
        }
        if (acc[key].mem.length > 0) Object.assign(r, { liveBytes: summarize(acc[key].mem.map((x) => x.liveBytes)).p50, peakBytes: summarize(acc[key].mem.map((x) => x.peakBytes)).p50 });
        if (loops[key]?.ops > 0) {
          const l = loops[key];
          Object.assign(r, { qps: l.ops / l.seconds, nodeCpuUs: (l.nodeCpu / l.ops) * 1e6, serverCpuUs: (l.serverCpu / l.ops) * 1e6 });
        }
        cell[key] = r;
      }
      if (!cell.sharded.error && !cell.unsharded.error && String(firstIds.sharded) !== String(firstIds.unsharded)) {
        cell.sharded = { ...cell.sharded, mismatch: `first row id ${firstIds.sharded} ≠ unsharded ${firstIds.unsharded}` };
      }
      if (!cell.partitioned.error && !cell.unsharded.error && String(firstIds.partitioned) !== String(firstIds.unsharded)) {
        cell.partitioned = { ...cell.partitioned, mismatch: `first row id ${firstIds.partitioned} ≠ unsharded ${firstIds.unsharded}` };
      }
      out.offsets.push(cell);
      const kib = (b) => `${(b / 1024).toFixed(0)}KiB`;
      log(`[deep-paging] OFFSET ${offset}: ` + [...new Set([...loopKeys, ...memKeys])].map((k) => `${k}=${cell[k].error ? 'failed' : [cell[k].ms !== undefined ? `${cell[k].ms.toFixed(1)}ms` : '', cell[k].qps !== undefined ? `${cell[k].qps.toFixed(1)}qps node ${cell[k].nodeCpuUs.toFixed(0)}µs server ${cell[k].serverCpuUs.toFixed(0)}µs` : '', cell[k].liveBytes !== undefined ? `live ${kib(cell[k].liveBytes)}` : ''].filter(Boolean).join(' ')}`).join(' | '));
      log(`[deep-paging] OFFSET ${offset} sharded plan: ${cell.shardedPlan}`);
    }
    return out;
  } finally {
    await uncapped.destroy();
    await perShardDs.destroy();
    await partitioned?.destroy();
    await dropPartitioned(cfg).catch((e) => log(`[deep-paging] drop ${PARTITIONED_DB}: ${errorMessage(e)}`));
  }
}
