import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLibraryBuilt } from './support/built-library.js';
import { createDatabases, dropDatabases } from './support/mariadb.js';
import { binlogMariadb } from './support/binlog-mariadb.js';
import { serverConn } from './support/resharding-env.js';

// The operator command, run as a user runs it: `typeorm-sharding reshard … -d <module>` (the
// package's bin, built), against a data source module that exports a ShardedDataSource.

// The mover needs a ROW binlog: a mariadbd of this file's own (port 3625), not the machine's MariaDB.
const BINLOG = await binlogMariadb(3625);
const MARIADB = BINLOG.server;
const available = BINLOG.available;
afterAll(() => BINLOG.stop());
const here = dirname(fileURLToPath(import.meta.url));
const BIN = join(here, '..', 'packages', 'typeorm-sharding', 'dist', 'cli', 'bin.js');
const DS = join(here, 'support', 'cli-data-source.mjs');
const P = `tsh_cli_${process.pid}`;
const DB = { s0: `${P}_s0`, s1: `${P}_s1`, s2: `${P}_s2`, meta: `${P}_meta` };
const env = { ...process.env, TSH_CLI_ENV: JSON.stringify({ host: MARIADB.host, port: MARIADB.port, ...DB }) };

function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'reshard', ...args, '-d', DS], { env }, (error, out, err) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out, err }));
  });
}

describe.runIf(available)('typeorm-sharding reshard (the bin)', () => {
  beforeAll(async () => {
    ensureLibraryBuilt();
    await createDatabases([DB.s0, DB.s1], MARIADB);
    await dropDatabases([DB.s2, DB.meta], MARIADB);
  }, 120_000);
  afterAll(async () => {
    await dropDatabases(Object.values(DB), MARIADB);
  });

  it('plans a split, copies, verifies, switches and completes; refuses clearly', async () => {
    expect((await cli('status')).out).toContain('no moves'); // creates the store (initialize)
    const c = await serverConn({ name: 'main', ...MARIADB }, DB.s1);
    await c.query('INSERT INTO cli_orders (id, name) VALUES ?', [Array.from({ length: 400 }, (_, i) => [i + 1, `o${i + 1}`])]);
    await c.end();
    const plan = await cli('plan', '--split', 's1', '--target', 's2', '--server', 'main', '--database', DB.s2);
    expect([plan.code, plan.err]).toEqual([0, '']);
    expect(plan.out).toMatch(/planned move 1\nmove 1: planned {2}s1 -> s2 {2}buckets 768-1023/);
    const start = await cli('start', '1', '--chunk-rows', '50');
    expect(start.code).toBe(0);
    expect(start.out).toMatch(/move 1: catching_up/);
    const verify = await cli('verify', '1');
    expect([verify.code, verify.out]).toEqual([0, expect.stringMatching(/^cli_orders: \d+ rows in 4 chunks, equal\n$/)]);
    const refused = await cli('complete', '1');
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/error \(bad-state\): Move 1 is verified: complete runs only from switched/);
    expect((await cli('switch', '1')).out).toMatch(/move 1: switched/);
    expect((await cli('complete', '1', '--client-timeout-ms', '5000')).out).toMatch(/move 1: completed/);
    const status = JSON.parse((await cli('status', '1', '--json')).out) as { move: { state: string; toVersion: number } }[];
    expect(status[0]!.move).toMatchObject({ state: 'completed', toVersion: 2 });
    const bad = await cli('plan', '--source', 's0', '--target', 's1', '--ranges', '900-950');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/error \(bad-plan\): Buckets 900–950 are not all on shard "s0"/);
  });
});
