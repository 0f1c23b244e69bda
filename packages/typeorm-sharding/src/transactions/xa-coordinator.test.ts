import { describe, expect, it } from 'vitest';
import type { ShardTarget } from '../execute/shard-target.js';
import { FakeXaServer, fakeRunner } from './testing/fake-xa.js';
import { CrossServerTransactionError } from './transaction-errors.js';
import { resolveTransactionOptions } from './transaction-options.js';
import { XaCoordinator } from './xa-coordinator.js';

function coordinator(versions: string[], options = {}) {
  const servers = versions.map((v, i) => Object.assign(new FakeXaServer(`db${i}`, i * 4), { version: v }));
  const warnings: string[] = [];
  const xa = new XaCoordinator(servers, resolveTransactionOptions({ resolveIntervalMs: false, ...options }), 'app', (_l, m) => void warnings.push(m));
  const target = (i: number): ShardTarget => ({ name: `s${i}`, index: i, server: `db${i}`, createRunner: () => fakeRunner(servers[i]!).runner }) as unknown as ShardTarget;
  return { xa, servers, warnings, target };
}

const opening = [{ statement: { sql: 'SET TRANSACTION ISOLATION LEVEL SERIALIZABLE', parameters: [] }, kind: 'set-isolation' as const }, { statement: { sql: 'START TRANSACTION', parameters: [] }, kind: 'begin' as const }, { statement: { sql: 'SAVEPOINT typeorm_1', parameters: [] }, kind: 'savepoint' as const }];

describe('XaCoordinator', () => {
  it('starts: creates the logs and resolves what is in doubt; the first server joins locally, later ones as XA branches', async () => {
    const { xa, servers, target } = coordinator(['10.11.19-MariaDB', '10.6.1-MariaDB']);
    servers[1]!.prepared.add('app.0.left|4');
    await xa.start();
    expect(servers[0]!.log).toContain('CREATE');
    expect(servers[1]!.prepared.size).toBe(0);
    const tx = xa.begin();
    const first = tx.join(target(0), [], opening);
    expect(first.branch.xid).toBeUndefined();
    await first.open();
    // (The fake server logs a statement's first word.)
    expect(servers[0]!.log.slice(-3)).toEqual(['SET', 'START', 'SAVEPOINT']);
    const second = tx.join(target(1), [first.branch], opening);
    expect(second.branch.xid).toEqual({ gtrid: expect.stringMatching(/^app\.0\.[0-9a-f]{18}$/), bqual: '4' });
    await second.open();
    expect(servers[1]!.log.slice(-3)).toEqual(['SET', `XA START '${second.branch.xid!.gtrid}','4'`, 'SAVEPOINT']);
    await xa.stop();
  });

  it('refuses cross-server transactions when a server rolls prepared branches back on disconnect (MariaDB < 10.5), with a warning at start', async () => {
    const { xa, target, warnings } = coordinator(['10.11.19-MariaDB', '10.4.31-MariaDB']);
    await xa.start();
    expect(warnings.join()).toMatch(/server db1: MariaDB 10\.4\.31 rolls a prepared XA branch back when its connection closes/);
    const tx = xa.begin();
    const first = tx.join(target(0), [], opening);
    // One server is fine.
    expect(first.branch.xid).toBeUndefined();
    expect(() => tx.join(target(1), [first.branch], opening)).toThrow(CrossServerTransactionError);
    expect(() => tx.join(target(1), [first.branch], opening)).toThrow(/already runs on server db0 and now reaches server db1.*crossServer: 'sequential'/);
    await xa.stop();
  });

  it('reports each step to onStep, and logs (does not throw) what the hook throws', async () => {
    const { xa, warnings } = coordinator(['10.11.19-MariaDB', '10.11.19-MariaDB'], { onStep: () => { throw new Error('hook broke'); } });
    await xa.step('decided', 'app.0.x', ['db0', 'db1']);
    expect(warnings.join()).toMatch(/onStep threw at step decided of app\.0\.x: hook broke/);
  });
});
