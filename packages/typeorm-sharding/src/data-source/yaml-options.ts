import type { RoutingMetricsOptions } from '../router/config/routing-options.js';
import type { RouterMetrics } from '../router/metrics.js';
import type { MysqlShardedOptions, ShardingOptions } from './options.js';

/**
 * Options of `ShardedDataSource.fromYaml(file, options)`: what the file does not hold —
 * entities and any other TypeORM option — plus where `${ENV}` references are read from. The
 * servers, their nodes, the router's options and the shards come from the file.
 */
export type YamlDataSourceOptions = Omit<MysqlShardedOptions, 'type' | 'shards' | 'servers' | 'replication' | 'sharding' | 'host' | 'port' | 'username' | 'password' | 'url'> & {
  /** @default 'mysql' */
  readonly type?: 'mysql' | 'mariadb';
  /** Values of the file's `${NAME}` references. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Plugin options the file cannot hold (callbacks, the key generator); they override the file's `sharding:` numbers. */
  readonly sharding?: Omit<ShardingOptions, 'router'> & {
    /** Where the router's metrics go (`sharding.router.metrics`). */
    readonly routerMetrics?: RouterMetrics | RoutingMetricsOptions;
  };
};
