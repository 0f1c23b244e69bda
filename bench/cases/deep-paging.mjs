// Deep paging: ORDER BY createdAt DESC, id DESC with OFFSET 0 / 1,000 / 10,000 and a page
// of 20 over 16 shards, against the same query on the unsharded table.
//  - one query at a time (alternating): time to the result, and peak memory above a gc'd
//    baseline, sampled every millisecond and after every physical statement: the whole heap
//    (including young garbage) and the retained part (old generation + large objects +
//    external buffers: rows a buffering merge keeps get promoted there, streamed rows die young);
//  - a closed loop of one client for a while (alternating): queries per second, which also
//    pays for work the library does after handing back the result (draining streams).
import { getHeapSpaceStatistics } from 'node:v8';
import { closedLoop } from '../lib/loop.mjs';
import { gc, errorMessage, log, summarize, sleep } from '../lib/util.mjs';
import { Page } from '../lib/setup.mjs';

export const PAGE = 20;
export const OFFSETS = [0, 1000, 10000];

function memNow() {
  const m = process.memoryUsage();
  let retained = m.external;
  for (const s of getHeapSpaceStatistics()) if (s.space_name !== 'new_space') retained += s.space_used_size;
  return { all: m.heapUsed + m.external, retained };
}

/** Runs `fn` once, returning { ms, peakBytes, retainedBytes, rows }. */
async function measured(fn, probe) {
  gc();
  await sleep(5);
  gc();
  const base = memNow();
  const peak = { ...base };
  probe.sample = () => {
    const v = memNow();
    if (v.all > peak.all) peak.all = v.all;
    if (v.retained > peak.retained) peak.retained = v.retained;
  };
  const timer = setInterval(probe.sample, 1);
  const t = performance.now();
  let rows;
  try {
    rows = await fn();
    probe.sample();
  } finally {
    clearInterval(timer);
    probe.sample = () => {};
  }
  const ms = performance.now() - t;
  return { ms, peakBytes: Math.max(0, peak.all - base.all), retainedBytes: Math.max(0, peak.retained - base.retained), rows: rows.length, first: rows[0]?.id };
}

/**
 * Rows the shards send for the page: per shard statement its LIMIT from its OFFSET (a window,
 * see the README's deep pages), capped by the rows the shard holds; a coalesced statement
 * (shallow pages) carries LIMIT offset+count per shard.
 */
function rowsSent(ds16, perShard, offset) {
  const [sql, params] = ds16.getRepository(Page).createQueryBuilder('Page').setFindOptions({ order: { createdAt: 'DESC', id: 'DESC' }, skip: offset, take: PAGE }).getQueryAndParameters();
  const statements = ds16.explain(sql, params);
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
  const variants = { sharded: (offset) => find(ds16, offset), unsharded: (offset) => find(plain, offset) };
  // Rows each shard holds: shard s is sent LIMIT offset+count and returns min(rows, offset+count).
  const perShard = [];
  for (const name of ds16.shardNames) perShard.push(Number((await ds16.getShardDataSource(name).query('SELECT COUNT(*) AS c FROM pages'))[0].c));
  const out = { shards: ds16.shardNames.length, page: PAGE, totalRows: ctx.totalPages, offsets: [] };
  for (const offset of OFFSETS) {
    const cell = { offset, shardRows: rowsSent(ds16, perShard, offset) };
    // The server's plan for the unsharded query (each shard gets the same shape with LIMIT offset+count).
    try {
      const [sql, params] = plain.getRepository(Page).createQueryBuilder('Page').setFindOptions({ order: { createdAt: 'DESC', id: 'DESC' }, skip: offset, take: PAGE }).getQueryAndParameters();
      const plan = (await plain.query(`EXPLAIN ${sql}`, params))[0];
      cell.plan = `${plan.type}${plan.key ? ` on ${plan.key}` : ''}${plan.Extra ? `, ${plan.Extra}` : ''}`;
    } catch (e) {
      cell.plan = `EXPLAIN failed: ${errorMessage(e)}`;
    }
    const acc = { sharded: [], unsharded: [] };
    const errors = {};
    const firstIds = {};
    for (let rep = 0; rep < cfg.pagingReps; rep++) {
      const order = rep % 2 === 0 ? ['sharded', 'unsharded'] : ['unsharded', 'sharded'];
      for (const key of order) {
        if (errors[key]) continue;
        try {
          const r = await measured(() => variants[key](offset), probe);
          acc[key].push(r);
          firstIds[key] = r.first;
          await sleep(cfg.pagingSettleMs); // let any background draining finish before the next run
        } catch (e) {
          errors[key] = errorMessage(e);
        }
      }
    }
    // Throughput, alternating, one client: includes work done after the result is returned.
    const loops = { sharded: { ops: 0, seconds: 0 }, unsharded: { ops: 0, seconds: 0 } };
    for (let rep = 0; rep < cfg.pagingReps; rep++) {
      for (const key of rep % 2 === 0 ? ['sharded', 'unsharded'] : ['unsharded', 'sharded']) {
        if (errors[key]) continue;
        const r = await closedLoop(() => variants[key](offset), { clients: 1, warmupMs: 0, durationMs: cfg.pagingLoopMs, minOps: 2 });
        if (r.error) errors[key] = errorMessage(r.error);
        loops[key].ops += r.ops;
        loops[key].seconds += r.seconds;
        await sleep(cfg.pagingSettleMs);
      }
    }
    for (const key of ['sharded', 'unsharded']) {
      if (errors[key]) {
        cell[key] = { error: /not supported|unsupported/i.test(errors[key]) ? `not supported yet (${errors[key]})` : errors[key] };
        continue;
      }
      const t = summarize(acc[key].map((r) => r.ms));
      const m = summarize(acc[key].map((r) => r.peakBytes));
      const k = summarize(acc[key].map((r) => r.retainedBytes));
      cell[key] = { ms: t.p50, msMax: t.max, peakBytes: m.p50, retainedBytes: k.p50, rows: acc[key][0].rows, qps: loops[key].ops / loops[key].seconds };
    }
    if (!cell.sharded.error && !cell.unsharded.error && String(firstIds.sharded) !== String(firstIds.unsharded)) {
      cell.sharded = { ...cell.sharded, mismatch: `first row id ${firstIds.sharded} ≠ unsharded ${firstIds.unsharded}` };
    }
    out.offsets.push(cell);
    log(`[deep-paging] OFFSET ${offset}: ` + ['sharded', 'unsharded'].map((k) => `${k}=${cell[k].error ? 'failed' : `${cell[k].ms.toFixed(1)}ms ${cell[k].qps.toFixed(1)}qps retained ${(cell[k].retainedBytes / 1048576).toFixed(1)}MiB (all ${(cell[k].peakBytes / 1048576).toFixed(1)}MiB)`}`).join(' '));
  }
  return out;
}
