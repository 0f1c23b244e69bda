// Issue 18, item 3, second half: what one statement per server gives when the shards' tables
// are addressed differently, measured by hand with raw mysql2 (no plugin, no ORM), against the
// same IN on one unsharded table:
//   databases  one database per shard, one UNION ALL branch per shard (the plugin's layout today)
//   tables     one table per shard in one database (`orders_<i>`), one UNION ALL branch per table
//   partitions one table PARTITION BY LIST on a stored bucket column (the shard index), one
//              statement `WHERE (bucket, id) IN ((3, 11), …)`: the server prunes the partitions
//   keyPartitions  one table PARTITION BY KEY (id), as many partitions as shards (what
//              `@Sharded({ partitions })` builds in a shard database), one plain statement
//              `WHERE id IN (…)`: the server prunes by the key itself
// Then the built layout through the plugin: a ShardedDataSource of one shard database whose
// `orders` is `sharding.partitions: { orders: 64 }`, `find(In(ids))` against TypeORM's own
// `find` on the unsharded table.
// And the feed page of §7 (`ORDER BY createdAt DESC, id DESC LIMIT 20` over the 16 page shards,
// one client) under the same three layouts, when the pages are loaded: one statement per server,
// a UNION ALL of 16 branches each `LIMIT` the plugin's cap (databases, tables), or one plain
// statement on the partitioned table (the server merges its partitions' ordered index scans).
// The copies are made on the server from the loaded shards (INSERT … SELECT) and dropped after.
import mysql from 'mysql2/promise';
import { In } from 'typeorm';
import { ShardedDataSource } from 'typeorm-sharding';
import { Order } from '../lib/entities.mjs';
import { alternate, verify } from '../lib/loop.mjs';
import { MARIADB, PLAIN_DB, shardDb } from '../lib/mariadb.mjs';
import { groupByShard, idLists, log, runWindow } from '../lib/util.mjs';
import { MAX_IN, WINDOW } from '../lib/setup.mjs';

export const LAYOUT_DB = 'bench_layouts';
export const LAYOUT_VARIANTS = ['unsharded', 'databases', 'tables', 'partitions', 'keyPartitions'];
export const PLUGIN_PARTITIONS_DB = 'bench_orders_part';
const COLUMNS = '`id`, `buyerId`, `amount`, `note`, `createdAt`';
const BRANCHES = 16;
const DDL = '`id` bigint NOT NULL, `buyerId` int NOT NULL, `amount` int NOT NULL, `note` varchar(40) NOT NULL, `createdAt` datetime NOT NULL';

const PAGE_COLUMNS = '`id`, `amount`, `note`, `createdAt`';
const PAGE_DDL = '`id` bigint NOT NULL, `amount` int NOT NULL, `note` varchar(40) NOT NULL, `createdAt` datetime NOT NULL';
const PAGE = 20;
const FEED_ORDER = 'ORDER BY `createdAt` DESC, `id` DESC';

/** The 16 page shards copied as tables and as partitions of one table, with their statistics. */
async function createPageLayouts(admin, shards) {
  const partitions = Array.from({ length: shards }, (_, i) => `PARTITION p${i} VALUES IN (${i})`).join(', ');
  await admin.query(`CREATE TABLE \`${LAYOUT_DB}\`.\`pages_part\` (${PAGE_DDL}, \`bucket\` smallint NOT NULL, PRIMARY KEY (\`id\`, \`bucket\`), KEY \`IDX_pages_createdAt_id\` (\`createdAt\`, \`id\`)) ENGINE=InnoDB PARTITION BY LIST (\`bucket\`) (${partitions})`);
  await admin.query(`CREATE TABLE \`${LAYOUT_DB}\`.\`pages_key\` (${PAGE_DDL}, PRIMARY KEY (\`id\`), KEY \`IDX_pages_createdAt_id\` (\`createdAt\`, \`id\`)) ENGINE=InnoDB PARTITION BY KEY (\`id\`) PARTITIONS ${shards}`);
  await admin.query(`INSERT INTO \`${LAYOUT_DB}\`.\`pages_key\` SELECT ${PAGE_COLUMNS} FROM \`${PLAIN_DB}\`.\`pages\``);
  for (let i = 0; i < shards; i++) {
    await admin.query(`CREATE TABLE \`${LAYOUT_DB}\`.\`pages_${i}\` LIKE \`${shardDb(i)}\`.\`pages\``);
    await admin.query(`INSERT INTO \`${LAYOUT_DB}\`.\`pages_${i}\` SELECT ${PAGE_COLUMNS} FROM \`${shardDb(i)}\`.\`pages\``);
    await admin.query(`INSERT INTO \`${LAYOUT_DB}\`.\`pages_part\` SELECT ${PAGE_COLUMNS}, ${i} FROM \`${shardDb(i)}\`.\`pages\``);
  }
  // Fresh copies have no statistics yet: without them the optimizer scans a table copy in full.
  const tables = ['pages_part', 'pages_key', ...Array.from({ length: shards }, (_, i) => `pages_${i}`)].map((t) => `\`${LAYOUT_DB}\`.\`${t}\``);
  await admin.query(`ANALYZE TABLE ${tables.join(', ')}`);
}

