// Online resharding (issue 17): the mover's copy rate against a plain INSERT … SELECT of the
// same rows between the same two databases, the write pause at cutover (the mover's fence →
// publish time, and the longest write the application saw), and write throughput during a
// move against idle. Source and target are two databases of the benchmark MariaDB; the
// topology store is its contract's two tables, written by hand.
import mysql from 'mysql2/promise';
import { Mover, TopologyStore, crc32, isFencedError } from 'typeorm-sharding';
import { MARIADB } from '../lib/mariadb.mjs';
import { canStartMariadb, startServers } from '../../packages/mariadb-cluster/dist/index.js';

// The mover needs a ROW binlog: the benchmark server when it has one, else a mariadbd of this
// case's own (the machine's MariaDB on 3306 is started without --log-bin).
let SERVER = MARIADB;
import { log, percentile, sleep } from '../lib/util.mjs';

const DB = { meta: 'bench_move_meta', s0: 'bench_move_s0', s1: 'bench_move_s1', plain: 'bench_move_plain' };
const MOVING = { from: 0, to: 255 };
const bucketOf = (id) => crc32(Buffer.from(String(id), 'utf8')) % 1024;
const ITEMS = 'CREATE TABLE items (id BIGINT PRIMARY KEY, name VARCHAR(40) NOT NULL, amount DECIMAL(12,2) NULL, note VARCHAR(64) NULL) ENGINE=InnoDB';

async function fresh(admin, rows) {
  for (const db of Object.values(DB)) await admin.query(`DROP DATABASE IF EXISTS \`${db}\``);
  for (const db of [DB.s0, DB.plain]) {
    await admin.query(`CREATE DATABASE \`${db}\``);
    await admin.query(`USE \`${db}\``);
    await admin.query(ITEMS);
  }
  const doc = { version: 1, bucketCount: 1024, shards: [{ name: 's0', server: 'main', database: DB.s0 }], bucketMap: [{ from: 0, to: 1023, shard: 's0' }] };
  const store = new TopologyStore(admin, 'mysql', DB.meta);
  await store.ensureTables();
  await store.publishInitial(doc);
  for (let at = 1; at <= rows; at += 5000) {
    const ids = Array.from({ length: Math.min(5000, rows - at + 1) }, (_, i) => at + i);
    await admin.query(`INSERT INTO \`${DB.s0}\`.items (id, name, amount, note) VALUES ?`, [ids.map((id) => [id, `name ${id}`, (id % 1000) / 10, 'x'.repeat(40)])]);
  }
}

const mover = () => new Mover({ servers: { main: { host: SERVER.host, port: SERVER.port, user: SERVER.user, password: SERVER.password } }, meta: { server: 'main', database: DB.meta }, tables: [{ table: 'items', kind: 'sharded', keyColumn: 'id', keyKind: 'integer' }], serverIdBase: 4_800_000 });

/** Writers on ids of the moving buckets and others, routing by the topology they know and retrying fenced writes. */
function writers(count, rows) {
  let running = true;
  const latencies = [];
  let ops = 0;
  const loops = Array.from({ length: count }, async (_, w) => {
    const conns = new Map();
    const meta = await mysql.createConnection({ ...SERVER, database: DB.meta });
    let doc;
    const refresh = async () => {
      const [r] = await meta.query('SELECT document FROM tsh_topology ORDER BY version DESC LIMIT 1');
      doc = JSON.parse(r[0].document);
    };
    await refresh();
    const connOf = async (id) => {
      const b = bucketOf(id);
      const shard = doc.shards.find((s) => s.name === doc.bucketMap.find((m) => b >= m.from && b <= m.to).shard);
      if (!conns.has(shard.database)) conns.set(shard.database, await mysql.createConnection({ ...SERVER, database: shard.database }));
      return conns.get(shard.database);
    };
    let n = w;
    while (running) {
      const id = 1 + ((n += 7919) % rows);
      const t = performance.now();
      for (;;) {
        try {
          await (await connOf(id)).query('UPDATE items SET amount = amount + 1 WHERE id = ?', [id]);
          break;
        } catch (e) {
          if (!isFencedError(e)) throw e;
          await sleep(2);
          await refresh();
        }
      }
      latencies.push({ at: t, ms: performance.now() - t, moving: bucketOf(id) >= MOVING.from && bucketOf(id) <= MOVING.to });
      ops++;
    }
    await meta.end();
    for (const c of conns.values()) await c.end();
  });
  return { latencies, ops: () => ops, stop: async () => { running = false; await Promise.all(loops); } };
}

