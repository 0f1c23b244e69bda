import 'reflect-metadata';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bucketSql,
  crc32,
  installFence,
  publishTopology,
  releaseFence,
  ShardedDataSource,
  Sharded,
  ShardKey,
  ShardingConfigError,
  TopologyChangedError,
  TopologyConflictError,
  TopologyDocumentError,
  type TopologyDocument,
} from '../../packages/typeorm-sharding/src/index.js';
import { ensureLibraryBuilt } from '../support/built-library.js';
import { createDatabases, dropDatabases, MARIADB, mariadbAvailable } from '../support/mariadb.js';

// The topology as shared, versioned data on MariaDB: two application processes share one store;
// one of them (a child process that never polls) learns of a move only from the fence.

@Entity('topo_ledger')
@Sharded()
class Ledger {
  @PrimaryColumn('bigint') @ShardKey() id!: string;
  @Column('varchar', { length: 20 }) writer!: string;
}

const here = dirname(fileURLToPath(import.meta.url));
const P = `tsh_topo_${process.pid}`;
const DB = { s0: `${P}_s0`, s1: `${P}_s1`, s2: `${P}_s2`, meta: `${P}_meta` };
const bucketOf = (key: string | number) => crc32(Buffer.from(String(key), 'utf8')) % 1024;
/** v1 (from the configuration): s0 0–511, s1 512–1023. The move: 100–199 from s0 to the new shard s2. */
const MOVE = { from: 100, to: 199 };
const inMove = (id: number) => bucketOf(id) >= MOVE.from && bucketOf(id) <= MOVE.to;
const onS0Unmoved = (id: number) => bucketOf(id) < 512 && !inMove(id);
const SHARDS = [
  { name: 's0', server: 'main', database: DB.s0 },
  { name: 's1', server: 'main', database: DB.s1 },
];
const S2 = { name: 's2', server: 'main', database: DB.s2 };

/** The next `count` ids from `start` on that satisfy `test`. */
function ids(test: (id: number) => boolean, count: number, start = 1): number[] {
  const found: number[] = [];
  for (let id = start; found.length < count; id++) if (test(id)) found.push(id);
  return found;
}

function source(sharding: Record<string, unknown> = {}): ShardedDataSource {
  return new ShardedDataSource({
    type: 'mariadb',
    entities: [Ledger],
    synchronize: true,
    servers: [{ name: 'main', host: MARIADB.host, port: MARIADB.port, username: MARIADB.user, password: '' }],
    shards: SHARDS,
    sharding: { topology: { server: 'main', database: DB.meta, refreshMs: 50, ...sharding } },
  } as never);
}

