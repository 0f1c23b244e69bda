import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mover, placementAfterMove, type FaultPoint, type MoverOptions, type Placement } from '../packages/typeorm-sharding/src/index.js';
import { ensureLibraryBuilt } from './support/built-library.js';
import { binlogMariadb } from './support/binlog-mariadb.js';
import { App, bucketOfKey, createWorld, dropWorld, itemsOf, ledgerState, TABLES, writeLoop, type Server } from './support/resharding-env.js';

// SIGKILL the mover (a child process) at every phase — copy, catch-up, verify, fence, flip,
// reverse — while an application keeps writing: the restarted mover resumes (or, for the
// reverse phase, finishes its rollback) and every acknowledged write is on the shard the final
// map names, exactly once.
//
// By default (CI) one trial kills the same move at every phase in turn (each restart is
// killed at the next phase, then one runs to the switch, a rollback is killed in its reverse
// catch-up and run again). TSH_TRIALS=50 runs the count as separate trials, one kill
// each, cycling through the phases, each with its own databases.

// The mover needs a ROW binlog: a mariadbd of this file's own (port 3623), not the machine's MariaDB.
const BINLOG = await binlogMariadb(3623);
const MARIADB = BINLOG.server;
const available = BINLOG.available;
afterAll(() => BINLOG.stop());
const TRIALS = process.env.TSH_TRIALS === undefined ? 0 : Number(process.env.TSH_TRIALS);
const PHASES: readonly FaultPoint[] = ['copy', 'catch-up', 'verify', 'fence', 'flip', 'reverse'];
const SERVER: Server = { name: 'main', ...MARIADB };
const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'support', 'mover-child.mjs');
const P = `tsh_kill_${process.pid}`;

function runChild(options: MoverOptions, action: string, id: number, killAt?: FaultPoint, killAfter = 1): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, TSH_MOVER_OPTIONS: JSON.stringify(options), ...(killAt ? { TSH_KILL_AT: killAt, TSH_KILL_AFTER: String(killAfter) } : {}) };
    if (!killAt) delete env.TSH_KILL_AT;
    const child = spawn(process.execPath, [CHILD, action, String(id)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, out }));
  });
}

describe.runIf(available)('a mover killed at every phase', () => {
  beforeAll(() => ensureLibraryBuilt(), 120_000);
  const worlds: string[][] = [];
  afterAll(async () => {
    for (const dbs of worlds) await dropWorld(SERVER, dbs[0]!, [SERVER], dbs.slice(1));
  });

  const plans: { name: string; kills: readonly FaultPoint[] }[] =
    TRIALS === 0 ? [{ name: 'one move killed at every phase in turn', kills: PHASES }] : Array.from({ length: TRIALS }, (_, t) => ({ name: `trial ${t}: killed at ${PHASES[t % PHASES.length]}`, kills: [PHASES[t % PHASES.length]!] }));
  for (const [trial, plan] of plans.entries()) {
    const rollsBack = plan.kills.includes('reverse');
    it(`${plan.name}, restarted`, async () => {
      const db = { meta: `${P}_${trial}_m`, s0: `${P}_${trial}_a`, s1: `${P}_${trial}_b`, s2: `${P}_${trial}_c` };
      worlds.push([db.meta, db.s0, db.s1, db.s2]);
      const v1: Placement = {
        version: 1,
        bucketCount: 1024,
        shards: [
          { name: 's0', server: 'main', database: db.s0 },
          { name: 's1', server: 'main', database: db.s1 },
        ],
        bucketMap: [
          { from: 0, to: 511, shard: 's0' },
          { from: 512, to: 1023, shard: 's1' },
        ],
      };
      await createWorld(SERVER, db.meta, v1, [SERVER]);
      const options: MoverOptions = { servers: { main: SERVER }, meta: { server: 'main', database: db.meta }, tables: TABLES, serverIdBase: 4_500_000 + (process.pid % 1000) * 1000 + trial * 10 };
      const app = await App.open(SERVER, db.meta, [SERVER]);
      await app.seed(300);
      const mover = new Mover(options);
      const spec = { source: 's0', target: 's2', ranges: [{ from: 0, to: 255 }], newShard: { server: 'main', database: db.s2 } };
      const id = await mover.plan(spec);
      const writes = writeLoop(app, 400, 11 + trial);
      try {
        for (const phase of plan.kills.filter((k) => k !== 'reverse')) {
          const killed = await runChild(options, 'drive', id, phase, phase === 'copy' ? 3 : 1);
          expect([phase, killed.signal, killed.out]).toEqual([phase, 'SIGKILL', '']);
        }
        const again = await runChild(options, 'drive', id);
        expect([again.code, again.out]).toEqual([0, 'switched\n']);
        if (rollsBack) {
          await new Promise((r) => setTimeout(r, 150)); // writes to the moved buckets land on s2
          const killed = await runChild(options, 'rollback', id, 'reverse');
          expect(killed.signal).toBe('SIGKILL');
          const back = await runChild(options, 'rollback', id);
          expect([back.code, back.out]).toEqual([0, 'rolled_back\n']);
        }
        await new Promise((r) => setTimeout(r, 100));
      } finally {
        await writes.stop();
      }
      await app.refresh();
      const expectedMap = rollsBack ? v1.bucketMap : placementAfterMove(v1, spec).bucketMap;
      expect(app.placement.bucketMap).toEqual(expectedMap);
      // Every acknowledged write is on the shard the final map names, exactly once (primary keys).
      const holders = { s0: await itemsOf(SERVER, db.s0), s1: await itemsOf(SERVER, db.s1), s2: await itemsOf(SERVER, db.s2) };
      const expected = ledgerState(app.ledger);
      for (const [key, value] of expected) expect([key, holders[app.shardOf(key) as 's0']!.get(key)]).toEqual([key, value]);
      for (const [shard, rows] of Object.entries(holders)) {
        for (const key of rows.keys()) {
          if (app.shardOf(key) === shard) expect(expected.has(key)).toBe(true);
        }
      }
      if (!rollsBack) {
        expect((await mover.complete(id, { clientTimeoutMs: 2000 })).move.state).toBe('completed');
        expect([...(await itemsOf(SERVER, db.s0)).keys()].filter((k) => bucketOfKey(k) <= 255)).toEqual([]);
      } else {
        expect([...(await itemsOf(SERVER, db.s2)).keys()]).toEqual([]);
      }
      await mover.close();
      await app.close();
    });
  }
});
