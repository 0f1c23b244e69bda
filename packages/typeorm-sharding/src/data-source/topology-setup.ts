import { DataSource, type DataSourceOptions } from 'typeorm';
import { DEFAULT_BUCKET_COUNT, defaultBucketMap } from '../algorithms/index.js';
import { getShardedOptions } from '../decorators/index.js';
import { ShardingConfigError } from '../errors/index.js';
import type { Topology } from '../servers/topology.js';
import type { ResolvedTopologyOptions } from '../topology/topology-options.js';
import type { TopologyDocument } from '../topology/topology-document.js';
import { revealPassword } from './resolve-layout.js';
import type { ShardedDataSourceOptions } from './options.js';

/** Schema work belongs to the store itself (CREATE TABLE IF NOT EXISTS). */
const STORE_ONLY = { synchronize: false, migrationsRun: false, dropSchema: false, migrations: [], subscribers: [], entities: [] };

/** The connection of the metadata tables: a small pool on the store server (MySQL), or the store file (SQLite). */
export function storeSource(settings: ResolvedTopologyOptions, topology: Topology): DataSource {
  if (settings.dialect === 'sqlite') return new DataSource({ type: 'better-sqlite3', database: settings.file, ...STORE_ONLY } as DataSourceOptions);
  const server = settings.server === undefined ? topology.servers[0] : topology.servers.find((s) => s.name === settings.server);
  if (server === undefined) {
    throw new ShardingConfigError(`sharding.topology.server names "${settings.server}", which is not a server of this data source (servers: ${topology.servers.map((s) => s.name).join(', ')}).`);
  }
  const { database: _database, poolSize: _poolSize, ...options } = revealPassword(server.options);
  return new DataSource({ ...options, poolSize: 2, ...STORE_ONLY } as unknown as DataSourceOptions);
}

/** Version 1 of a new store: the configured shards, each with its default share of the buckets. */
export function initialDocument(topology: Topology, bucketCount: number): TopologyDocument {
  const shards = topology.shards.map((shard) => {
    if (shard.database === undefined) throw new ShardingConfigError(`Shard "${shard.name}" needs \`database\` to be placed by sharding.topology.`, { shard: shard.name });
    return { name: shard.name, server: topology.servers[shard.server]!.name, database: shard.database };
  });
  return { version: 1, bucketCount, shards, bucketMap: defaultBucketMap(shards.map((s) => s.name), bucketCount) };
}

/**
 * The bucket count of a new store: the one the `@Sharded({ algorithm: { type: 'hash', buckets } })`
 * entities declare when they agree, else the default 1024 (entities that disagree are refused by
 * the rules, naming the store's count).
 */
export function declaredBucketCount(entities: unknown): number {
  const counts = new Set<number>();
  const list = Array.isArray(entities) ? entities : typeof entities === 'object' && entities !== null ? Object.values(entities) : [];
  for (const entity of list) {
    if (typeof entity !== 'function') continue;
    const algorithm = getShardedOptions(entity)?.algorithm;
    if (typeof algorithm === 'object' && algorithm !== null && algorithm.type === 'hash' && algorithm.buckets !== undefined) counts.add(algorithm.buckets);
  }
  return counts.size === 1 ? [...counts][0]! : DEFAULT_BUCKET_COUNT;
}

/**
 * The `shards` entries that place `document`'s shards with the data source's servers: with
 * `servers`, `{ name, server, database }`; with servers inferred from the shards' own connection
 * options, a configured shard of the same server lends its options; on SQLite the file is the
 * database. A shard on a server the data source does not know is a ShardingConfigError.
 */
export function shardEntriesOf(document: TopologyDocument, options: ShardedDataSourceOptions, configured: Topology, dialect: 'mysql' | 'sqlite'): Record<string, unknown>[] {
  const explicit = dialect === 'mysql' && (options as { servers?: unknown }).servers !== undefined;
  return document.shards.map((shard) => {
    const own = options.shards.find((s) => s.name === shard.name) as Record<string, unknown> | undefined;
    if (dialect === 'sqlite') {
      if (shard.server !== shard.name) {
        throw new ShardingConfigError(`Topology version ${document.version}: SQLite shard "${shard.name}" must name itself as its server (each file is its own server), got "${shard.server}".`, { shard: shard.name });
      }
      return { ...(own ?? {}), name: shard.name, database: shard.database };
    }
    const server = configured.servers.findIndex((s) => s.name === shard.server);
    if (server < 0) {
      throw new ShardingConfigError(
        `Topology version ${document.version}: shard "${shard.name}" is on server "${shard.server}", which this data source does not know (servers: ${configured.servers.map((s) => s.name).join(', ')}); add it to \`servers\`.`,
        { shard: shard.name },
      );
    }
    if (explicit) return { name: shard.name, server: shard.server, database: shard.database };
    const lender = own ?? (options.shards.find((_, i) => configured.shards[i]?.server === server) as Record<string, unknown> | undefined);
    return { ...(lender ?? {}), name: shard.name, database: shard.database };
  });
}
