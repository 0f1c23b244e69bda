// Global unique indexes (issue 16): `findOneBy({ email })` routed through the lookup table
// against the same call scattered (the email listed in `uniquePerShard`: no lookup table) and
// against `findOneBy({ id })` — each read by email twice: its first read (nothing remembered: the
// lookup row, then the owner's) and a repeated one (the owner remembered: its shard straight
// away, `sharding.rememberedOwners`) — 64 shards, on one server and on two — the benchmark MariaDB
// reached as two servers (two pools), as the XA case does: every round trip is real, the network
// is loopback. Also inserts with one global unique index against without (the lookup row is a
// second write in the owner's transaction: local on one server, XA when the lookup row's shard
// is on the other server), and the ceiling of a lookup read: two raw mysql2 point reads in
// sequence against one.
import 'reflect-metadata';
import mysql from 'mysql2/promise';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { ShardedDataSource, Sharded, ShardKey } from 'typeorm-sharding';
import { alternate, pairedRatio } from '../lib/loop.mjs';
import { MARIADB } from '../lib/mariadb.mjs';
import { log } from '../lib/util.mjs';

export const GX_SHARDS = 64;
export const GX_CLIENTS = 16;
export const GX_TOPOLOGIES = ['one', 'two'];
export const GX_READS = ['lookup', 'remembered', 'scatter', 'byId', 'rawTwo', 'rawOne'];
export const GX_INSERTS = { one: ['insertPlain', 'insertIndexed'], two: ['insertPlain', 'insertIndexed', 'insertIndexedCross'] };
export const gxDatabase = (i) => `bench_gx_${i}`;

/** Users with a globally unique email (a lookup table). */
export class GUser {}
PrimaryColumn('int')(GUser.prototype, 'id');
ShardKey()(GUser.prototype, 'id');
Column({ type: 'varchar', length: 80, unique: true })(GUser.prototype, 'email');
Column({ type: 'varchar', length: 40 })(GUser.prototype, 'name');
Entity('bx_users')(GUser);
Sharded()(GUser);

/** The same users with the email unique per shard only: a read by email scatters, an insert writes one row. */
export class SUser {}
PrimaryColumn('int')(SUser.prototype, 'id');
ShardKey()(SUser.prototype, 'id');
Column({ type: 'varchar', length: 80, unique: true })(SUser.prototype, 'email');
Column({ type: 'varchar', length: 40 })(SUser.prototype, 'name');
Entity('bx_susers')(SUser);
Sharded({ uniquePerShard: ['email'] })(SUser);

const LOOKUP_TABLE = 'bx_users__gidx_email';

/** `one`: the 64 databases on one server; `two`: the same databases reached as two servers (even shards on a, odd on b). */
export function gxSource(topology, { poolSize = 24, onPhysicalQuery, rememberedOwners = 0 } = {}) {
  const server = { host: MARIADB.host, port: MARIADB.port, poolSize };
  return new ShardedDataSource({
    type: 'mariadb',
    username: MARIADB.user,
    password: MARIADB.password,
    entities: [GUser, SUser],
    servers: topology === 'one' ? [{ name: 'a', ...server }] : [{ name: 'a', ...server }, { name: 'b', ...server }],
    shards: Array.from({ length: GX_SHARDS }, (_, i) => ({ name: `s${i}`, server: topology === 'one' || i % 2 === 0 ? 'a' : 'b', database: gxDatabase(i) })),
    sharding: { rememberedOwners, ...(onPhysicalQuery ? { onPhysicalQuery } : {}) },
  });
}

/** Creates the databases and loads `users` rows into both tables (through the plugin: the lookup rows too). */
export async function gxPrepare(users) {
  const admin = await mysql.createConnection(MARIADB);
  for (let i = 0; i < GX_SHARDS; i++) {
    await admin.query(`DROP DATABASE IF EXISTS \`${gxDatabase(i)}\``);
    await admin.query(`CREATE DATABASE \`${gxDatabase(i)}\``);
  }
  await admin.end();
  const ds = await gxSource('one').initialize();
  try {
    await ds.synchronize();
    for (let from = 0; from < users; from += 500) {
      const rows = Array.from({ length: Math.min(500, users - from) }, (_, k) => ({ id: from + k + 1, email: `user${from + k + 1}@example.com`, name: `u${from + k + 1}` }));
      await ds.getRepository(GUser).insert(rows);
      await ds.getRepository(SUser).insert(rows);
    }
  } finally {
    await ds.destroy();
  }
}

