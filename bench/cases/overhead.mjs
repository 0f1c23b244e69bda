// The plugin's own overhead: findOneBy({ id }) routed to one shard against the same call on
// one plain DataSource, on MariaDB and on SQLite in memory.
import { alternate, verify } from '../lib/loop.mjs';
import { idLists, log } from '../lib/util.mjs';
import { Order } from '../lib/setup.mjs';

// handRouted: plain TypeORM on the shard's own DataSource (the shard picked by hand): the
// same connections and databases as the plugin, without the plugin. sharded / handRouted is
// the plugin's own cost; handRouted / unsharded the cost of 64 databases on one server.
export const OVERHEAD_VARIANTS = ['sharded', 'handRouted', 'unsharded'];

async function measurePair(sharded, plain, total, opts, label) {
  const ids = idLists(1, 4096, total, 3000).map((l) => l[0]);
  const shardRepos = sharded.shardNames.map((name) => sharded.getShardDataSource(name).getRepository(Order));
  const algorithm = sharded.shardingRules.ruleOf('orders').shardKey.algorithm;
  const repos = { sharded: sharded.getRepository(Order), unsharded: plain.getRepository(Order) };
  const ops = {
    sharded: (id) => repos.sharded.findOneBy({ id }),
    handRouted: (id) => shardRepos[algorithm.shardIndexOf(id)].findOneBy({ id }),
    unsharded: (id) => repos.unsharded.findOneBy({ id }),
  };
  const variants = OVERHEAD_VARIANTS.map((key) => ({ key, op: (i) => ops[key](ids[i % ids.length]) }));
  const failed = {};
  for (const v of variants) {
    const err = await verify(v.key, v.op, 1);
    if (err) failed[v.key] = { error: err };
  }
  const live = variants.filter((v) => !failed[v.key]);
  const res = live.length ? await alternate(live, opts) : {};
  const cell = { ...failed, ...res };
  log(`[overhead] ${label} ` + OVERHEAD_VARIANTS.map((k) => `${k}=${cell[k].error ? 'failed' : cell[k].qps.toFixed(0) + 'qps mean=' + (cell[k].mean * 1000).toFixed(0) + 'µs'}`).join(' '));
  return cell;
}

export async function runOverhead(ctx) {
  const { cfg } = ctx;
  const out = { mariadb: [], sqlite: undefined };
  for (const c of [1, 16]) {
    // 1 client: more, shorter repetitions (finer interleaving on a noisy machine).
    const reps = c === 1 ? cfg.overheadReps * 2 : cfg.overheadReps;
    const durationMs = c === 1 ? cfg.overheadDurationMs / 2 : cfg.overheadDurationMs;
    const cell = await measurePair(ctx.dsOn, ctx.plain, ctx.totalOrders, { reps, clients: c, warmupMs: cfg.overheadWarmupMs, durationMs, minOps: cfg.warmupMs > 0 ? 10 : 1 }, `mariadb c=${c}`);
    out.mariadb.push({ c, ...cell });
  }
  if (ctx.sqlite) {
    // better-sqlite3 is synchronous and CPU-only: one client, many short repetitions.
    out.sqlite = {
      c: 1,
      ...(await measurePair(ctx.sqlite.sharded, ctx.sqlite.plain, ctx.sqlite.total, { reps: cfg.overheadReps * 3, clients: 1, warmupMs: cfg.overheadWarmupMs / 2, durationMs: cfg.overheadDurationMs / 5, minOps: cfg.warmupMs > 0 ? 10 : 1 }, 'sqlite c=1')),
    };
  } else {
    out.sqlite = { c: 1, sharded: { error: ctx.sqliteError ?? 'not run' }, unsharded: { error: ctx.sqliteError ?? 'not run' } };
  }
  return out;
}
