import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstBuckets, Mover, type MoverOptions, type Placement } from '../packages/typeorm-sharding/src/index.js';
import { canStartMariadb, startServers, type MariadbCluster } from './support/mariadb-cluster.js';
import { App, bucketOfKey, createWorld, dropWorld, itemsOf, ledgerState, serverConn, TABLES, type LedgerEntry, type Server } from './support/resharding-env.js';

// Issue 17's ledger test on two mariadbd servers (ports 3620–3621): while 16 clients write
// (upserts, deletes, two-row transactions across the shards of one server) and read, move a
// quarter of s0's buckets to a new shard on the second server (which held no shard), then split
// s1 in two onto it too. Afterwards every acknowledged write is on the shard the final map names, exactly
// once; nothing of the moved buckets is left on the old shards after `complete`; and the union
// of the shards equals one plain database that received the same ledger.

const PORTS = [3620, 3621];
const CLIENTS = 16;
const IDS_PER_CLIENT = 60;
const DB = { meta: 'tsh_ledger_meta', s0: 'tsh_ledger_s0', s1: 'tsh_ledger_s1', s2: 'tsh_ledger_s2', s3: 'tsh_ledger_s3', oracle: 'tsh_ledger_oracle' };

describe.runIf(canStartMariadb())('16 clients and two online moves onto a second server', () => {
  let cluster: MariadbCluster;
  let servers: Server[];
  beforeAll(async () => {
    cluster = await startServers(2, { ports: PORTS });
    servers = [cluster.primary, ...cluster.replicas].map((n, i) => ({ name: `db${i}`, host: '127.0.0.1', port: n.port, user: 'root', password: '' }));
  }, 120_000);
  afterAll(async () => {
    if (servers) await dropWorld(servers[0]!, DB.meta, servers, Object.values(DB)).catch(() => undefined);
    await cluster?.stop();
  });

  it('loses no write, doubles none, and leaves nothing behind', async () => {
    const v1: Placement = {
      version: 1,
      bucketCount: 1024,
      shards: [
        { name: 's0', server: 'db0', database: DB.s0 },
        { name: 's1', server: 'db0', database: DB.s1 },
      ],
      bucketMap: [
        { from: 0, to: 511, shard: 's0' },
        { from: 512, to: 1023, shard: 's1' },
      ],
    };
    await createWorld(servers[0]!, DB.meta, v1, servers);
    const options: MoverOptions = { servers: Object.fromEntries(servers.map((s) => [s.name, s])), meta: { server: 'db0', database: DB.meta }, tables: TABLES, serverIdBase: 4_900_000 };
    const mover = new Mover(options);
    const seeder = await App.open(servers[0]!, DB.meta, servers);
    await seeder.seed(CLIENTS * IDS_PER_CLIENT);

    // Each client owns the ids ≡ its number (mod 16), so one client's ledger orders each row's writes.
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => App.open(servers[0]!, DB.meta, servers)));
    let running = true;
    const loops = clients.map(async (app, c) => {
      let x = 17 + c;
      const rand = () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
      const id = () => c + 1 + CLIENTS * Math.floor(rand() * IDS_PER_CLIENT * 1.2);
      let n = 0;
      while (running) {
        const r = rand();
        if (r < 0.15) await app.remove(id());
        else if (r < 0.3) await app.pair(id(), id(), `t${c}_${n}`, (rand() * 100).toFixed(2));
        else if (r < 0.45) await app.read(id());
        else await app.upsert(id(), `u${c}_${n}`, (rand() * 100).toFixed(2));
        n++;
      }
    });

    // A quarter of s0's buckets to a new shard on a new server.
    const quarter = firstBuckets(v1, 's0', 128);
    const m1 = await mover.plan({ source: 's0', target: 's2', ranges: quarter, newShard: { server: 'db1', database: DB.s2 } });
    await mover.start(m1, { chunkRows: 100 });
    expect(Object.values(await mover.verify(m1)).every((r) => r.mismatches.length === 0)).toBe(true);
    const pause1 = (await mover.switch(m1)).lastPauseMs!;
    await mover.complete(m1, { clientTimeoutMs: 2000 });
    // Split s1: its upper half to a new shard on the second server.
    const m2 = await mover.split('s1', 's3', 'db1', DB.s3);
    await mover.start(m2, { chunkRows: 100 });
    expect(Object.values(await mover.verify(m2)).every((r) => r.mismatches.length === 0)).toBe(true);
    const pause2 = (await mover.switch(m2)).lastPauseMs!;
    await new Promise((r) => setTimeout(r, 200));
    running = false;
    await Promise.all(loops);
    await mover.complete(m2, { clientTimeoutMs: 2000 });

    const ledger: LedgerEntry[] = [...seeder.ledger, ...clients.flatMap((c) => c.ledger)];
    await seeder.refresh();
    const placement = seeder.placement;
    expect(placement.version).toBe(3);
    expect(placement.bucketMap).toEqual([
      { from: 0, to: 127, shard: 's2' },
      { from: 128, to: 511, shard: 's0' },
      { from: 512, to: 767, shard: 's1' },
      { from: 768, to: 1023, shard: 's3' },
    ]);
    const shardRows = new Map<string, Map<number, string>>();
    for (const shard of placement.shards) shardRows.set(shard.name, await itemsOf(servers.find((s) => s.name === shard.server)!, shard.database));
    // Every row is on the shard the final map names, and on no other.
    for (const [shard, rows] of shardRows) for (const key of rows.keys()) expect([key, seeder.shardOf(key)]).toEqual([key, shard]);
    // The oracle: one plain database that received the same ledger, compared in full.
    const o = await serverConn(servers[0]!);
    await o.query(`CREATE DATABASE ${DB.oracle}`);
    await o.query(`CREATE TABLE ${DB.oracle}.items (id BIGINT PRIMARY KEY, name VARCHAR(40) NOT NULL, amount DECIMAL(12,2) NULL, note VARCHAR(40) NULL)`);
    await o.query('START TRANSACTION'); // one commit: the replay is thousands of statements
    for (const e of ledger) {
      if (e.op === 'delete') await o.query(`DELETE FROM ${DB.oracle}.items WHERE id = ?`, [e.id]);
      else await o.query(`INSERT INTO ${DB.oracle}.items (id, name, amount) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE name = VALUES(name), amount = VALUES(amount)`, [e.id, e.name, e.amount]);
    }
    await o.query('COMMIT');
    await o.end();
    const union = new Map<number, string>();
    for (const rows of shardRows.values()) for (const [k, v] of rows) union.set(k, v);
    expect(union.size).toBe([...shardRows.values()].reduce((n, r) => n + r.size, 0));
    const oracle = await itemsOf(servers[0]!, DB.oracle);
    expect(new Map([...union].sort((a, b) => a[0] - b[0]))).toEqual(new Map([...oracle].sort((a, b) => a[0] - b[0])));
    expect(oracle).toEqual(ledgerState(ledger));
    // Nothing of the moved buckets is left on the old shards.
    expect([...shardRows.get('s0')!.keys()].filter((k) => bucketOfKey(k) <= 127)).toEqual([]);
    expect([...shardRows.get('s1')!.keys()].filter((k) => bucketOfKey(k) >= 768)).toEqual([]);
    const retries = clients.reduce((n, c) => n + c.fencedRetries, 0);
    console.log(`ledger: ${ledger.length} writes by ${CLIENTS} clients; fenced retries ${retries}; write pause at the two cutovers ${pause1} ms, ${pause2} ms`);
    await mover.close();
    await Promise.all([seeder, ...clients].map((c) => c.close()));
  });
});