export async function gxDrop() {
  const admin = await mysql.createConnection(MARIADB);
  for (let i = 0; i < GX_SHARDS; i++) await admin.query(`DROP DATABASE IF EXISTS \`${gxDatabase(i)}\``);
  await admin.end();
}

/**
 * The read variants of one data source (rows spread by a stride, so calls hit every shard).
 * `remembering`: a data source that remembers every user's owner (`rememberedOwners`), warmed
 * by `gxWarm`; `ds` remembers none, so its `lookup` always reads the lookup table first.
 */
export function gxReadOps(ds, users, raw, remembering = ds) {
  const rowOf = (i) => 1 + ((i * 7919) % users);
  const email = (i) => `user${rowOf(i)}@example.com`;
  const g = ds.getRepository(GUser);
  const s = ds.getRepository(SUser);
  const owner = (id) => ds.shardingRules.ruleOf('bx_users').shardKey.algorithm.shardIndexOf(id);
  const lookupShard = (value) => ds.shardingRules.ruleOf(LOOKUP_TABLE).shardKey.algorithm.shardIndexOf(value);
  const must = (label, row) => {
    if (!row) throw new Error(`${label}: no row`);
    return row;
  };
  return {
    lookup: async (i) => must('lookup', await g.findOneBy({ email: email(i) })),
    remembered: async (i) => must('remembered', await remembering.getRepository(GUser).findOneBy({ email: email(i) })),
    scatter: async (i) => must('scatter', await s.findOneBy({ email: email(i) })),
    byId: async (i) => must('byId', await g.findOneBy({ id: rowOf(i) })),
    // The ceiling: what a lookup read costs by hand (the lookup row, then the owner's row by its id and email) and one point read.
    rawTwo: async (i) => {
      const e = email(i);
      const [entries] = await raw.query(`SELECT \`id\` FROM \`${gxDatabase(lookupShard(e))}\`.\`${LOOKUP_TABLE}\` WHERE \`email\` = ?`, [e]);
      const id = must('rawTwo lookup', entries[0]).id;
      const [rows] = await raw.query(`SELECT \`id\`, \`email\`, \`name\` FROM \`${gxDatabase(owner(id))}\`.\`bx_users\` WHERE \`email\` = ? AND \`id\` = ? LIMIT 1`, [e, id]);
      return must('rawTwo owner', rows[0]);
    },
    rawOne: async (i) => {
      const id = rowOf(i);
      const [rows] = await raw.query(`SELECT \`id\`, \`email\`, \`name\` FROM \`${gxDatabase(owner(id))}\`.\`bx_users\` WHERE \`id\` = ? LIMIT 1`, [id]);
      return must('rawOne', rows[0]);
    },
  };
}

/**
 * Insert variants: new ids from `firstId` on (each call its own id). `insertIndexed` puts the
 * lookup row on the owner's server, `insertIndexedCross` on the other one (two servers only).
 */
function insertOps(ds, topology, firstId) {
  let next = firstId;
  const ownerShard = (id) => ds.shardingRules.ruleOf('bx_users').shardKey.algorithm.shardIndexOf(id);
  const lookupShard = (value) => ds.shardingRules.ruleOf(LOOKUP_TABLE).shardKey.algorithm.shardIndexOf(value);
  const serverOf = (shard) => (topology === 'one' ? 0 : shard % 2);
  const emailFor = (id, cross) => {
    for (let k = 0; ; k++) {
      const e = `new${id}x${k}@example.com`;
      if ((serverOf(lookupShard(e)) !== serverOf(ownerShard(id))) === cross) return e;
    }
  };
  const ops = {
    insertPlain: async () => {
      const id = next++;
      await ds.getRepository(SUser).insert({ id, email: `new${id}@example.com`, name: 'n' });
    },
    insertIndexed: async () => {
      const id = next++;
      await ds.getRepository(GUser).insert({ id, email: emailFor(id, false), name: 'n' });
    },
    insertIndexedCross: async () => {
      const id = next++;
      await ds.getRepository(GUser).insert({ id, email: emailFor(id, true), name: 'n' });
    },
  };
  return Object.fromEntries(GX_INSERTS[topology].map((k) => [k, ops[k]]));
}

