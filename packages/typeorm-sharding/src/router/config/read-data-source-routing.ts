import { RouterConfigError } from '../errors.js';
import type { RouterMetrics, RouterMetricsOptions } from '../metrics.js';
import type { RouterConfig } from '../router-options.js';
import { NO_PASSWORD, Secret } from '../secret.js';
import { BALANCER_NAMES, type BalancerName, type NodeConfig, type NodeRole, type ServerConfig } from '../topology.js';
import { childPath, type ConfigContext } from './fields.js';
import { placeNode, readNodeDefinition, type NodeDefaults } from './read-nodes.js';
import { readRoutingPolicy, ROUTER_PATH, type RoutingPolicy } from './read-routing-policy.js';
import { fromTypeormReplication, type TypeormReplication } from './typeorm-replication.js';

/** One server of the data source's topology, as the router reads it. */
export interface RoutedServer {
  readonly name: string;
  /** Its TypeORM connection options (host, port, username, password, poolSize, url …). */
  readonly options: Readonly<Record<string, unknown>>;
  /** The `servers[i]` entry it came from (replicas, analytics, balancers), when `servers` was given. */
  readonly entry: Readonly<Record<string, unknown>> | undefined;
  /** `servers[i]`, for error messages. */
  readonly path: string;
}

/** What the data source needs to open its router: the whole configuration and where metrics go. */
export interface RoutingSetup {
  readonly config: RouterConfig;
  readonly metrics: RouterMetrics | RouterMetricsOptions | undefined;
}

/** What the data-source options say about routing. */
export interface RoutingInput {
  readonly servers: readonly RoutedServer[];
  /** TypeORM's top-level `replication`, when given. */
  readonly replication: unknown;
  /** `sharding.router`. */
  readonly router: unknown;
}

/**
 * The router configuration of a ShardedDataSource, or undefined when it needs none (no
 * replicas, no `replication`, no `sharding.router`: every statement runs on its server as
 * before). Validated eagerly; each error is a `RouterConfigError` naming the key
 * (`servers[0].replicas[1].port`, `sharding.router.healthCheck.interval`, `replication.selector`).
 */
export function readDataSourceRouting(input: RoutingInput): RoutingSetup | undefined {
  const { servers, replication, router } = input;
  const hasNodes = servers.some((s) => s.entry?.replicas !== undefined || s.entry?.analytics !== undefined);
  if (router === undefined && replication === undefined && !hasNodes) return undefined;
  const policy = readRoutingPolicy(router);
  if (policy.config !== undefined) return { config: policy.config, metrics: policy.metrics };
  if (replication !== undefined) return { config: fromReplication(servers, replication, policy), metrics: policy.metrics };
  const names = new Set<string>();
  const config: RouterConfig = Object.freeze({ ...policy.options, servers: Object.freeze(servers.map((s) => serverOf(s, policy, names))) });
  return { config, metrics: policy.metrics };
}

function serverOf(server: RoutedServer, policy: RoutingPolicy, names: Set<string>): ServerConfig {
  const primary = primaryOf(server, names);
  const defaults: NodeDefaults = { host: primary.host, port: primary.port, user: primary.user, password: primary.password, poolSize: primary.poolSize, weight: 1, database: undefined };
  const entry = server.entry ?? {};
  return Object.freeze({
    name: server.name,
    primary,
    replicas: Object.freeze(readNodes(entry.replicas, childPath(server.path, 'replicas'), 'replica', server.name, defaults, names)),
    analytics: Object.freeze(readNodes(entry.analytics, childPath(server.path, 'analytics'), 'analytics', server.name, defaults, names)),
    replicaBalancer: balancer(entry.loadBalance, childPath(server.path, 'loadBalance'), policy.loadBalance),
    analyticsBalancer: balancer(entry.analyticsLoadBalance, childPath(server.path, 'analyticsLoadBalance'), 'least_outstanding'),
  });
}