/** The feed page as one UNION ALL of a branch per shard, each sent the plugin's cap of the page (3·√share + 2 beyond its share). */
function feedUnion(shards, tableOf) {
  const share = PAGE / shards;
  const cap = Math.ceil(share + 3 * Math.sqrt(share)) + 2;
  const branches = Array.from({ length: shards }, (_, i) => `(SELECT ${PAGE_COLUMNS}, ${i} AS \`__shard_branch\` FROM ${tableOf(i)} ${FEED_ORDER} LIMIT ${cap})`);
  return `${branches.join(' UNION ALL ')} ${FEED_ORDER} LIMIT ${PAGE}`;
}

async function createLayouts(admin, shards) {
  await admin.query(`DROP DATABASE IF EXISTS \`${LAYOUT_DB}\``);
  await admin.query(`CREATE DATABASE \`${LAYOUT_DB}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
  const partitions = Array.from({ length: shards }, (_, i) => `PARTITION p${i} VALUES IN (${i})`).join(', ');
  await admin.query(`CREATE TABLE \`${LAYOUT_DB}\`.\`orders_part\` (${DDL}, \`bucket\` smallint NOT NULL, PRIMARY KEY (\`id\`, \`bucket\`)) ENGINE=InnoDB PARTITION BY LIST (\`bucket\`) (${partitions})`);
  await admin.query(`CREATE TABLE \`${LAYOUT_DB}\`.\`orders_key\` (${DDL}, PRIMARY KEY (\`id\`)) ENGINE=InnoDB PARTITION BY KEY (\`id\`) PARTITIONS ${shards}`);
  await admin.query(`INSERT INTO \`${LAYOUT_DB}\`.\`orders_key\` SELECT ${COLUMNS} FROM \`${PLAIN_DB}\`.\`orders\``);
  for (let i = 0; i < shards; i++) {
    await admin.query(`CREATE TABLE \`${LAYOUT_DB}\`.\`orders_${i}\` (${DDL}, PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
    await admin.query(`INSERT INTO \`${LAYOUT_DB}\`.\`orders_${i}\` SELECT ${COLUMNS} FROM \`${shardDb(i)}\`.\`orders\``);
    await admin.query(`INSERT INTO \`${LAYOUT_DB}\`.\`orders_part\` SELECT ${COLUMNS}, ${i} FROM \`${shardDb(i)}\`.\`orders\``);
  }
}

/** One statement per batch of `BRANCHES` shards: a UNION ALL of one branch per shard, each naming its table with `tableOf`. */
function unionOf(units, tableOf) {
  const texts = [];
  const values = [];
  for (let i = 0; i < units.length; i += BRANCHES) {
    const batch = units.slice(i, i + BRANCHES);
    texts.push(batch.map((u) => `(SELECT ${COLUMNS} FROM ${tableOf(u.shard)} WHERE \`id\` IN (?))`).join(' UNION ALL '));
    values.push(batch.map((u) => u.values));
  }
  return { texts, values };
}