/** A child process writing through its own ShardedDataSource (test/topology/support/writer.mjs). */
class Writer {
  private readonly answers: AsyncIterator<string>;
  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    this.answers = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  }
  static async start(): Promise<Writer> {
    const config = { port: MARIADB.port, shards: SHARDS.map(({ name, database }) => ({ name, database })), meta: DB.meta };
    const child = spawn(process.execPath, [join(here, 'support', 'writer.mjs')], { env: { ...process.env, CONFIG: JSON.stringify(config) } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const writer = new Writer(child);
    const ready = await writer.next();
    if (!ready?.['ready']) throw new Error(`writer did not start: ${stderr}`);
    return writer;
  }
  async next(): Promise<Record<string, unknown> | undefined> {
    const line = await this.answers.next();
    return line.done ? undefined : (JSON.parse(line.value) as Record<string, unknown>);
  }
  async insert(id: number): Promise<Record<string, unknown> | undefined> {
    this.child.stdin.write(`${JSON.stringify({ op: 'insert', id })}\n`);
    return this.next();
  }
  /** Asks the writer to destroy its data source and exit; SIGKILL if it has not within 20 s. */
  async exit(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end(`${JSON.stringify({ op: 'exit' })}\n`);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }
}

const available = await mariadbAvailable();

describe.skipIf(!available)('shared topology on MariaDB', () => {
  let conn: mysql.Connection;
  let a: ShardedDataSource;

  /** Ids of topo_ledger in one shard database, read directly. */
  async function idsIn(database: string): Promise<number[]> {
    const [rows] = await conn.query(`SELECT id FROM \`${database}\`.topo_ledger ORDER BY id`);
    return (rows as { id: string | number }[]).map((r) => Number(r.id));
  }

  async function current(): Promise<TopologyDocument> {
    const [rows] = await conn.query(`SELECT document FROM \`${DB.meta}\`.tsh_topology ORDER BY version DESC LIMIT 1`);
    return JSON.parse((rows as { document: string }[])[0]!.document) as TopologyDocument;
  }

  beforeAll(async () => {
    ensureLibraryBuilt();
    await createDatabases([DB.s0, DB.s1, DB.s2]);
    conn = await mysql.createConnection({ ...MARIADB });
    await conn.query(`DROP DATABASE IF EXISTS \`${DB.meta}\``);
    a = await source().initialize();
    await conn.query(`CREATE TABLE \`${DB.s2}\`.topo_ledger LIKE \`${DB.s0}\`.topo_ledger`);
  });

  afterAll(async () => {
    if (a?.isInitialized) await a.destroy();
    await conn?.query(`DROP DATABASE IF EXISTS \`${DB.meta}\``);
    await conn?.end();
    await dropDatabases([DB.s0, DB.s1, DB.s2]);
  });

  it('data sources initialising at once on an empty store agree on one version 1', async () => {
    const meta = `${P}_race`;
    const racing = () => new ShardedDataSource({ type: 'mariadb', entities: [Ledger], servers: [{ name: 'main', host: MARIADB.host, port: MARIADB.port, username: MARIADB.user, password: '' }], shards: SHARDS, sharding: { topology: { database: meta } } } as never);
    const sources = [racing(), racing(), racing()];
    try {
      await Promise.all(sources.map((ds) => ds.initialize()));
      expect(sources.map((ds) => ds.topology.version)).toEqual([1, 1, 1]);
      const [rows] = await conn.query(`SELECT version FROM \`${meta}\`.tsh_topology`);
      expect(rows).toEqual([{ version: 1 }]);
      const [clients] = await conn.query(`SELECT COUNT(*) AS n FROM \`${meta}\`.tsh_topology_clients`);
      expect(clients).toEqual([{ n: 3 }]);
    } finally {
      for (const ds of sources) if (ds.isInitialized) await ds.destroy();
      await conn.query(`DROP DATABASE IF EXISTS \`${meta}\``);
    }
  });

  it('initialize() publishes version 1 from the configuration and heartbeats it', async () => {
    expect(a.topology.version).toBe(1);
    expect(await current()).toEqual({ version: 1, bucketCount: 1024, shards: SHARDS, bucketMap: [{ from: 0, to: 511, shard: 's0' }, { from: 512, to: 1023, shard: 's1' }] });
    const [clients] = await conn.query(`SELECT version FROM \`${DB.meta}\`.tsh_topology_clients`);
    expect(clients).toEqual([{ version: 1 }]);
  });

  it('a process that has not seen the move is refused by the fence, refreshes, and writes to the new shard', async () => {
    const b = await Writer.start();
    try {
      const [moved1, moved2] = ids(inMove, 2);
      const [unmoved] = ids(onS0Unmoved, 1);
      expect(await b.insert(moved1!)).toEqual({ ok: true, version: 1 });
      expect(await idsIn(DB.s0)).toContain(moved1);

      // The move, by hand: copy the buckets, fence source and target, publish version 2, open the target.
      const ranges = [MOVE];
      const tables = [{ table: 'topo_ledger', keyColumn: 'id', keyKind: 'integer' as const }];
      await installFence(conn, { database: DB.s2, tables, bucketCount: 1024, ranges, version: 2 });
      await installFence(conn, { database: DB.s0, tables, bucketCount: 1024, ranges, version: 2 });
      const bucket = bucketSql('id', 'integer', 1024);
      await conn.query('SET @tsh_fence_bypass = 1');
      await conn.query(`INSERT INTO \`${DB.s2}\`.topo_ledger SELECT * FROM \`${DB.s0}\`.topo_ledger WHERE ${bucket} BETWEEN ? AND ?`, [MOVE.from, MOVE.to]);
      await conn.query('SET @tsh_fence_bypass = NULL');
      const v2: TopologyDocument = {
        version: 2,
        bucketCount: 1024,
        shards: [...SHARDS, S2],
        bucketMap: [
          { from: 0, to: 99, shard: 's0' },
          { from: 100, to: 199, shard: 's2' },
          { from: 200, to: 511, shard: 's0' },
          { from: 512, to: 1023, shard: 's1' },
        ],
      };
      await publishTopology(conn, v2, 'move 100-199 to s2', { database: DB.meta });
      await releaseFence(conn, { database: DB.s2, ranges });

      // A write to an unmoved bucket of the fenced shard passes at once: B is still on version 1.
      expect(await b.insert(unmoved!)).toEqual({ ok: true, version: 1 });
      expect(await idsIn(DB.s0)).toContain(unmoved);
      // A write to a moved bucket: refused on s0, B refreshes, the row lands on s2.
      expect(await b.insert(moved2!)).toEqual({ ok: true, version: 2 });
      expect(await idsIn(DB.s2)).toEqual(expect.arrayContaining([moved1, moved2]));
      expect(await idsIn(DB.s0)).not.toContain(moved2);

      // A (polling) has adopted version 2 as well; both processes heartbeat it.
      await a.topology.refresh();
      expect(a.topology.version).toBe(2);
      expect(a.shardNames).toEqual(['s0', 's1', 's2']);
      expect(a.shardOf(Ledger, String(moved1))).toBe('s2');
      expect((await a.getRepository(Ledger).findOneBy({ id: String(moved2) }))?.writer).toBe('B');
      const [clients] = await conn.query(`SELECT version FROM \`${DB.meta}\`.tsh_topology_clients ORDER BY client_id`);
      expect(clients).toEqual([{ version: 2 }, { version: 2 }]);
    } finally {
      await b.exit();
    }
    // B's destroy() removed its client row.
    const [clients] = await conn.query(`SELECT COUNT(*) AS n FROM \`${DB.meta}\`.tsh_topology_clients`);
    expect(clients).toEqual([{ n: 1 }]);
  });

  it('a fenced write inside a transaction fails with TopologyChangedError; an autocommit one gives up after fenceRetryMs', async () => {
    // s0 keeps its fence on 100–199 (until the move completes); fence 300–309 too, for a version nobody publishes.
    await installFence(conn, { database: DB.s0, tables: [{ table: 'topo_ledger', keyColumn: 'id', keyKind: 'integer' }], bucketCount: 1024, ranges: [{ from: 300, to: 309 }], version: 9 });
    const c = await source({ refreshMs: 2_000_000_000, fenceRetryMs: 0 }).initialize();
    try {
      const [fenced] = ids((id) => bucketOf(id) >= 300 && bucketOf(id) <= 309, 1);
      const inTransaction = await c.transaction((m) => m.getRepository(Ledger).insert({ id: String(fenced), writer: 'C' })).then(() => undefined, (e: unknown) => e);
      expect(inTransaction).toBeInstanceOf(TopologyChangedError);
      expect(inTransaction).toMatchObject({ retryable: true, fenceVersion: 9, bucket: bucketOf(fenced!), code: 'SHARDING_TOPOLOGY_CHANGED' });
      const autocommit = await c.getRepository(Ledger).insert({ id: String(fenced), writer: 'C' }).then(() => undefined, (e: unknown) => e);
      expect(autocommit).toBeInstanceOf(TopologyChangedError);
      expect(await idsIn(DB.s0)).not.toContain(fenced);
    } finally {
      await c.destroy();
      await releaseFence(conn, { database: DB.s0, ranges: [{ from: 300, to: 309 }] });
    }
  });

  it('a data source started while version 3 is current routes by version 3, not by its configuration', async () => {
    const v2 = await current();
    const v3: TopologyDocument = { ...v2, version: 3, bucketMap: [{ from: 0, to: 99, shard: 's0' }, { from: 100, to: 199, shard: 's2' }, { from: 200, to: 511, shard: 's0' }, { from: 512, to: 599, shard: 's2' }, { from: 600, to: 1023, shard: 's1' }] };
    // Refused: a stale base, a bucket owned twice, a shard on an unknown server.
    await expect(publishTopology(a, { ...v3, version: 2 })).rejects.toBeInstanceOf(TopologyConflictError);
    await expect(publishTopology(a, { ...v3, bucketMap: [...v3.bucketMap, { from: 0, to: 0, shard: 's1' }] })).rejects.toThrow(/overlap/);
    await expect(publishTopology(a, { ...v3, shards: [...SHARDS, { ...S2, name: 's3', server: 'elsewhere' }] })).rejects.toBeInstanceOf(TopologyDocumentError);
    // A transaction that began under version 2 keeps routing by it: A reports 2 until it ends.
    const runner = a.createQueryRunner();
    await runner.startTransaction();
    await runner.manager.getRepository(Ledger).count();
    await publishTopology(a, v3, 'hand 512-599 to s2');
    expect(a.topology.version).toBe(3);
    const reported = async () => ((await conn.query(`SELECT version FROM \`${DB.meta}\`.tsh_topology_clients`))[0] as { version: number }[]).map((r) => r.version);
    expect(await reported()).toEqual([2]);
    await runner.commitTransaction();
    await runner.release();
    await a.topology.refresh();
    expect(await reported()).toEqual([3]);
    const d = await source({ refreshMs: 2_000_000_000 }).initialize();
    try {
      expect(d.topology.version).toBe(3);
      expect(d.shardNames).toEqual(['s0', 's1', 's2']);
      const [key] = ids((id) => bucketOf(id) >= 512 && bucketOf(id) <= 599, 1, 100_000);
      expect(d.shardOf(Ledger, String(key))).toBe('s2');
      await d.getRepository(Ledger).insert({ id: String(key), writer: 'D' });
      expect(await idsIn(DB.s2)).toContain(key);
      expect(await idsIn(DB.s1)).not.toContain(key);
    } finally {
      await d.destroy();
    }
  });

  it('refuses a stored document naming a server the data source does not know, and entities the store cannot place', async () => {
    const v3 = await current();
    await publishTopology(conn, { ...v3, version: 4, shards: [...v3.shards, { name: 's9', server: 'other', database: 'x' }] }, 'a shard elsewhere', { database: DB.meta, servers: ['other'] });
    await expect(source({ refreshMs: 2_000_000_000 }).initialize()).rejects.toThrow(ShardingConfigError);
    await expect(source({ refreshMs: 2_000_000_000 }).initialize()).rejects.toThrow(/server "other", which this data source does not know/);
  });
});
