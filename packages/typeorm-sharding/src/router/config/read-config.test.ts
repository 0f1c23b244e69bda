import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ShardingConfigError } from '../../errors/sharding-error.js';
import { RouterConfigError } from '../errors.js';
import { DEFAULT_HEALTH } from '../router-options.js';
import { parseRouterYaml } from './load-yaml.js';
import { readRouterConfig } from './read-config.js';

const ENV = { DB_PASSWORD: 's3cr3t-pa55', DB_PORT: '3307' };

/** The article's §5.1 example, with the node definitions it leaves implicit. */
const ARTICLE = `
nodes:
  polardb-master: { host: 10.0.0.1, user: app, password: "\${DB_PASSWORD}", poolSize: 20 }
  polardb-slave1: { host: 10.0.0.2, user: app, password: "\${DB_PASSWORD}", weight: 2 }
  polardb-slave2:
    host: 10.0.0.3
    user: app
    password: \${DB_PASSWORD}
    port: \${DB_PORT}
  polardb-columnar: { host: 10.0.0.4, user: app, password: "\${DB_PASSWORD}", poolSize: 4 }

# 路由策略配置
routing:
  master:
    nodes: [polardb-master]
  slave:
    nodes: [polardb-slave1, polardb-slave2]
    loadBalance: weighted_round_robin
  columnar:
    nodes: [polardb-columnar]
    enable: true

# 健康检查配置
healthCheck:
  interval: 1000
  timeout: 500
  retry: 3
`;

/** The error a YAML text raises (fails the test when it raises none). */
function errorOf(yaml: string, env: Record<string, string> = ENV): RouterConfigError {
  try {
    parseRouterYaml(yaml, { env });
  } catch (error) {
    expect(error).toBeInstanceOf(RouterConfigError);
    return error as RouterConfigError;
  }
  throw new Error('expected a RouterConfigError');
}

