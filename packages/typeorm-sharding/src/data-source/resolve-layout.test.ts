import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ShardingConfigError } from '../errors/index.js';
import { readRouterConfig } from '../router/config/read-config.js';
import { RouterConfigError } from '../router/errors.js';
import type { ShardedDataSourceOptions } from './options.js';
import { resolveLayout } from './resolve-layout.js';

const shards = [
  { name: 's0', server: 'db', database: 'shop_0' },
  { name: 's1', server: 'db', database: 'shop_1' },
];
const mysql = (extra: Record<string, unknown>): ShardedDataSourceOptions => ({ type: 'mariadb', entities: [], shards, ...extra }) as ShardedDataSourceOptions;
const db = (server: Record<string, unknown> = {}) => ({ name: 'db', host: '10.0.0.1', port: 3307, username: 'app', password: 'hunter2', poolSize: 6, ...server });
const routingOf = (options: ShardedDataSourceOptions) => resolveLayout(options, options.type === 'better-sqlite3' ? 'sqlite' : 'mysql').routing;

/** The error `resolveLayout` raises for `options`. */
function errorOf(options: ShardedDataSourceOptions): RouterConfigError | ShardingConfigError {
  try {
    routingOf(options);
  } catch (error) {
    if (error instanceof ShardingConfigError) return error;
    throw error;
  }
  throw new Error('no error');
}

