// The planner alone, through ds.explain(sql, parameters): parameterize, plan-cache hit,
// route, rewrite (no I/O). Plus the plan-cache sweep: IN lists of every length 1..max must
// leave one cache entry per query shape.
import { In } from 'typeorm';
import { gc, idLists, log, summarize, errorMessage } from '../lib/util.mjs';
import { Order } from '../lib/setup.mjs';

export const PLANNER_CASES = [
  { key: 'point', label: 'findOneBy({ id })', size: 1 },
  { key: 'in8', label: 'find(In(8 ids))', size: 8 },
  { key: 'in32', label: 'find(In(32 ids))', size: 32 },
  { key: 'in128', label: 'find(In(128 ids))', size: 128 },
];

function logicalSql(ds, c, ids) {
  const options = c.key === 'point' ? { where: { id: ids[0] }, take: 1 } : { where: { id: In(ids) } };
  return ds.createQueryBuilder(Order, 'Order').setFindOptions(options).getQueryAndParameters();
}

/** p50/p99 of explain() per case, for each dialect's data source. */
export async function runPlanner(ctx) {
  const { cfg } = ctx;
  const sources = [{ dialect: 'mysql', ds: ctx.dsOn, total: ctx.totalOrders }];
  if (ctx.sqlite) sources.push({ dialect: 'sqlite', ds: ctx.sqlite.sharded, total: ctx.sqlite.total });
  const out = [];
  for (const { dialect, ds, total } of sources) {
    for (const c of PLANNER_CASES) {
      try {
        // 2,048 distinct id lists: more than the library's text caches hold, so SQLite (values
        // written into the text) never sees the same text twice in a row of the cycle.
        const lists = idLists(c.size, cfg.quick ? 600 : 2048, total, 4000 + c.size);
        const inputs = lists.map((ids) => logicalSql(ds, c, ids));
        for (const [sql, params] of inputs) ds.explain(sql, params); // warm: JIT and the cache entry
        // Up to plannerIterations calls, within a time budget per case (large IN lists are slow).
        // Each call is followed by TypeORM building the same find's SQL (the yardstick: both see
        // the same machine at the same moment, so their ratio holds on a slower or busier machine).
        const all = new Float64Array(cfg.plannerIterations);
        const cpuAll = new Float64Array(cfg.plannerIterations);
        const typeormAll = new Float64Array(cfg.plannerIterations);
        let statements = 0;
        const rounds = cfg.quick ? 1 : 5;
        const perRound = Math.ceil(cfg.plannerIterations / rounds);
        const started = performance.now();
        let k = 0;
        for (let r = 0; r < rounds && performance.now() - started < cfg.plannerBudgetMs; r++) {
          gc();
          for (let i = 0; i < perRound && k < all.length; i++, k++) {
            const [sql, params] = inputs[k % inputs.length];
            // Wall time, and this process's CPU time around it (CPU time excludes the time other
            // processes of a shared machine preempt this one: the planner's own cost).
            const c0 = process.cpuUsage();
            const t = process.hrtime.bigint();
            const res = ds.explain(sql, params);
            all[k] = Number(process.hrtime.bigint() - t) / 1000;
            const c1 = process.cpuUsage(c0);
            cpuAll[k] = c1.user + c1.system;
            statements += res.length;
            const t2 = process.hrtime.bigint();
            logicalSql(ds, c, lists[k % lists.length]);
            typeormAll[k] = Number(process.hrtime.bigint() - t2) / 1000;
            if ((i & 63) === 0 && performance.now() - started > cfg.plannerBudgetMs) {
              k++;
              break;
            }
          }
        }
        const samples = all.subarray(0, k);
        const cpu = summarize(cpuAll.subarray(0, k));
        const s = summarize(samples);
        const typeorm = summarize(typeormAll.subarray(0, k));
        out.push({
          dialect, key: c.key, label: c.label, size: c.size, shards: ds.shardNames.length, p50: s.p50, p99: s.p99, mean: s.mean, cpuP50: cpu.p50, cpuP99: cpu.p99,
          typeormP50: typeorm.p50, typeormMean: typeorm.mean, iterations: samples.length, statementsPerCall: statements / samples.length,
        });
        log(`[planner] ${dialect} ${c.label}: p50=${s.p50.toFixed(1)}µs p99=${s.p99.toFixed(1)}µs (CPU p50=${cpu.p50.toFixed(0)}µs p99=${cpu.p99.toFixed(0)}µs); TypeORM's SQL build p50=${typeorm.p50.toFixed(1)}µs → ${(s.p50 / typeorm.p50).toFixed(2)}×`);
      } catch (e) {
        out.push({ dialect, key: c.key, label: c.label, error: errorMessage(e) });
        log(`[planner] ${dialect} ${c.label}: failed ${errorMessage(e)}`);
      }
    }
  }
  return out;
}