/** The primary as a node: the server's own connection facts (its pool is the server's TypeORM pool). */
function primaryOf(server: RoutedServer, names: Set<string>): NodeConfig {
  const o = server.options;
  const url = typeof o.url === 'string' ? safeUrl(o.url) : undefined;
  const password = o.password instanceof Secret ? o.password : typeof o.password === 'string' ? new Secret(o.password) : url?.password ? new Secret(decodeURIComponent(url.password)) : NO_PASSWORD;
  const name = `${server.name}-primary`;
  claim(name, childPath(server.path, 'name'), names);
  return placeNode(
    {
      name,
      host: typeof o.host === 'string' ? o.host : url?.hostname || 'localhost',
      port: typeof o.port === 'number' ? o.port : url?.port ? Number(url.port) : 3306,
      user: typeof o.username === 'string' ? o.username : url?.username ? decodeURIComponent(url.username) : '',
      password,
      poolSize: typeof o.poolSize === 'number' ? o.poolSize : 10,
      weight: 1,
      database: undefined,
      path: server.path,
    },
    'primary',
    server.name,
  );
}

function readNodes(value: unknown, path: string, role: NodeRole, server: string, defaults: NodeDefaults, names: Set<string>): NodeConfig[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new RouterConfigError(path, 'expected a list of nodes ({ host, port, … })');
  const ctx: ConfigContext = { substituted: new Map() };
  return value.map((item: unknown, i) => {
    const at = childPath(path, i);
    const named = typeof item === 'object' && item !== null && !Array.isArray(item) ? { name: `${server}-${role}${i + 1}`, ...(item as object) } : item;
    const def = readNodeDefinition(named, at, ctx, defaults);
    claim(def.name, childPath(at, 'name'), names);
    return placeNode(def, role, server);
  });
}

function balancer(value: unknown, path: string, fallback: BalancerName): BalancerName {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !(BALANCER_NAMES as readonly string[]).includes(value)) {
    throw new RouterConfigError(path, `expected one of ${BALANCER_NAMES.join(', ')}, got ${typeof value === 'string' ? JSON.stringify(value) : `a ${typeof value}`}`);
  }
  return value as BalancerName;
}

/** Node names label metrics and events: unique in the whole topology. */
function claim(name: string, path: string, names: Set<string>): void {
  if (names.has(name)) throw new RouterConfigError(path, `node name \`${name}\` is used twice; node names must be unique`);
  names.add(name);
}

/** TypeORM's `replication`: one server (every shard on the master), its slaves as replicas. */
function fromReplication(servers: readonly RoutedServer[], replication: unknown, policy: RoutingPolicy): RouterConfig {
  if (typeof replication !== 'object' || replication === null || Array.isArray(replication)) throw new RouterConfigError('replication', 'expected { master, slaves, … } (TypeORM\'s replication options)');
  if (servers.length !== 1) throw new RouterConfigError('replication', `every shard must live on the master, but the shards name ${servers.length} servers`);
  const read = fromTypeormReplication(servers[0]!.name, replication as TypeormReplication, policy.options.health);
  const r = replication as TypeormReplication;
  const base = policy.options.health;
  const conflict = (own: string | undefined, theirs: string) => {
    if (own !== undefined && policy.given.has(theirs)) throw new RouterConfigError(`${ROUTER_PATH}.${theirs}`, `also set by replication.${own}: set it in one place`);
  };
  conflict(r.removeNodeErrorCount === undefined ? undefined : 'removeNodeErrorCount', 'healthCheck.errorThreshold');
  conflict(r.restoreNodeTimeout === undefined ? undefined : 'restoreNodeTimeout', 'healthCheck.minDown');
  conflict(r.canRetry === undefined ? undefined : 'canRetry', 'retryReads');
  conflict(r.defaultMode === undefined ? undefined : 'defaultMode', 'defaultReads');
  conflict(r.selector === undefined ? undefined : 'selector', 'loadBalance');
  const server = r.selector === undefined && policy.given.has('loadBalance') ? { ...read.server, replicaBalancer: policy.loadBalance } : read.server;
  return Object.freeze({
    ...policy.options,
    health: Object.freeze({
      ...base,
      errorThreshold: r.removeNodeErrorCount === undefined ? base.errorThreshold : read.health.errorThreshold,
      minDownMs: r.restoreNodeTimeout === undefined ? base.minDownMs : read.health.minDownMs,
    }),
    retryReads: r.canRetry === undefined && policy.given.has('retryReads') ? policy.options.retryReads : read.retryReads,
    defaultReads: r.defaultMode === undefined && policy.given.has('defaultReads') ? policy.options.defaultReads : read.defaultReads,
    servers: Object.freeze([Object.freeze(server)]),
  });
}

function safeUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}