export async function runLayouts(ctx, { sizes, concurrency, admin }) {
  const { cfg, totalOrders, shardIndexOf } = ctx;
  const shards = ctx.dsOn.shardNames.length;
  const started = Date.now();
  await createLayouts(admin, shards);
  log(`[layouts] copies made in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const pool = mysql.createPool({ ...MARIADB, connectionLimit: cfg.serverPoolSize });
  const flat = (parts) => (parts.length === 1 ? parts[0] : parts.flat());
  const union = (tableOf) => (ids) => {
    const { texts, values } = unionOf(groupByShard(ids, shardIndexOf, MAX_IN), tableOf);
    return runWindow(texts.map((t, b) => () => pool.query(t, values[b]).then((r) => r[0])), WINDOW).then(flat);
  };
  const ops = {
    unsharded: (ids) => pool.query(`SELECT ${COLUMNS} FROM \`${PLAIN_DB}\`.\`orders\` WHERE \`id\` IN (?)`, [ids]).then((r) => r[0]),
    databases: union((s) => `\`${shardDb(s)}\`.\`orders\``),
    tables: union((s) => `\`${LAYOUT_DB}\`.\`orders_${s}\``),
    // (bucket, id) pairs: the server prunes to the buckets' partitions and looks each id up in its
    // own one (`PARTITION (…) WHERE id IN (…)` looks every id up in every partition named).
    partitions: (ids) => pool.query(`SELECT ${COLUMNS} FROM \`${LAYOUT_DB}\`.\`orders_part\` FORCE INDEX (PRIMARY) WHERE (\`bucket\`, \`id\`) IN (?)`, [ids.map((id) => [shardIndexOf(id), id])]).then((r) => r[0]),
    keyPartitions: (ids) => pool.query(`SELECT ${COLUMNS} FROM \`${LAYOUT_DB}\`.\`orders_key\` WHERE \`id\` IN (?)`, [ids]).then((r) => r[0]),
  };
  const cells = [];
  const pageShards = ctx.ds16?.shardNames.length;
  try {
    if (ctx.pagesLoaded && pageShards) {
      await createPageLayouts(admin, pageShards);
      const feed = (sql) => () => pool.query(sql).then((r) => r[0]);
      const ops = {
        unsharded: feed(`SELECT ${PAGE_COLUMNS} FROM \`${PLAIN_DB}\`.\`pages\` ${FEED_ORDER} LIMIT ${PAGE}`),
        databases: feed(feedUnion(pageShards, (i) => `\`${shardDb(i)}\`.\`pages\``)),
        tables: feed(feedUnion(pageShards, (i) => `\`${LAYOUT_DB}\`.\`pages_${i}\``)),
        partitions: feed(`SELECT ${PAGE_COLUMNS} FROM \`${LAYOUT_DB}\`.\`pages_part\` ${FEED_ORDER} LIMIT ${PAGE}`),
        keyPartitions: feed(`SELECT ${PAGE_COLUMNS} FROM \`${LAYOUT_DB}\`.\`pages_key\` ${FEED_ORDER} LIMIT ${PAGE}`),
      };
      const want = (await ops.unsharded()).map((r) => String(r.id)).join(',');
      const variants = LAYOUT_VARIANTS.map((key) => ({ key, op: ops[key] }));
      const failed = {};
      for (const v of variants) {
        const got = await v.op().then((rows) => rows.map((r) => String(r.id)).join(','), (e) => `error: ${e.message}`);
        if (got !== want) failed[v.key] = { error: `not the unsharded page (${got.slice(0, 60)})` };
      }
      const live = variants.filter((v) => !failed[v.key]);
      const res = await alternate(live, { reps: cfg.reps, clients: 1, warmupMs: cfg.warmupMs, durationMs: cfg.durationMs, minOps: cfg.warmupMs > 0 ? 10 : 1 });
      const cell = { n: 'feed page', c: 1, ...failed, ...res };
      cells.push(cell);
      log(`[layouts] feed page c=1 ` + LAYOUT_VARIANTS.map((k) => `${k}=${cell[k].error ? 'failed' : cell[k].qps.toFixed(0) + 'qps'}`).join(' '));
    }
    for (const n of sizes) {
      const lists = idLists(n, 256, totalOrders, 3000 + n);
      const variants = LAYOUT_VARIANTS.map((key) => ({ key, op: (i) => ops[key](lists[i % lists.length]) }));
      cells.push(...(await measuredCells(cfg, variants, n, concurrency, `[layouts] IN=${n}`)));
    }
  } finally {
    await pool.end();
    if (!cfg.keep) await admin.query(`DROP DATABASE IF EXISTS \`${LAYOUT_DB}\``);
  }
  const plugin = await pluginOverPartitions(ctx, { sizes, concurrency, admin, partitions: shards });
  return { cells, plugin, partitions: shards };
}

