import type { DataSource, EntityMetadata, EntitySubscriberInterface } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import { ShardingConfigError } from '../errors/index.js';
import { systemClock, type Clock } from './clock.js';
import type { KeyGeneratorOptions } from './key-generator-options.js';
import { snowflakeColumnsOf, type SnowflakeColumn } from './snowflake-columns.js';
import { createSnowflakeGenerator, type KeyGenerator } from './snowflake-generator.js';
import { SnowflakeSubscriber } from './snowflake-subscriber.js';
import { sqlLeaseStore } from './sql-lease-store.js';
import { WorkerLease } from './worker-lease.js';

/** The key generator of a running ShardedDataSource. */
export interface GlobalKeys {
  readonly generator: KeyGenerator;
  /** Fills `@Snowflake()` columns; the data source registers it first among its subscribers. */
  readonly subscriber: EntitySubscriberInterface;
  /** Releases a leased worker id (ids are refused afterwards). */
  stop(): Promise<void>;
}

/** What `initialize()` learnt from the options and the entities; `start` runs once the schema is ready. */
export interface GlobalKeysPlan {
  start(defaultShard: DataSource, clock?: Clock): Promise<GlobalKeys>;
}

/**
 * Checks the `@Snowflake()` columns and `sharding.keyGenerator` together (no I/O): undefined when
 * neither is used; `ShardingConfigError` for a `@Snowflake()` column without a generator. `warn`
 * hears about integer columns on SQLite, whose ids better-sqlite3 reads back rounded.
 */
export function planGlobalKeys(
  options: KeyGeneratorOptions | undefined,
  metadatas: readonly EntityMetadata[],
  dialect: 'mysql' | 'sqlite',
  normalizeType: (column: ColumnMetadata) => string,
  warn: (message: string) => void = () => {},
): GlobalKeysPlan | undefined {
  const columns = snowflakeColumnsOf(metadatas, dialect, normalizeType);
  const lossy = [...columns].flatMap(([metadata, list]) => list.filter((c) => !c.padded).map((c) => `${metadata.name}.${c.column.propertyName}`));
  if (dialect === 'sqlite' && lossy.length > 0) {
    warn(
      `typeorm-sharding: @Snowflake() ids in integer columns (${lossy.join(', ')}) are written exactly, but better-sqlite3 reads integers beyond 2^53 back as rounded numbers ` +
        '(as TypeORM does on one SQLite database): entities read back may carry rounded ids. Use a varchar(19) column on SQLite to read them exactly.',
    );
  }
  if (options === undefined) {
    if (columns.size === 0) return undefined;
    const [metadata, [first]] = [...columns][0]! as [EntityMetadata, SnowflakeColumn[]];
    throw new ShardingConfigError(
      `Entity ${metadata.name}: @Snowflake() on "${first!.column.propertyName}" needs a key generator: set sharding.keyGenerator to { workerId: <0-1023, unique per process> } or { workerId: 'lease' }.`,
    );
  }
  return {
    async start(defaultShard, clock = systemClock) {
      const settings = { epoch: options.epoch, maxClockBackwardMs: options.maxClockBackwardMs, clock };
      let generator: KeyGenerator;
      let stop = async (): Promise<void> => {};
      if (options.workerId === 'lease') {
        const lease = await WorkerLease.claim({ store: sqlLeaseStore(defaultShard, options.leaseTable), durationMs: options.leaseMs, clock });
        try {
          generator = createSnowflakeGenerator({ ...settings, workerId: lease.workerId, notBefore: lease.notBefore, guard: (time) => lease.check(time) });
        } catch (error) {
          await lease.release();
          throw error;
        }
        lease.startRenewing();
        stop = () => lease.release();
      } else {
        generator = createSnowflakeGenerator({ ...settings, workerId: options.workerId });
      }
      return { generator, subscriber: new SnowflakeSubscriber(generator, columns), stop };
    },
  };
}
