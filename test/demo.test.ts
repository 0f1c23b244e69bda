import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { canStartMariadb } from './support/mariadb-cluster.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

/**
 * The Quick start's demo, built the way a user builds it: tsc with decorator metadata (its
 * entities leave column types to the metadata), then run on SQLite files.
 */
function build(): void {
  execFileSync(process.execPath, [tsc, '-p', 'packages/typeorm-sharding/tsconfig.build.json'], { cwd: root, stdio: 'pipe' });
  execFileSync(process.execPath, [tsc, '-p', 'packages/mariadb-cluster/tsconfig.json'], { cwd: root, stdio: 'pipe' });
  execFileSync(process.execPath, [tsc, '-p', 'packages/demo-app/tsconfig.json'], { cwd: root, stdio: 'pipe' });
}

describe('demo app', () => {
  beforeAll(build);

  it('builds with tsc and shows the article example, the Atlas pages and an order across shards', () => {
    const out = execFileSync(process.execPath, ['packages/demo-app/dist/main.js'], { cwd: root, encoding: 'utf8', env: { ...process.env, DEMO_DB: '' } });
    expect(out).toMatch(/pruning on \(mod\): 5 orders found: 3 physical statement\(s\)/);
    expect(out).toMatch(/pruning off \(the naive broadcast\): 5 orders found: 4 physical statement\(s\)/);
    expect(out).toMatch(/maxInValuesPerQuery 2, window of 2 .*: 5 orders found: 4 physical statement\(s\)/);
    expect(out).toMatch(/\[shard_1\] SELECT .* IN \(\?, \?, \?\)\)\)\s+-- params \["1","5","9"\]/);
    expect(out).toMatch(/page 2: 20 replies, ids 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17/);
    expect(out).toMatch(/LIMIT 40 OFFSET 0/);
    // Issue 11: an order (its row and items on one shard, the stock on every shard) in one transaction over the shard files.
    expect(out).toMatch(/order 1001 \(2 lamps, 1 desk\) placed/);
    expect(out).toMatch(/one COMMIT made all four durable together/);
    expect(out).toMatch(/order 1002 \(2 lamps\) refused, lamp is sold out \(1 left, 2 ordered\): rolled back everywhere/);
    expect(out).toMatch(/orders: 1001; items: 2; stock copies — shard_0: desk 0, lamp 1 \| shard_1: desk 0, lamp 1 \| shard_2: desk 0, lamp 1 \| shard_3: desk 0, lamp 1/);
    expect(out).toMatch(/Done\./);
  });

  it.skipIf(!canStartMariadb())('runs the router demo from router.yaml on a primary and a replica it starts, and shows where each statement ran and the metrics', () => {
    const env = { ...process.env, PRIMARY_PORT: '', REPLICA_PORT: '' };
    const out = execFileSync(process.execPath, ['packages/demo-app/dist/router.js'], { cwd: root, encoding: 'utf8', env, timeout: 60_000 });
    expect(out).toMatch(/→ polardb-master \(primary, write\)\s+INSERT INTO `buyers`/);
    expect(out).toMatch(/→ polardb-slave1 \(replica, read\)\s+SELECT/);
    expect(out).toMatch(/→ polardb-master \(primary, hint:FORCE_MASTER, hints FORCE_MASTER\)/);
    expect(out).toMatch(/→ polardb-slave1 \(replica, hint:FORCE_SLAVE, hints FORCE_SLAVE\)/);
    expect(out).toMatch(/→ polardb-master \(primary, hint:MASTER_ONLY, hints MASTER_ONLY\)/);
    expect(out).toMatch(/typeorm_sharding_router_requests_total\{server="default",node="polardb-slave1",role="replica",kind="select",outcome="ok"\} \d+/);
    expect(out).toMatch(/typeorm_sharding_router_misroutes_total 0/);
  });
});