describe('the YAML configuration', () => {
  it("reads the article's example as one server with its roles, balancer and health checks", () => {
    const { router, sharding } = parseRouterYaml(ARTICLE, { env: ENV });
    expect(sharding).toBeUndefined();
    expect(router.servers).toHaveLength(1);
    const [server] = router.servers;
    expect(server!.name).toBe('default');
    expect(server!.primary).toMatchObject({ name: 'polardb-master', role: 'primary', host: '10.0.0.1', port: 3306, user: 'app', poolSize: 20 });
    expect(server!.replicas.map((r) => [r.name, r.weight, r.port])).toEqual([
      ['polardb-slave1', 2, 3306],
      ['polardb-slave2', 1, 3307],
    ]);
    expect(server!.analytics.map((r) => r.name)).toEqual(['polardb-columnar']);
    expect(server!.replicaBalancer).toBe('weighted_round_robin');
    expect(router.health).toEqual({ ...DEFAULT_HEALTH, intervalMs: 1000, timeoutMs: 500, failureThreshold: 3 });
    expect(server!.primary.password.reveal()).toBe('s3cr3t-pa55');
  });

  it('reads several servers, inline nodes, node defaults and the sharding section', () => {
    const { router, sharding } = parseRouterYaml(
      `
defaults: { user: app, password: "\${DB_PASSWORD}", poolSize: 8 }
servers:
  - name: east
    master: { nodes: [{ name: east-p, host: h1 }] }
    slave: { nodes: [{ name: east-r, host: h2 }], loadBalance: least_outstanding }
  - name: west
    master: { nodes: [{ name: west-p, host: h3, poolSize: 2 }] }
routing:
  maxReplicationLagMs: 250
  readYourWrites: session
  analytics: { minShards: 4 }
warmUp: { duration: 60000, steps: 3 }
sharding:
  concurrency: 4
  pruning: false
  shards:
    - { name: s0, server: east, database: shop_0 }
    - { name: s1, server: west, database: shop_1 }
`,
      { env: ENV },
    );
    expect(router.servers.map((s) => [s.name, s.primary.name, s.primary.poolSize, s.replicas.map((r) => r.name), s.replicaBalancer])).toEqual([
      ['east', 'east-p', 8, ['east-r'], 'least_outstanding'],
      ['west', 'west-p', 2, [], 'load_score'],
    ]);
    expect(router.consistency).toMatchObject({ maxReplicationLagMs: 250, readYourWrites: 'session' });
    expect(router.analytics.minShards).toBe(4);
    expect(router.warmUp).toMatchObject({ durationMs: 60000, steps: 3, initialShare: 0.1 });
    expect(sharding).toEqual({
      shards: [
        { name: 's0', server: 'east', database: 'shop_0' },
        { name: 's1', server: 'west', database: 'shop_1' },
      ],
      options: { concurrency: 4, pruning: false },
    });
  });

  it.each([
    ['an unknown key', 'healthCheck:\n  intervall: 5', 'healthCheck.intervall', /unknown key.*interval/],
    ['a wrong type', 'healthCheck:\n  interval: soon', 'healthCheck.interval', /expected an integer ≥ 1, got "soon"/],
    ['a timeout longer than the interval', 'healthCheck:\n  interval: 100\n  timeout: 500', 'healthCheck.timeout', /must not exceed interval/],
    ['an unknown balancer', 'routing:\n  master: { nodes: [p] }\n  slave: { nodes: [r], loadBalance: fastest }', 'routing.slave.loadBalance', /one of round_robin, random, weighted_round_robin/],
    ['an unknown node', 'routing:\n  master: { nodes: [p] }\n  slave: { nodes: [r, r9] }', 'routing.slave.nodes[1]', /unknown node `r9` \(defined nodes: p, r\)/],
    ['two primaries', 'routing:\n  master: { nodes: [p, r] }', 'routing.master.nodes', /exactly one primary/],
    ['a node in two roles', 'routing:\n  master: { nodes: [p] }\n  slave: { nodes: [r, p] }', 'routing.slave.nodes[1]', /already used at routing.master.nodes\[0\]/],
    ['a bad port', 'nodes:\n  x: { host: h, port: 70000 }\nrouting:\n  master: { nodes: [x] }', 'nodes.x.port', /≤ 65535, got 70000/],
    ['load-score weights that do not add up to 1', 'loadScore:\n  weights: { cpu: 0.5 }', 'loadScore.weights', /add up to 1, they add up to 1.1/],
    ['a shard on an unknown server', 'sharding:\n  shards: [{ name: s0, server: nowhere, database: d }]', 'sharding.shards[0].server', /unknown server `nowhere`/],
  ])('refuses %s with the key path', (_, text, path, message) => {
    const base = text.includes('routing:') || text.includes('nodes:\n  x') ? '' : 'routing:\n  master: { nodes: [p] }\n  slave: { nodes: [r] }\n';
    const nodes = text.includes('nodes:\n  x') ? '' : 'nodes:\n  p: { host: h }\n  r: { host: h2 }\n';
    const error = errorOf(`${nodes}${base}${text}\n`);
    expect(error.keyPath).toBe(path);
    expect(error.message).toMatch(message);
    expect(error.message.startsWith(`${path}: `)).toBe(true);
    expect(error).toBeInstanceOf(ShardingConfigError);
    expect(error.code).toBe('SHARDING_CONFIG');
  });

  it('says how to write an environment reference inside a flow mapping', () => {
    const error = errorOf('nodes:\n  p: { host: h, password: ${DB_PASSWORD} }\nrouting:\n  master: { nodes: [p] }\n');
    expect(error.message).toMatch(/YAML syntax error .* write an environment reference in quotes/);
  });

  it('names a missing environment variable without failing silently', () => {
    const error = errorOf(ARTICLE, {});
    expect(error.keyPath).toBe('nodes.polardb-master.password');
    expect(error.message).toContain('environment variable DB_PASSWORD is not set');
  });

  it('never prints a secret: not in errors, not in JSON, not in inspect', () => {
    const secret = ENV.DB_PASSWORD;
    // A value from the environment under a non-secret key is named by its variable, not shown.
    const portError = errorOf(`nodes:\n  p: { host: h, port: "\${DB_PASSWORD}" }\nrouting:\n  master: { nodes: [p] }\n`);
    expect(portError.keyPath).toBe('nodes.p.port');
    expect(portError.message).toContain('the value of ${DB_PASSWORD}');
    // A YAML syntax error on the password line reports a position only.
    const syntax = errorOf(`nodes:\n  p: { host: h, password: "${secret}\nrouting: [\n`);
    expect(syntax.message).toMatch(/YAML syntax error \(\w+\) at line \d+, column \d+/);
    const { router } = parseRouterYaml(ARTICLE, { env: ENV });
    for (const text of [portError.message, String(portError.stack), syntax.message, JSON.stringify(router), inspect(router, { depth: 10 }), String(router.servers[0]!.primary.password)]) {
      expect(text).not.toContain(secret);
    }
    expect(inspect(router.servers[0]!.primary.password)).toBe('Secret(${DB_PASSWORD})');
  });

  it('takes `${NAME:-default}` and a literal `$${`', () => {
    const { router } = parseRouterYaml('nodes:\n  p: { host: "${DB_HOST:-127.0.0.1}", user: "a$${b}" }\nrouting:\n  master: { nodes: [p] }\n', { env: {} });
    expect(router.servers[0]!.primary).toMatchObject({ host: '127.0.0.1', user: 'a${b}' });
  });

  it('validates a configuration written in code the same way', () => {
    expect(() => readRouterConfig({ nodes: { p: { host: 'h', weight: -1 } }, routing: { master: { nodes: ['p'] } } })).toThrow(/nodes\.p\.weight: expected a number ≥ 0, got -1/);
    expect(() => readRouterConfig({})).toThrow(/no server is configured/);
  });
});
