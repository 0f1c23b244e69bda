import { describe, expect, it } from 'vitest';
import { RouterConfigError } from '../errors.js';
import { fromTypeormReplication } from './typeorm-replication.js';

describe("TypeORM's replication form", () => {
  it('maps master and slaves to a server, and the pool-cluster options to the router', () => {
    const { server, health, retryReads, defaultReads } = fromTypeormReplication('main', {
      master: { host: 'db-master', port: 3306, username: 'app', password: 'pw', database: 'shop', poolSize: 20 },
      slaves: [{ host: 'db-slave-a', username: 'app', password: 'pw' }, { url: 'mysql://ro:p%40ss@db-slave-b:3307/shop' }],
      selector: 'RANDOM',
      canRetry: false,
      removeNodeErrorCount: 2,
      restoreNodeTimeout: 30000,
      defaultMode: 'master',
    });
    expect(server.primary).toMatchObject({ name: 'main-master', host: 'db-master', user: 'app', database: 'shop', poolSize: 20, role: 'primary' });
    expect(server.replicas.map((r) => [r.name, r.host, r.port, r.user, r.password.reveal(), r.database])).toEqual([
      ['main-slave0', 'db-slave-a', 3306, 'app', 'pw', undefined],
      ['main-slave1', 'db-slave-b', 3307, 'ro', 'p@ss', 'shop'],
    ]);
    expect(server.replicaBalancer).toBe('random');
    expect(health).toMatchObject({ errorThreshold: 2, minDownMs: 30000, failureThreshold: 3 });
    expect(retryReads).toBe(false);
    expect(defaultReads).toBe('primary');
  });

  it("keeps mysql2's defaults when the options are absent (RR, retry, 5 errors)", () => {
    const mapped = fromTypeormReplication('main', { master: { host: 'm' }, slaves: [{ host: 's' }] });
    expect(mapped.server.replicaBalancer).toBe('round_robin');
    expect(mapped.retryReads).toBe(true);
    expect(mapped.health.errorThreshold).toBe(5);
    expect(mapped.defaultReads).toBe('replica');
  });

  it.each([
    [{ master: { port: 1 }, slaves: [] }, 'replication.master.host'],
    [{ master: { host: 'm' }, slaves: [{ url: 'not a url with secret' }] }, 'replication.slaves[0].url'],
    [{ master: { host: 'm' }, slaves: [], selector: 'LEAST' }, 'replication.selector'],
  ])('refuses a bad entry with its key path (%#)', (replication, path) => {
    let error: unknown;
    try {
      fromTypeormReplication('main', replication as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RouterConfigError);
    expect((error as RouterConfigError).keyPath).toBe(path);
    expect((error as Error).message).not.toContain('secret');
  });
});
