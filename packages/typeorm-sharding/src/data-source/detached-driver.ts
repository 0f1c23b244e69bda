import type { Driver, QueryRunner, ReplicationMode } from 'typeorm';
import { UnsupportedShardingError } from '../errors/index.js';
import type { SqlDialect } from '../parameterize/index.js';

/** Connection state of the drivers a ShardedDataSource can stand on. */
const CONNECTION_FIELDS: Readonly<Record<SqlDialect, readonly string[]>> = {
  mysql: ['pool', 'poolCluster'],
  sqlite: ['databaseConnection'],
};
/** Driver methods that would open or hand out a connection of the base driver. */
const CONNECTION_METHODS: Readonly<Record<SqlDialect, readonly string[]>> = {
  mysql: ['connect', 'obtainMasterConnection', 'obtainSlaveConnection'],
  sqlite: ['connect', 'createDatabaseConnection'],
};

/**
 * Makes `ds.driver` of a ShardedDataSource safe to read. It speaks the shards' dialect —
 * escaping, type mapping, version and capabilities, which TypeORM reads while it builds SQL —
 * but it holds no connection: every connection belongs to a shard. So:
 * - its connection state (`pool`, `poolCluster` on MySQL; `databaseConnection` on SQLite) and
 *   the methods that would hand out a connection throw `UnsupportedShardingError` naming
 *   what to use instead, rather than `undefined` or a second, unrouted connection;
 * - `createQueryRunner()` returns the ShardedDataSource's own (routing) runner.
 * Nothing can run a statement through it on one shard behind the router's back.
 */
export function detachDriverConnections(driver: Driver, dialect: SqlDialect, createQueryRunner: (mode: ReplicationMode) => QueryRunner): void {
  const refuse = (member: string): never => {
    throw new UnsupportedShardingError(
      `ds.driver.${member} is not available on a ShardedDataSource: ds.driver has no connection of its own, every shard has its own ${dialect === 'mysql' ? 'pool' : 'connection'}. ` +
        `Use ds.getShardDataSource(name).driver.${member} for one shard (ds.shardNames lists them), or ds.query() / ds.createQueryRunner() to run statements where their rows live.`,
      { stage: 'config' },
    );
  };
  for (const field of CONNECTION_FIELDS[dialect]) {
    Object.defineProperty(driver, field, { configurable: true, enumerable: false, get: () => refuse(field), set: () => undefined });
  }
  for (const method of CONNECTION_METHODS[dialect]) {
    Object.defineProperty(driver, method, { configurable: true, writable: true, value: () => refuse(`${method}()`) });
  }
  Object.defineProperty(driver, 'createQueryRunner', { configurable: true, writable: true, value: createQueryRunner });
}