describe('the router configuration of a ShardedDataSource', () => {
  it('is off when no server has replicas and neither `replication` nor `sharding.router` is given', () => {
    expect(routingOf(mysql({ servers: [db()] }))).toBeUndefined();
    expect(routingOf(mysql({ host: '127.0.0.1', shards: [{ name: 's0', database: 'a' }] }))).toBeUndefined();
  });

  it("reads servers' replicas and analytics nodes, which inherit the server's connection facts", () => {
    const setup = routingOf(mysql({ servers: [db({ replicas: [{ host: '10.0.0.2' }, { name: 'r-big', host: '10.0.0.3', port: 3308, weight: 3 }], analytics: [{ host: '10.0.0.4', poolSize: 2 }], loadBalance: 'weighted_round_robin' })] }))!;
    const [server] = setup.config.servers;
    expect(server!.primary).toMatchObject({ name: 'db-primary', role: 'primary', host: '10.0.0.1', port: 3307, user: 'app', poolSize: 6 });
    expect(server!.replicas.map((n) => [n.name, n.host, n.port, n.user, n.poolSize, n.weight])).toEqual([
      ['db-replica1', '10.0.0.2', 3307, 'app', 6, 1],
      ['r-big', '10.0.0.3', 3308, 'app', 6, 3],
    ]);
    expect(server!.replicas[0]!.password.reveal()).toBe('hunter2');
    expect(server!.analytics.map((n) => [n.name, n.role, n.poolSize])).toEqual([['db-analytics1', 'analytics', 2]]);
    expect([server!.replicaBalancer, server!.analyticsBalancer]).toEqual(['weighted_round_robin', 'least_outstanding']);
    expect(setup.config.health).toMatchObject({ intervalMs: 1000, timeoutMs: 500, failureThreshold: 3 });
  });

  it('reads `sharding.router` with the keys of the YAML file', () => {
    const setup = routingOf(
      mysql({
        servers: [db({ replicas: [{ host: 'r' }] })],
        sharding: { router: { loadBalance: 'random', healthCheck: { interval: 200, timeout: 100, retry: 2 }, maxReplicationLagMs: 50, readYourWrites: 'session', warmUp: { duration: 1000 }, defaultReads: 'primary' } },
      }),
    )!;
    expect(setup.config.servers[0]!.replicaBalancer).toBe('random');
    expect(setup.config.health).toMatchObject({ intervalMs: 200, timeoutMs: 100, failureThreshold: 2 });
    expect(setup.config.consistency).toMatchObject({ maxReplicationLagMs: 50, readYourWrites: 'session' });
    expect(setup.config.warmUp.durationMs).toBe(1000);
    expect(setup.config.defaultReads).toBe('primary');
  });

  it.each([
    ['a replica port of the wrong type', { servers: [db({ replicas: [{ host: 'a' }, { host: 'b', port: 'x' }] })] }, 'servers[0].replicas[1].port'],
    ['an unknown key of a replica', { servers: [db({ replicas: [{ hots: 'a' }] })] }, 'servers[0].replicas[0].hots'],
    ['replicas that are not a list', { servers: [db({ replicas: { host: 'a' } })] }, 'servers[0].replicas'],
    ['an unknown balancer', { servers: [db({ replicas: [{ host: 'a' }], loadBalance: 'fastest' })] }, 'servers[0].loadBalance'],
    ['a node name used twice', { servers: [db({ replicas: [{ name: 'x', host: 'a' }], analytics: [{ name: 'x', host: 'b' }] })] }, 'servers[0].analytics[0].name'],
    ['an unknown router key', { servers: [db()], sharding: { router: { loadBalancer: 'random' } } }, 'sharding.router.loadBalancer'],
    ['a misspelt health-check key', { servers: [db()], sharding: { router: { healthCheck: { intervall: 10 } } } }, 'sharding.router.healthCheck.intervall'],
    ['a timeout longer than the interval', { servers: [db()], sharding: { router: { healthCheck: { interval: 100, timeout: 200 } } } }, 'sharding.router.healthCheck.timeout'],
    ['load-score weights that do not add up', { servers: [db()], sharding: { router: { loadScore: { weights: { cpu: 0.9 } } } } }, 'sharding.router.loadScore.weights'],
    ['a bad metric prefix', { servers: [db()], sharding: { router: { metrics: { prefix: 'my-router' } } } }, 'sharding.router.metrics.prefix'],
    ['an unknown selector', { host: 'h', shards: [{ name: 's0', database: 'a' }], replication: { master: { host: 'm' }, slaves: [], selector: 'FASTEST' } }, 'replication.selector'],
    ['replication without master', { shards: [{ name: 's0', database: 'a' }], replication: { slaves: [] } }, 'replication.master'],
    ['replication and servers', { servers: [db()], replication: { master: { host: 'm' }, slaves: [] } }, 'replication'],
    [
      'a replication option set twice',
      { shards: [{ name: 's0', database: 'a' }], replication: { master: { host: 'm' }, slaves: [], removeNodeErrorCount: 2 }, sharding: { router: { healthCheck: { errorThreshold: 4 } } } },
      'sharding.router.healthCheck.errorThreshold',
    ],
  ])('refuses %s, naming the key', (_, extra, keyPath) => {
    const error = errorOf(mysql(extra));
    expect(error).toBeInstanceOf(RouterConfigError);
    expect((error as RouterConfigError).keyPath).toBe(keyPath);
    expect(error.message.startsWith(`${keyPath}: `)).toBe(true);
    expect(error.code).toBe('SHARDING_CONFIG');
  });

  it('never shows a password, in an error or in the configuration', () => {
    const error = errorOf(mysql({ servers: [db({ replicas: [{ host: 'a', port: 'hunter2', password: 'hunter2' }] })] }));
    expect(error.message).toContain('servers[0].replicas[0].port');
    const setup = routingOf(mysql({ servers: [db({ replicas: [{ host: 'a', password: 's3cret!' }] })] }))!;
    const printed = `${JSON.stringify(setup.config)} ${inspect(setup.config, { depth: 10 })} ${String(setup.config.servers[0]!.replicas[0]!.password)}`;
    expect(printed).not.toContain('s3cret!');
    expect(printed).not.toContain('hunter2');
    expect(printed).toContain('[redacted]');
  });

  it("maps TypeORM's replication form onto one server", () => {
    const setup = routingOf(
      mysql({
        shards: [{ name: 's0', database: 'a' }, { name: 's1', database: 'b' }],
        replication: { master: { host: 'm', port: 3310, username: 'u', password: 'p' }, slaves: [{ host: 's1' }, { url: 'mysql://ro:pw@s2:3311/x' }], selector: 'RANDOM', canRetry: false, removeNodeErrorCount: 2, restoreNodeTimeout: 500 },
        sharding: { router: { maxReplicationLagMs: 200 } },
      }),
    )!;
    const [server] = setup.config.servers;
    expect(server!.name).toBe('m:3310');
    expect(server!.primary).toMatchObject({ name: 'm:3310-master', host: 'm', port: 3310, user: 'u' });
    expect(server!.replicas.map((n) => [n.name, n.host, n.port, n.user])).toEqual([
      ['m:3310-slave0', 's1', 3306, 'root'],
      ['m:3310-slave1', 's2', 3311, 'ro'],
    ]);
    expect(server!.replicaBalancer).toBe('random');
    expect(setup.config).toMatchObject({ retryReads: false, health: { errorThreshold: 2, minDownMs: 500 }, consistency: { maxReplicationLagMs: 200 } });
  });

  it('puts every shard on the master with `replication`: a shard on another host is refused', () => {
    const error = errorOf(mysql({ shards: [{ name: 's0', database: 'a' }, { name: 's1', host: 'elsewhere', database: 'b' }], replication: { master: { host: 'm' }, slaves: [] } }));
    expect(error).toMatchObject({ keyPath: 'replication' });
  });

  it('takes the servers from `sharding.router.config` (what fromYaml passes)', () => {
    const config = readRouterConfig({
      nodes: { m: { host: '10.0.0.1', password: 'pw' }, r: { host: '10.0.0.2' } },
      routing: { master: { nodes: ['m'] }, slave: { nodes: ['r'] } },
    });
    const layout = resolveLayout(mysql({ shards: [{ name: 's0', server: 'default', database: 'a' }], sharding: { router: { config } } }), 'mysql');
    expect(layout.topology.servers.map((s) => [s.name, s.options.host])).toEqual([['default', '10.0.0.1']]);
    expect(layout.routing?.config).toBe(config);
    expect(errorOf(mysql({ servers: [db()], sharding: { router: { config } } }))).toMatchObject({ keyPath: 'servers' });
    expect(errorOf(mysql({ shards: [{ name: 's0', server: 'default', database: 'a' }], sharding: { router: { config, retryReads: false } } }))).toMatchObject({ keyPath: 'sharding.router.retryReads' });
  });

  it('refuses replicas on SQLite, which has none', () => {
    const sqlite = (extra: Record<string, unknown>) => ({ type: 'better-sqlite3', entities: [], shards: [{ name: 's0', database: ':memory:' }], ...extra }) as ShardedDataSourceOptions;
    expect(errorOf(sqlite({ sharding: { router: {} } })).message).toMatch(/`sharding.router` is for MySQL\/MariaDB: SQLite shards are files with no replicas/);
    expect(errorOf(sqlite({ replication: { master: {}, slaves: [] } })).message).toMatch(/`replication` is for MySQL\/MariaDB/);
    expect(errorOf(sqlite({ servers: [{ name: 'x', replicas: [] }] })).message).toMatch(/`servers` is for MySQL\/MariaDB/);
  });
});
