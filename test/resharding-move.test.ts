import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mover, type Placement } from '../packages/typeorm-sharding/src/index.js';
import { binlogMariadb } from './support/binlog-mariadb.js';
import { App, bucketOfKey, createWorld, dropWorld, itemsOf, ledgerState, serverConn, TABLES, writeLoop, type Server } from './support/resharding-env.js';

// The online move on one MariaDB (the private test server): copy under writes, catch-up,
// verify (and a row changed behind its back), the fenced switch with an application that
// retries, rollback with every post-switch write back on the old shard, complete, cancel.

// The mover needs a ROW binlog: a mariadbd of this file's own (port 3622), not the machine's MariaDB.
const BINLOG = await binlogMariadb(3622);
const MARIADB = BINLOG.server;
const available = BINLOG.available;
afterAll(() => BINLOG.stop());
const P = `tsh_mv_${process.pid}`;
const SERVER: Server = { name: 'main', ...MARIADB };
const DB = { s0: `${P}_s0`, s1: `${P}_s1`, s2: `${P}_s2`, meta: `${P}_meta` };
const V1: Placement = {
  version: 1,
  bucketCount: 1024,
  shards: [
    { name: 's0', server: 'main', database: DB.s0 },
    { name: 's1', server: 'main', database: DB.s1 },
  ],
  bucketMap: [
    { from: 0, to: 511, shard: 's0' },
    { from: 512, to: 1023, shard: 's1' },
  ],
};
const mover = (): Mover => new Mover({ servers: { main: SERVER }, meta: { server: 'main', database: DB.meta }, tables: TABLES, serverIdBase: 4_100_000 + (process.pid % 1000) * 100 });

