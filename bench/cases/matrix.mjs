// The article's study: IN sizes × client concurrency × pruning on / off (one statement per
// shard), plus the same IN queries on the unsharded table (what sharding costs on one server)
// and with the default coalescing (one UNION ALL per server for up to 16 shards).
import { In } from 'typeorm';
import { alternate, verify } from '../lib/loop.mjs';
import { groupByShard, idLists, log } from '../lib/util.mjs';
import { MAX_IN, Order } from '../lib/setup.mjs';

export const IN_SIZES = [1, 8, 32, 128, 512];
export const CONCURRENCY = [1, 16, 64];
export const MATRIX_VARIANTS = ['pruned', 'broadcast', 'unsharded', 'coalesced'];

export async function runMatrix(ctx) {
  const { dsOn, dsOff, dsDefault, plain, cfg, totalOrders, shardIndexOf } = ctx;
  const shardCount = dsOn.shardNames.length;
  const repos = { pruned: dsOn.getRepository(Order), broadcast: dsOff.getRepository(Order), unsharded: plain.getRepository(Order), coalesced: dsDefault.getRepository(Order) };
  const clients = cfg.matrixClients ?? CONCURRENCY;
  const cells = [];
  const statements = {};
  for (const n of IN_SIZES) {
    const lists = idLists(n, 256, totalOrders, 1000 + n);
    // Physical statements each variant sends per logical query (computed, not hooked, so the
    // measured path carries no instrumentation).
    let pruned = 0;
    for (const l of lists) pruned += groupByShard(l, shardIndexOf, MAX_IN).length;
    let coalesced = 0;
    for (const l of lists) coalesced += Math.ceil(groupByShard(l, shardIndexOf, MAX_IN).length / 16);
    statements[n] = { pruned: pruned / lists.length, broadcast: shardCount * Math.ceil(n / MAX_IN), unsharded: 1, coalesced: coalesced / lists.length };
    const variants = MATRIX_VARIANTS.map((key) => ({ key, op: (i) => repos[key].find({ where: { id: In(lists[i % lists.length]) } }) }));
    const failed = {};
    for (const v of variants) {
      const err = await verify(v.key, v.op, n);
      if (err) failed[v.key] = { error: err };
    }
    for (const c of clients) {
      const live = variants.filter((v) => !failed[v.key]);
      const res = live.length
        ? await alternate(live, {
          // 64 clients: each repetition already pools many calls, and a slow cell's warm-up and
          // drain take seconds: one repetition fewer keeps the full run near 10 minutes.
          reps: c >= 64 ? Math.max(1, cfg.reps - 1) : cfg.reps,
          clients: c,
          warmupMs: cfg.warmupMs,
          durationMs: cfg.durationMs,
          minOps: cfg.warmupMs > 0 ? Math.min(2 * c, 40) : 1,
        })
        : {};
      const cell = { n, c, ...failed, ...res };
      cells.push(cell);
      ctx.sampleThreads?.();
      log(`[matrix] IN=${n} c=${c} ` + MATRIX_VARIANTS.map((k) => `${k}=${cell[k].error ? 'failed' : cell[k].qps.toFixed(0) + 'qps p50=' + cell[k].p50.toFixed(2) + 'ms'}`).join(' '));
    }
  }
  return { cells, statements, shardCount, clients };
}
