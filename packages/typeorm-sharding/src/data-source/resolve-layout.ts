import { ShardingConfigError } from '../errors/index.js';
import type { SqlDialect } from '../parameterize/index.js';
import { RouterConfigError } from '../router/errors.js';
import { readDataSourceRouting, type RoutingSetup } from '../router/config/read-data-source-routing.js';
import type { ShardingRouterOptions } from '../router/config/routing-options.js';
import type { RouterConfig } from '../router/router-options.js';
import { Secret } from '../router/secret.js';
import { resolveTopology, type Topology } from '../servers/topology.js';
import type { ShardedDataSourceOptions } from './options.js';

type Options = Record<string, unknown>;

/** Keys of a `servers[i]` entry that are the router's, not TypeORM's. */
const NODE_KEYS = ['replicas', 'analytics', 'loadBalance', 'analyticsLoadBalance'];
/** What TypeORM's `replication.master` says about where the server is. */
const MASTER_KEYS = ['host', 'port', 'username', 'password', 'url', 'socketPath'];

/** Where every shard lives, and the router's configuration when the servers have replicas. */
export interface Layout {
  readonly topology: Topology;
  readonly routing: RoutingSetup | undefined;
}

/**
 * Resolves the servers, the shards and the query router's configuration from the options, with
 * every check done here (eagerly): bad keys raise `ShardingConfigError` / `RouterConfigError`
 * naming them. Three ways to give replicas: `servers[i].replicas` / `.analytics`; TypeORM's
 * `replication: { master, slaves }` (one server); `sharding.router.config` (what
 * `ShardedDataSource.fromYaml` passes: the servers come from it).
 */
export function resolveLayout(options: ShardedDataSourceOptions, dialect: SqlDialect): Layout {
  const { shards, sharding, servers: serverList, replication, ...base } = options as ShardedDataSourceOptions & Options;
  const router = (sharding as { router?: ShardingRouterOptions } | undefined)?.router;
  if (dialect === 'sqlite') {
    if (replication !== undefined || router !== undefined) {
      throw new ShardingConfigError(`${replication !== undefined ? '`replication`' : '`sharding.router`'} is for MySQL/MariaDB: SQLite shards are files with no replicas, every statement runs on the shard's one connection.`);
    }
    return { topology: resolveTopology(base, shards as readonly Options[], serverList as readonly Options[] | undefined, dialect), routing: undefined };
  }
  let entries = serverList as readonly Options[] | undefined;
  const config = router?.config;
  if (config !== undefined && entries !== undefined) throw new RouterConfigError('servers', 'not with `sharding.router.config`: the servers come from the router configuration');
  if (config !== undefined && typeof config === 'object' && Array.isArray(config.servers)) entries = serversOf(config);
  let shared: Options = base;
  if (replication !== undefined) {
    if (entries !== undefined) throw new RouterConfigError('replication', 'not with `servers`: give each server its `replicas` instead');
    shared = withMaster(base, replication);
  }
  if (entries !== undefined && !Array.isArray(entries)) throw new ShardingConfigError('`servers` must list at least one server ({ name, host, port, … }).');
  const topology = resolveTopology(shared, shards as readonly Options[], entries?.map((e) => without(e, NODE_KEYS)), dialect);
  const routing = readDataSourceRouting({
    servers: topology.servers.map((s, i) => ({ name: s.name, options: s.options, entry: entries?.[i], path: entries ? `servers[${i}]` : 'shards' })),
    replication,
    router,
  });
  return { topology, routing };
}

/** TypeORM connection options with a `Secret` password revealed (done only where a pool is opened). */
export function revealPassword(options: Readonly<Options>): Options {
  return options.password instanceof Secret ? { ...options, password: options.password.reveal() } : { ...options };
}

/** The servers of a router configuration, as `servers` entries: each primary's connection. */
function serversOf(config: RouterConfig): Options[] {
  return config.servers.map((s) => ({ name: s.name, host: s.primary.host, port: s.primary.port, username: s.primary.user, password: s.primary.password, poolSize: s.primary.poolSize }));
}

/** The shared options with the master's connection facts: the one server every shard lives on. */
function withMaster(base: Options, replication: unknown): Options {
  const master = (replication as { master?: unknown } | null)?.master;
  if (typeof master !== 'object' || master === null) throw new RouterConfigError('replication.master', 'missing: TypeORM\'s replication needs { master: { host, … }, slaves: [ … ] }');
  const facts = Object.fromEntries(MASTER_KEYS.filter((k) => (master as Options)[k] !== undefined).map((k) => [k, (master as Options)[k]]));
  return { ...without(base, MASTER_KEYS), ...facts };
}

function without(options: Readonly<Options>, keys: readonly string[]): Options {
  return Object.fromEntries(Object.entries(options).filter(([k]) => !keys.includes(k)));
}