describe.runIf(available)('online move on MariaDB', () => {
  let app: App;
  beforeAll(async () => {
    await createWorld(SERVER, DB.meta, V1, [SERVER]);
    app = await App.open(SERVER, DB.meta, [SERVER]);
    await app.seed(600);
    const c = await serverConn(SERVER, DB.s0);
    await c.query("INSERT INTO tags VALUES ('alpha', 1), ('beta', 2), ('gamma', 3), ('delta', 4)");
    await c.end();
  });
  afterAll(async () => {
    await app?.close();
    await dropWorld(SERVER, DB.meta, [SERVER], Object.values(DB));
  });

  it('moves buckets 0–127 of s0 to a new shard while writes go on, verifies, switches and rolls back with no write lost', async () => {
    const m = mover();
    const id = await m.plan({ source: 's0', target: 's2', ranges: [{ from: 0, to: 127 }], newShard: { server: 'main', database: DB.s2 } });
    const writes = writeLoop(app, 800, 7);
    await m.start(id, { chunkRows: 50 });
    const verified = await m.verify(id);
    expect(verified.items!.mismatches).toEqual([]);
    expect(verified.items!.rows).toBeGreaterThan(0);
    const switched = await m.switch(id);
    expect(switched.move.state).toBe('switched');
    const afterSwitch = app.ledger.length;
    await new Promise((r) => setTimeout(r, 300));
    await writes.stop();
    await app.refresh();
    expect(app.placement.version).toBe(2);
    expect(app.placement.bucketMap).toContainEqual({ from: 0, to: 127, shard: 's2' });

    // After the switch: every ledger entry is on the shard the new map names.
    const expected = ledgerState(app.ledger);
    const [s0, s1, s2] = [await itemsOf(SERVER, DB.s0), await itemsOf(SERVER, DB.s1), await itemsOf(SERVER, DB.s2)];
    for (const [key, value] of expected) {
      const shard = app.shardOf(key);
      const holder = shard === 's0' ? s0 : shard === 's1' ? s1 : s2;
      expect([key, holder.get(key)]).toEqual([key, value]);
    }
    for (const key of s2.keys()) expect(expected.has(key)).toBe(true);
    // The broadcast table reached the new shard.
    const c2 = await serverConn(SERVER, DB.s2);
    const [regions] = await c2.query('SELECT code FROM regions ORDER BY code');
    await c2.end();
    expect((regions as { code: string }[]).map((r) => r.code)).toEqual(['eu', 'us']);
    expect(app.ledger.length).toBeGreaterThan(afterSwitch);

    // Rollback: the old map is back and every write made after the switch is on s0.
    const rolled = await m.rollback(id);
    expect(rolled.move.state).toBe('rolled_back');
    await app.refresh();
    expect(app.placement.version).toBe(3);
    expect(app.placement.bucketMap).toEqual(V1.bucketMap);
    const s0After = await itemsOf(SERVER, DB.s0);
    for (const [key, value] of ledgerState(app.ledger)) if (app.shardOf(key) === 's0') expect([key, s0After.get(key)]).toEqual([key, value]);
    for (const key of s0After.keys()) expect(app.shardOf(key)).toBe('s0');
    // The target no longer holds the moved rows.
    expect([...(await itemsOf(SERVER, DB.s2)).keys()].filter((k) => bucketOfKey(k) <= 127)).toEqual([]);
    await m.close();
  });

  it('verify names a row changed behind its back on the target, and complete empties the source', async () => {
    const m = mover();
    const id = await m.plan({ source: 's0', target: 's2', ranges: [{ from: 200, to: 263 }] });
    await m.start(id);
    const moved = [...(await itemsOf(SERVER, DB.s0)).keys()].filter((k) => bucketOfKey(k) >= 200 && bucketOfKey(k) <= 263);
    expect(moved.length).toBeGreaterThan(2);
    const c2 = await serverConn(SERVER, DB.s2);
    // An accent-insensitive collation would call these equal; the verify compares bytes.
    await c2.query('UPDATE items SET name = UPPER(name) WHERE id = ?', [moved[0]]);
    await c2.query('DELETE FROM items WHERE id = ?', [moved[1]]);
    const result = await m.verify(id);
    expect(result.items!.mismatches).toEqual(
      expect.arrayContaining([
        { key: [String(moved[0])], kind: 'differs' },
        { key: [String(moved[1])], kind: 'missing' },
      ]),
    );
    expect(result.items!.mismatches).toHaveLength(2);
    expect((await m.status(id)).move.state).toBe('catching_up');
    // Repair by hand, verify passes, switch, complete.
    await c2.query('DELETE FROM items WHERE id = ?', [moved[0]]);
    const c0 = await serverConn(SERVER, DB.s0);
    await c0.query('UPDATE items SET note = ? WHERE id IN (?)', ['touched', [moved[0], moved[1]]]);
    await c0.end();
    await c2.end();
    expect((await m.verify(id)).items!.mismatches).toEqual([]);
    await m.switch(id);
    const done = await m.complete(id, { clientTimeoutMs: 1000 });
    expect(done.move.state).toBe('completed');
    const left = [...(await itemsOf(SERVER, DB.s0)).keys()].filter((k) => bucketOfKey(k) >= 200 && bucketOfKey(k) <= 263);
    expect(left).toEqual([]);
    for (const k of moved) expect((await itemsOf(SERVER, DB.s2)).has(k)).toBe(true);
    // No range of s0 is fenced any more: its triggers are gone.
    const c = await serverConn(SERVER);
    const [triggers] = await c.query('SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ?', [DB.s0]);
    await c.end();
    expect(triggers).toEqual([]);
    await m.close();
  });

  it('cancel before the switch leaves the source untouched and cleans the target', async () => {
    const m = mover();
    const before = await itemsOf(SERVER, DB.s1);
    const id = await m.plan({ source: 's1', target: 's3', ranges: [{ from: 600, to: 700 }], newShard: { server: 'main', database: `${P}_s3` } });
    await m.start(id);
    const cancelled = await m.cancel(id);
    expect(cancelled.move.state).toBe('cancelled');
    expect(await itemsOf(SERVER, DB.s1)).toEqual(before);
    const c = await serverConn(SERVER);
    const [dbs] = await c.query('SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [`${P}_s3`]);
    await c.end();
    expect(dbs).toEqual([]);
    await expect(m.switch(id)).rejects.toMatchObject({ problem: 'bad-state' });
    await m.close();
  });
});