/** What one call sends: round trips and shard statements (a coalesced UNION ALL is one round trip). */
async function shapes(topology, users) {
  const events = [];
  const ds = await gxSource(topology, { poolSize: 2, onPhysicalQuery: (e) => events.push(e), rememberedOwners: 10 }).initialize();
  try {
    const ops = gxReadOps(ds, users, undefined);
    const out = {};
    for (const key of ['lookup', 'remembered', 'scatter', 'byId']) {
      // remembered: the second read of one value (the first remembered its owner).
      await ops[key](key === 'remembered' ? 2 : 1);
      events.length = 0;
      await ops[key](2);
      out[key] = { roundTrips: events.length, statements: events.reduce((n, e) => n + (e.shards?.length ?? 1), 0) };
    }
    return out;
  } finally {
    await ds.destroy();
  }
}

/** Reads every user once by email on `ds`, 16 at a time, so that it remembers every owner. */
export async function gxWarm(ds, users) {
  const repo = ds.getRepository(GUser);
  let next = 1;
  const worker = async () => {
    for (let id = next++; id <= users; id = next++) await repo.findOneBy({ email: `user${id}@example.com` });
  };
  await Promise.all(Array.from({ length: GX_CLIENTS }, worker));
}

export async function runGlobalIndex(ctx) {
  const { cfg } = ctx;
  const users = cfg.quick ? 2_000 : 20_000;
  const timing = { reps: cfg.reps, warmupMs: cfg.warmupMs, durationMs: cfg.durationMs, minOps: cfg.warmupMs > 0 ? 20 : 1 };
  log(`[global-index] ${GX_SHARDS} shards, ${users} users`);
  await gxPrepare(users);
  const raw = mysql.createPool({ ...MARIADB, connectionLimit: 24 });
  const out = { shards: GX_SHARDS, clients: GX_CLIENTS, users, topologies: {} };
  let nextId = users + 1;
  try {
    for (const topology of GX_TOPOLOGIES) {
      const shape = await shapes(topology, users);
      const ds = await gxSource(topology).initialize();
      const remembering = await gxSource(topology, { rememberedOwners: users }).initialize();
      try {
        await gxWarm(remembering, users);
        const reads = gxReadOps(ds, users, raw, remembering);
        const readCell = await alternate(GX_READS.map((key) => ({ key, op: reads[key] })), { ...timing, clients: GX_CLIENTS });
        const inserts = insertOps(ds, topology, nextId);
        const insertCell = await alternate(Object.entries(inserts).map(([key, op]) => ({ key, op })), { ...timing, clients: GX_CLIENTS });
        nextId += 10_000_000;
        const r = (a, b) => pairedRatio(readCell[a], readCell[b]).value;
        log(`[global-index] ${topology} server(s): lookup/scatter throughput ${r('lookup', 'scatter').toFixed(2)}× (remembered ${r('remembered', 'scatter').toFixed(2)}×), lookup/byId time ${r('byId', 'lookup').toFixed(2)}× (remembered ${r('byId', 'remembered').toFixed(2)}×), raw two/one time ${r('rawOne', 'rawTwo').toFixed(2)}×; ` + Object.keys(inserts).map((k) => `${k}=${insertCell[k].error ? 'failed' : insertCell[k].qps.toFixed(0) + '/s'}`).join(' '));
        out.topologies[topology] = { shape, reads: readCell, inserts: insertCell };
      } finally {
        await ds.destroy();
        await remembering.destroy();
      }
    }
  } finally {
    await raw.end().catch(() => undefined);
    if (!cfg.keep) await gxDrop().catch(() => undefined);
  }
  return out;
}
