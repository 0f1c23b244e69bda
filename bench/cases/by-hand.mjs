// The plugin against doing it by hand: the same pruned per-shard finds written with plain
// TypeORM on the shard DataSources (same window, same batch size), and raw mysql2
// hand-routing over one pool per shard (the no-ORM limit).
import mysql from 'mysql2/promise';
import { In, QueryResult } from 'typeorm';
import { MARIADB, shardDb } from '../lib/mariadb.mjs';
import { alternate, verify } from '../lib/loop.mjs';
import { groupByShard, idLists, log, runWindow } from '../lib/util.mjs';
import { MAX_IN, Order, WINDOW } from '../lib/setup.mjs';

export const BY_HAND_SIZES = [8, 128];
export const BY_HAND_CONCURRENCY = [1, 16];
export const BY_HAND_VARIANTS = ['plugin', 'handTypeorm', 'rawMysql2', 'rawUnion', 'typeormUnion'];
const RAW_SQL = 'SELECT `id`, `buyerId`, `amount`, `note`, `createdAt` FROM `orders` WHERE `id` IN (?)';
/** The plugin's default: at most this many shards' statements in one UNION ALL. */
const UNION_BRANCHES = 16;

const UNION_COLUMNS = '`id`, `buyerId`, `amount`, `note`, `createdAt`';
/** The columns as TypeORM's find names them (`Order_id` …), for TypeORM to hydrate the union's rows. */
const TYPEORM_COLUMNS = ['id', 'buyerId', 'amount', 'note', 'createdAt'].map((c) => `\`${c}\` AS \`Order_${c}\``).join(', ');

/**
 * The database-per-shard ceiling (issue 18): the same pruned statements, database-qualified and
 * coalesced by hand into one UNION ALL per batch of shards of the server, over one raw mysql2
 * pool for the server — what the plugin's default does, with no ORM and no planner.
 */
export function rawUnionOf(units, columns = UNION_COLUMNS) {
  const sql = [];
  const values = [];
  for (let i = 0; i < units.length; i += UNION_BRANCHES) {
    const batch = units.slice(i, i + UNION_BRANCHES);
    sql.push(batch.map((u) => `(SELECT ${columns} FROM \`${shardDb(u.shard)}\`.\`orders\` WHERE \`id\` IN (?))`).join(' UNION ALL '));
    values.push(batch.map((u) => u.values));
  }
  return { sql, values };
}

export async function runByHand(ctx) {
  const { dsOn, dsDefault, pools, cfg, totalOrders, shardIndexOf } = ctx;
  // The plugin as configured by default (one round trip per server); by hand, plain TypeORM on
  // each shard's own DataSource, and raw mysql2 over one pool per shard.
  const repo = dsDefault.getRepository(Order);
  const shardRepos = dsOn.shardNames.map((name) => dsOn.getShardDataSource(name).getRepository(Order));
  const flat = (parts) => (parts.length === 1 ? parts[0] : parts.flat());
  const serverPool = mysql.createPool({ ...MARIADB, connectionLimit: cfg.serverPoolSize });
  // TypeORM's own find (SQL build, hydration) over the hand-written UNION ALL: a query runner of the
  // unsharded DataSource whose query() sends the union instead of TypeORM's text — the ceiling of
  // any plugin that keeps TypeORM's find.
  const typeormUnion = async (ids) => {
    const runner = ctx.plain.createQueryRunner('slave');
    runner.query = async (_sql, _parameters, structured) => {
      const { sql, values } = rawUnionOf(groupByShard(ids, shardIndexOf, MAX_IN), TYPEORM_COLUMNS);
      const rows = flat(await runWindow(sql.map((text, b) => () => serverPool.query(text, values[b]).then((r) => r[0])), WINDOW));
      if (!structured) return rows;
      const result = new QueryResult();
      result.records = rows;
      result.raw = rows;
      return result;
    };
    try {
      return await ctx.plain.createQueryBuilder(Order, 'Order').setQueryRunner(runner).setFindOptions({ where: { id: In(ids) } }).getMany();
    } finally {
      await runner.release();
    }
  };
  const ops = {
    typeormUnion,
    plugin: (ids) => repo.find({ where: { id: In(ids) } }),
    handTypeorm: (ids) => {
      const units = groupByShard(ids, shardIndexOf, MAX_IN);
      return runWindow(units.map((u) => () => shardRepos[u.shard].find({ where: { id: In(u.values) } })), WINDOW).then(flat);
    },
    rawMysql2: (ids) => {
      const units = groupByShard(ids, shardIndexOf, MAX_IN);
      return runWindow(units.map((u) => () => pools[u.shard].query(RAW_SQL, [u.values]).then((r) => r[0])), WINDOW).then(flat);
    },
    rawUnion: (ids) => {
      const { sql, values } = rawUnionOf(groupByShard(ids, shardIndexOf, MAX_IN));
      return runWindow(sql.map((text, b) => () => serverPool.query(text, values[b]).then((r) => r[0])), WINDOW).then(flat);
    },
  };
  const cells = [];
  for (const n of BY_HAND_SIZES) {
    const lists = idLists(n, 256, totalOrders, 2000 + n);
    const variants = BY_HAND_VARIANTS.map((key) => ({ key, op: (i) => ops[key](lists[i % lists.length]) }));
    const failed = {};
    for (const v of variants) {
      const err = await verify(v.key, v.op, n);
      if (err) failed[v.key] = { error: err };
    }
    for (const c of BY_HAND_CONCURRENCY) {
      const live = variants.filter((v) => !failed[v.key]);
      const res = live.length ? await alternate(live, { reps: cfg.reps, clients: c, warmupMs: cfg.warmupMs, durationMs: cfg.durationMs, minOps: cfg.warmupMs > 0 ? 10 : 1 }) : {};
      const cell = { n, c, ...failed, ...res };
      cells.push(cell);
      log(`[by-hand] IN=${n} c=${c} ` + BY_HAND_VARIANTS.map((k) => `${k}=${cell[k].error ? 'failed' : cell[k].qps.toFixed(0) + 'qps'}`).join(' '));
    }
  }
  await serverPool.end();
  return { cells, window: WINDOW };
}