/**
 * The planner's cost per extra IN value, ns: the slope of the mean time between the smallest
 * and the largest IN list of a dialect (each value is routed and written into one statement).
 */
export function nsPerExtraValue(planner, dialect) {
  const cases = planner.filter((p) => p.dialect === dialect && !p.error && p.key !== 'point').sort((a, b) => a.size - b.size);
  if (cases.length < 2) return NaN;
  const [a, b] = [cases[0], cases[cases.length - 1]];
  return ((b.mean - a.mean) * 1000) / (b.size - a.size);
}

/**
 * IN lists of many lengths up to `sweepMax` (every length up to `sweepEvery`, then every
 * `sweepStride`-th, within a time budget) through explain(), all of one query shape that no
 * other case uses (a `select` of two columns): one cache entry and one miss are expected.
 * The SQL of length n is TypeORM's own SQL for two values with the list widened.
 */
export async function runPlanCacheSweep(ctx) {
  const { cfg } = ctx;
  const sources = [{ dialect: 'mysql', ds: ctx.dsOn }];
  if (ctx.sqlite) sources.push({ dialect: 'sqlite', ds: ctx.sqlite.sharded });
  const out = [];
  for (const { dialect, ds } of sources) {
    try {
      const [sql2] = ds.createQueryBuilder(Order, 'Order').setFindOptions({ select: { id: true, amount: true }, where: { id: In([900000001, 900000002]) } }).getQueryAndParameters();
      const marker = dialect === 'mysql' ? 'IN (?, ?)' : 'IN (900000001, 900000002)';
      const at = sql2.indexOf(marker);
      if (at < 0) throw new Error(`cannot find the IN list in ${sql2}`);
      const head = sql2.slice(0, at) + 'IN (';
      const tail = sql2.slice(at + marker.length - 1);
      const lengths = [];
      for (let n = 1; n <= cfg.sweepMax; n += n < cfg.sweepEvery ? 1 : cfg.sweepStride) lengths.push(n);
      if (lengths[lengths.length - 1] !== cfg.sweepMax) lengths.push(cfg.sweepMax);
      const before = ds.planCacheStats;
      const t0 = performance.now();
      let values = 0;
      let tried = 0;
      let budgetHit;
      for (const n of lengths) {
        const ids = Array.from({ length: n }, (_, i) => 1 + i * 3);
        const sql = head + (dialect === 'mysql' ? '?, '.repeat(n - 1) + '?' : ids.join(', ')) + tail;
        ds.explain(sql, dialect === 'mysql' ? ids : []);
        values += n;
        tried++;
        if (performance.now() - t0 > cfg.sweepBudgetMs && n !== cfg.sweepMax) {
          // Out of time: still try the longest list, so the whole range is covered.
          budgetHit = n;
          const big = Array.from({ length: cfg.sweepMax }, (_, i) => 1 + i * 3);
          ds.explain(head + (dialect === 'mysql' ? '?, '.repeat(cfg.sweepMax - 1) + '?' : big.join(', ')) + tail, dialect === 'mysql' ? big : []);
          values += cfg.sweepMax;
          tried++;
          break;
        }
      }
      const ms = performance.now() - t0;
      const after = ds.planCacheStats;
      out.push({
        dialect,
        lengths: tried,
        everyUpTo: Math.min(cfg.sweepEvery, budgetHit ?? Infinity),
        maxLength: cfg.sweepMax,
        budgetHitAt: budgetHit,
        entriesAdded: after.size - before.size,
        misses: after.misses - before.misses,
        sizeAfter: after.size,
        capacity: after.capacity,
        seconds: ms / 1000,
        nsPerValue: (ms * 1e6) / values,
      });
      log(`[plan-cache] ${dialect}: ${tried} lengths → ${after.size - before.size} new entries, ${after.misses - before.misses} misses (${(ms / 1000).toFixed(1)}s${budgetHit ? `, time budget reached at length ${budgetHit}` : ''})`);
    } catch (e) {
      out.push({ dialect, error: errorMessage(e) });
      log(`[plan-cache] ${dialect}: failed ${errorMessage(e)}`);
    }
  }
  return out;
}
