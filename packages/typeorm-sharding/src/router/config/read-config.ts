import type { ShardingOptions } from '../../data-source/options.js';
import { RouterConfigError } from '../errors.js';
import type { RouterConfig } from '../router-options.js';
import type { ServerConfig } from '../topology.js';
import { childPath, Fields, type ConfigContext } from './fields.js';
import { BUILT_IN_DEFAULTS, readNodeDefaults } from './read-nodes.js';
import { ANALYTICS_KEYS, HEALTH_KEYS, LOAD_SCORE_KEYS, readAnalytics, readConsistency, readHealth, readLoadScore, readWarmUp, ROUTING_POLICY_KEYS, WARM_UP_KEYS } from './read-options.js';
import { readNodeMap, readServer, readServerList, SERVER_KEYS, type NodeRegistry } from './read-servers.js';

const TOP_KEYS = ['nodes', 'defaults', 'routing', 'servers', 'healthCheck', 'loadScore', 'warmUp', 'sharding'] as const;
const ROUTING_KEYS = [...SERVER_KEYS.filter((k) => k !== 'name'), ...ROUTING_POLICY_KEYS];
const SHARDING_NUMBER_KEYS = ['concurrency', 'globalConcurrency', 'maxInValuesPerQuery', 'planCacheSize', 'streamThreshold', 'maxSubqueryValues', 'rememberedOwners'] as const;
const SHARDING_KEYS = ['shards', 'pruning', ...SHARDING_NUMBER_KEYS] as const;

/** The server a shard database lives on (issue 9's `shards: [{ name, server, database }]`). */
export interface ShardPlacement {
  readonly name: string;
  readonly server: string;
  readonly database: string;
}

/** The `sharding:` section: where the shards are, and the plugin's options. */
export interface ShardingSection {
  readonly shards: readonly ShardPlacement[];
  readonly options: Pick<ShardingOptions, 'pruning' | (typeof SHARDING_NUMBER_KEYS)[number]>;
}

/** A whole configuration document: the router's part and the sharding part, if any. */
export interface RouterDocument {
  readonly router: RouterConfig;
  readonly sharding: ShardingSection | undefined;
}

/**
 * Validates a configuration tree (parsed YAML, or an object written in code) and fills in
 * every default. The shape is the article's (§5.1):
 *
 * ```yaml
 * nodes: { polardb-master: { host: …, password: ${DB_PASSWORD} }, polardb-slave1: { … } }
 * routing:                      # one server; or `servers: [{ name, master, slave, columnar }]`
 *   master: { nodes: [polardb-master] }
 *   slave: { nodes: [polardb-slave1, polardb-slave2], loadBalance: weighted_round_robin }
 *   columnar: { nodes: [polardb-columnar], enable: true }
 * healthCheck: { interval: 1000, timeout: 500, retry: 3 }
 * ```
 *
 * Any problem is a {@link RouterConfigError} naming the key path.
 */
export function readRouterDocument(tree: unknown, ctx: ConfigContext = { substituted: new Map() }): RouterDocument {
  const top = Fields.of(tree, '', ctx, TOP_KEYS);
  const defaults = top.has('defaults') ? readNodeDefaults(top.raw('defaults'), 'defaults', ctx) : BUILT_IN_DEFAULTS;
  const registry: NodeRegistry = {
    defined: top.has('nodes') ? readNodeMap(top.raw('nodes'), 'nodes', ctx, defaults) : new Map(),
    defaults,
    used: new Map(),
  };
  const routing = top.child('routing', ROUTING_KEYS);
  const servers: ServerConfig[] = [];
  if (routing?.has('master')) servers.push(readServer(routing, 'default', registry));
  else if (routing && (routing.has('slave') || routing.has('columnar'))) throw new RouterConfigError(routing.at('master'), 'missing: `slave` and `columnar` need a `master` on the same server');
  const list = top.list('servers');
  if (list !== undefined) {
    if (servers.length > 0) throw new RouterConfigError('servers', 'give the nodes either in `routing` (one server) or in `servers`, not both');
    servers.push(...readServerList(list, 'servers', ctx, registry));
  }
  if (servers.length === 0) throw new RouterConfigError('routing.master', 'no server is configured: add `routing: { master: { nodes: [...] } }` or `servers: [...]`');
  for (const name of registry.defined.keys()) {
    if (!registry.used.has(name)) throw new RouterConfigError(`nodes.${name}`, 'defined but used by no server');
  }

  const router: RouterConfig = Object.freeze({
    servers: Object.freeze(servers),
    health: readHealth(top.child('healthCheck', HEALTH_KEYS)),
    consistency: readConsistency(routing),
    analytics: readAnalytics(routing?.child('analytics', ANALYTICS_KEYS)),
    warmUp: readWarmUp(top.child('warmUp', WARM_UP_KEYS)),
    loadScore: readLoadScore(top.child('loadScore', LOAD_SCORE_KEYS)),
    defaultReads: routing?.oneOf('defaultReads', ['replica', 'primary'] as const, 'replica') ?? 'replica',
    retryReads: routing?.boolean('retryReads', true) ?? true,
    routeCacheSize: routing?.number('routeCacheSize', 1000, { min: 0, integer: true }) ?? 1000,
  });
  return { router, sharding: top.has('sharding') ? readSharding(top.child('sharding', SHARDING_KEYS)!, servers) : undefined };
}

/** Validates a router configuration written in code (the same shape as the file, without `sharding`). */
export function readRouterConfig(tree: unknown): RouterConfig {
  return readRouterDocument(tree).router;
}

function readSharding(f: Fields, servers: readonly ServerConfig[]): ShardingSection {
  const options: Record<string, number | boolean> = {};
  for (const key of SHARDING_NUMBER_KEYS) {
    const value = f.optionalNumber(key, { integer: true, min: key === 'planCacheSize' ? 0 : 1 });
    if (value !== undefined) options[key] = value;
  }
  if (f.has('pruning')) options.pruning = f.boolean('pruning', true);
  const shards: ShardPlacement[] = [];
  const names = new Set<string>();
  (f.list('shards') ?? []).forEach((item, i) => {
    const s = Fields.of(item, childPath(f.at('shards'), i), f.ctx, ['name', 'server', 'database']);
    const name = s.optionalString('name');
    const database = s.optionalString('database');
    if (name === undefined) throw new RouterConfigError(s.at('name'), 'missing');
    if (database === undefined) throw new RouterConfigError(s.at('database'), 'missing');
    if (names.has(name)) throw new RouterConfigError(s.at('name'), `shard \`${name}\` is defined twice`);
    names.add(name);
    const server = s.optionalString('server') ?? (servers.length === 1 ? servers[0]!.name : undefined);
    if (server === undefined) throw new RouterConfigError(s.at('server'), `missing: with several servers each shard names its server (${servers.map((x) => x.name).join(', ')})`);
    if (!servers.some((x) => x.name === server)) throw new RouterConfigError(s.at('server'), `unknown server \`${server}\` (servers: ${servers.map((x) => x.name).join(', ')})`);
    shards.push(Object.freeze({ name, server, database }));
  });
  return Object.freeze({ shards: Object.freeze(shards), options: Object.freeze(options) });
}