/**
 * The built layout through the plugin: one shard database whose `orders` is partitioned by the
 * server (`sharding.partitions`, synchronize partitions it, the rows copied from the unsharded
 * table), `find({ where: { id: In(ids) } })` against the same `find` on the unsharded table.
 */
async function pluginOverPartitions(ctx, { sizes, concurrency, admin, partitions }) {
  const { cfg, totalOrders, plain } = ctx;
  await admin.query(`DROP DATABASE IF EXISTS \`${PLUGIN_PARTITIONS_DB}\``);
  await admin.query(`CREATE DATABASE \`${PLUGIN_PARTITIONS_DB}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
  const ds = new ShardedDataSource({
    type: 'mariadb', host: MARIADB.host, port: MARIADB.port, username: MARIADB.user, password: MARIADB.password,
    entities: [Order], synchronize: true, poolSize: cfg.serverPoolSize,
    shards: [{ name: 'p0', database: PLUGIN_PARTITIONS_DB }],
    sharding: { partitions: { orders: partitions }, concurrency: WINDOW, maxInValuesPerQuery: MAX_IN },
  });
  const cells = [];
  try {
    await ds.initialize();
    await admin.query(`INSERT INTO \`${PLUGIN_PARTITIONS_DB}\`.\`orders\` SELECT ${COLUMNS} FROM \`${PLAIN_DB}\`.\`orders\``);
    await admin.query(`ANALYZE TABLE \`${PLUGIN_PARTITIONS_DB}\`.\`orders\``);
    const find = (source) => (ids) => source.getRepository(Order).find({ where: { id: In(ids) } });
    for (const n of sizes) {
      const lists = idLists(n, 256, totalOrders, 5000 + n);
      const variants = [
        { key: 'plugin', op: (i) => find(ds)(lists[i % lists.length]) },
        { key: 'unsharded', op: (i) => find(plain)(lists[i % lists.length]) },
      ];
      cells.push(...(await measuredCells(cfg, variants, n, concurrency, `[layouts] plugin over ${partitions} partitions IN=${n}`)));
    }
  } finally {
    await ds.destroy().catch(() => undefined);
    if (!cfg.keep) await admin.query(`DROP DATABASE IF EXISTS \`${PLUGIN_PARTITIONS_DB}\``);
  }
  return cells;
}

/**
 * Each variant checked to return `n` rows, then measured side by side at every client count;
 * a variant that failed its check is reported with its error.
 */
async function measuredCells(cfg, variants, n, concurrency, label) {
  const failed = {};
  for (const v of variants) {
    const err = await verify(v.key, v.op, n);
    if (err) failed[v.key] = { error: err };
  }
  const cells = [];
  for (const c of concurrency) {
    const live = variants.filter((v) => !failed[v.key]);
    const res = live.length ? await alternate(live, { reps: cfg.reps, clients: c, warmupMs: cfg.warmupMs, durationMs: cfg.durationMs, minOps: cfg.warmupMs > 0 ? 10 : 1 }) : {};
    const cell = { n, c, ...failed, ...res };
    cells.push(cell);
    log(`${label} c=${c} ` + variants.map((v) => `${v.key}=${cell[v.key].error ? 'failed' : cell[v.key].qps.toFixed(0) + 'qps'}`).join(' '));
  }
  return cells;
}
