import type { ShardedDataSource } from '../data-source/sharded-data-source.js';
import { resolveLayout } from '../data-source/resolve-layout.js';
import { ReshardingError } from './errors.js';
import type { GovernedTable } from './governed-tables.js';
import { ReshardingMetrics } from './metrics.js';
import { Mover, type ServerAddress } from './workflow.js';

/** Default database of the topology store (the topology contract's). */
export const DEFAULT_META_DATABASE = 'typeorm_sharding_meta';

/** Options of {@link reshardingOf} beyond what the data source says. */
export interface ReshardingOfOptions {
  readonly metrics?: ReshardingMetrics;
  readonly serverIdBase?: number;
}

/**
 * The mover of an initialised MySQL/MariaDB ShardedDataSource: its servers (with their
 * credentials), the topology store named by `sharding.topology` (default: the first server,
 * database `typeorm_sharding_meta`), and the tables governed by the store — entities sharded
 * by hash over the bucket map and their global-index lookup tables (which are sharded by
 * their value column the same way) move with their buckets; broadcast tables are copied
 * whole to a new shard. Refused (ReshardingError `bad-plan`): SQLite (its offline move is
 * `moveBucketsOffline`), a table-per-shard layout, a sharded table whose algorithm is not
 * the bucket-map hash.
 */
export function reshardingOf(ds: ShardedDataSource, options: ReshardingOfOptions = {}): Mover {
  if (ds.shardedOptions.type === 'better-sqlite3') {
    throw new ReshardingError('bad-plan', 'SQLite shards are moved offline (moveBucketsOffline); the online mover needs MySQL/MariaDB binlogs.');
  }
  if (!ds.isInitialized) throw new ReshardingError('bad-plan', 'Initialise the ShardedDataSource before resharding it (the mover reads its table rules).');
  const layout = resolveLayout(ds.shardedOptions, 'mysql');
  const servers: Record<string, ServerAddress> = {};
  for (const server of layout.topology.servers) {
    const o = server.options as { host?: string; port?: number; username?: string; password?: unknown };
    const password = o.password;
    servers[server.name] = {
      host: o.host ?? '127.0.0.1',
      port: o.port ?? 3306,
      user: o.username ?? 'root',
      password: typeof password === 'string' ? password : password && typeof (password as { reveal?: unknown }).reveal === 'function' ? (password as { reveal(): string }).reveal() : '',
    };
  }
  const topology = (ds.shardedOptions.sharding as { topology?: { server?: string; database?: string } } | undefined)?.topology;
  const metaServer = topology?.server ?? layout.topology.servers[0]!.name;
  return new Mover({
    servers,
    meta: { server: metaServer, database: topology?.database ?? DEFAULT_META_DATABASE },
    tables: governedTables(ds),
    dataSource: ds,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.serverIdBase !== undefined ? { serverIdBase: options.serverIdBase } : {}),
  });
}

/** The tables a move touches, from the data source's rules (see {@link reshardingOf}). */
export function governedTables(ds: ShardedDataSource): GovernedTable[] {
  const out: GovernedTable[] = [];
  for (const rule of ds.shardingRules.all()) {
    if (rule.distribution === 'broadcast') out.push({ table: rule.tableName, kind: 'broadcast' });
    if (rule.distribution !== 'sharded') continue;
    const key = rule.shardKey!;
    if (key.layout) throw new ReshardingError('bad-plan', `Table ${rule.tableName} has a table-per-shard layout: the online mover does not move those.`);
    if (!('bucketOf' in key.algorithm)) throw new ReshardingError('bad-plan', `Table ${rule.tableName} is sharded by ${key.algorithm.name}, not by the bucket map: the mover cannot move its rows by bucket.`);
    out.push({ table: rule.tableName, kind: 'sharded', keyColumn: key.columnName, keyKind: key.kind });
  }
  return out;
}