export async function runResharding(ctx) {
  const own = (await hasRowBinlog(MARIADB)) ? undefined : canStartMariadb() ? await startServers(1) : undefined;
  if (own) SERVER = { ...MARIADB, host: '127.0.0.1', port: own.primary.port, user: 'root', password: '' };
  try {
    return await measureResharding(ctx);
  } finally {
    await own?.stop();
    SERVER = MARIADB;
  }
}

async function hasRowBinlog(server) {
  const c = await mysql.createConnection(server);
  try {
    const [[row]] = await c.query('SELECT @@log_bin AS on_, @@binlog_format AS format, @@binlog_row_image AS image');
    return Number(row.on_) === 1 && row.format === 'ROW' && row.image === 'FULL';
  } finally {
    await c.end();
  }
}

async function measureResharding(ctx) {
  const { cfg } = ctx;
  const rows = cfg.quick ? 20_000 : 200_000;
  const trials = cfg.quick ? 3 : 10;
  const admin = await mysql.createConnection(SERVER);
  try {
    // Copy: the mover (chunked by primary key, a snapshot, bucket filter, upserts, progress rows).
    await fresh(admin, rows);
    const m = mover();
    const id = await m.plan({ source: 's0', target: 's1', ranges: [MOVING], newShard: { server: 'main', database: DB.s1 } });
    let t = performance.now();
    const status = await m.start(id, { chunkRows: 1000 });
    const moverSeconds = (performance.now() - t) / 1000;
    const copied = status.rowsCopied;
    await m.close();
    // The same rows by one INSERT … SELECT with the same bucket filter.
    t = performance.now();
    const [r] = await admin.query(`INSERT INTO \`${DB.plain}\`.items SELECT * FROM \`${DB.s0}\`.items WHERE (CRC32(CAST(id AS CHAR)) % 1024) BETWEEN ${MOVING.from} AND ${MOVING.to}`);
    const plainSeconds = (performance.now() - t) / 1000;
    log(`[resharding] copy: mover ${copied} rows in ${moverSeconds.toFixed(2)} s (includes its catch-up), INSERT … SELECT ${r.affectedRows} rows in ${plainSeconds.toFixed(2)} s`);

    // Cutover pauses: a move under 8 writers per trial.
    const pauses = [];
    const stalls = [];
    let idleRate;
    let movingRate;
    for (let trial = 0; trial < trials; trial++) {
      await fresh(admin, Math.min(rows, 20_000));
      const w = writers(8, Math.min(rows, 20_000));
      await sleep(500);
      if (trial === 0) {
        const before = w.ops();
        await sleep(1000);
        idleRate = w.ops() - before;
      }
      const mv = mover();
      const moveId = await mv.plan({ source: 's0', target: 's1', ranges: [MOVING], newShard: { server: 'main', database: DB.s1 } });
      const opsAtStart = w.ops();
      const startedAt = performance.now();
      await mv.start(moveId, { chunkRows: 1000 });
      const switchAt = performance.now();
      const s = await mv.switch(moveId);
      const switchEnd = performance.now();
      if (trial === 0) movingRate = (w.ops() - opsAtStart) / ((switchEnd - startedAt) / 1000);
      await sleep(200);
      await w.stop();
      await mv.close();
      pauses.push(s.lastPauseMs);
      const during = w.latencies.filter((l) => l.moving && l.at >= switchAt - 50 && l.at <= switchEnd);
      stalls.push(Math.max(0, ...during.map((l) => l.ms)));
    }
    const sorted = (a) => [...a].sort((x, y) => x - y);
    return {
      rows: copied,
      moverRowsPerSecond: copied / moverSeconds,
      plainRowsPerSecond: r.affectedRows / plainSeconds,
      pauseP50: percentile(sorted(pauses), 50),
      pauseP99: percentile(sorted(pauses), 99),
      stallP50: percentile(sorted(stalls), 50),
      stallP99: percentile(sorted(stalls), 99),
      trials,
      idleWritesPerSecond: idleRate,
      movingWritesPerSecond: movingRate,
    };
  } finally {
    for (const db of Object.values(DB)) await admin.query(`DROP DATABASE IF EXISTS \`${db}\``).catch(() => undefined);
    await admin.end();
  }
}
