import { RouterConfigError } from '../errors.js';
import { RouterMetrics, type RouterMetricsOptions } from '../metrics.js';
import type { RouterConfig } from '../router-options.js';
import { BALANCER_NAMES, type BalancerName } from '../topology.js';
import { Fields, type ConfigContext } from './fields.js';
import { ANALYTICS_KEYS, HEALTH_KEYS, LOAD_SCORE_KEYS, readAnalytics, readConsistency, readHealth, readLoadScore, readWarmUp, ROUTING_POLICY_KEYS, WARM_UP_KEYS } from './read-options.js';

/** Where `sharding.router` lives in the data source's options (error messages name it). */
export const ROUTER_PATH = 'sharding.router';

const KEYS = ['config', 'metrics', 'loadBalance', 'healthCheck', 'warmUp', 'loadScore', ...ROUTING_POLICY_KEYS] as const;

/** `sharding.router` read and validated: everything of a RouterConfig but its servers. */
export interface RoutingPolicy {
  readonly options: Omit<RouterConfig, 'servers'>;
  /** The replicas' balancer of servers that name none. */
  readonly loadBalance: BalancerName;
  /** The keys the user set (replication options that set the same thing conflict with them). */
  readonly given: ReadonlySet<string>;
  readonly config: RouterConfig | undefined;
  readonly metrics: RouterMetrics | RouterMetricsOptions | undefined;
}

/** Reads `sharding.router` (undefined: every default). Errors name the key, e.g. `sharding.router.healthCheck.interval`. */
export function readRoutingPolicy(value: unknown, ctx: ConfigContext = { substituted: new Map() }): RoutingPolicy {
  const f = Fields.of(value ?? {}, ROUTER_PATH, ctx, KEYS);
  const health = f.child('healthCheck', HEALTH_KEYS);
  const given = new Set<string>();
  for (const key of Object.keys(f.obj)) if (f.has(key)) given.add(key);
  for (const key of Object.keys(health?.obj ?? {})) if (health?.has(key)) given.add(`healthCheck.${key}`);
  const config = readConfig(f);
  if (config !== undefined) {
    const other = [...given].find((k) => k !== 'config' && k !== 'metrics');
    if (other !== undefined) throw new RouterConfigError(f.at(other), 'not with `config`: a configuration read from a file or with readRouterConfig carries its own options (only `metrics` may be given beside it)');
  }
  return {
    options: {
      health: readHealth(health),
      consistency: readConsistency(f),
      analytics: readAnalytics(f.child('analytics', ANALYTICS_KEYS)),
      warmUp: readWarmUp(f.child('warmUp', WARM_UP_KEYS)),
      loadScore: readLoadScore(f.child('loadScore', LOAD_SCORE_KEYS)),
      defaultReads: f.oneOf('defaultReads', ['replica', 'primary'] as const, 'replica'),
      retryReads: f.boolean('retryReads', true),
      routeCacheSize: f.number('routeCacheSize', 1000, { min: 0, integer: true }),
    },
    loadBalance: f.oneOf('loadBalance', BALANCER_NAMES, 'load_score'),
    given,
    config,
    metrics: readMetrics(f),
  };
}

function readConfig(f: Fields): RouterConfig | undefined {
  if (!f.has('config')) return undefined;
  const config = f.raw('config') as Partial<RouterConfig>;
  if (typeof config !== 'object' || !Array.isArray(config.servers) || config.health === undefined) {
    throw new RouterConfigError(f.at('config'), 'expected a configuration returned by readRouterConfig() or loadRouterYaml()');
  }
  return config as RouterConfig;
}

function readMetrics(f: Fields): RouterMetrics | RouterMetricsOptions | undefined {
  if (!f.has('metrics')) return undefined;
  const value = f.raw('metrics');
  if (value instanceof RouterMetrics) return value;
  const m = Fields.of(value, f.at('metrics'), f.ctx, ['registry', 'prefix']);
  const registry = m.raw('registry') as { registerMetric?: unknown } | undefined;
  if (registry !== undefined && typeof registry?.registerMetric !== 'function') throw new RouterConfigError(m.at('registry'), 'expected a prom-client Registry');
  const prefix = m.optionalString('prefix');
  if (prefix !== undefined && !/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(prefix)) throw new RouterConfigError(m.at('prefix'), `not a valid Prometheus metric name prefix: ${JSON.stringify(prefix)}`);
  return value as RouterMetricsOptions;
}
