/**
 * typeorm-sharding: shard-aware TypeORM.
 *
 * ```ts
 * import { ShardedDataSource, Sharded, ShardKey, Broadcast } from 'typeorm-sharding';
 * ```
 */
export { ShardedDataSource } from './data-source/sharded-data-source.js';
export type {
  ShardedDataSourceOptions,
  MysqlShardedOptions,
  SqliteShardedOptions,
  ShardConnectionOptions,
  ShardingOptions,
  PhysicalQueryEvent,
} from './data-source/options.js';
export { Sharded, ShardKey, Broadcast, type ShardedOptions } from './decorators/index.js';
export * from './errors/index.js';
export { PartialCommitError, TransactionStateError } from './session/shard-session.js';
export { BroadcastDivergenceError, type CopyOutcome } from './engine/copies-result.js';
export { MissingShardKeyError } from './write/route-insert.js';
export { ParameterCountError } from './parameterize/parameterize-error.js';
export type { ExplainedStatement } from './engine/sharding-engine.js';
export type { PlanCacheStats } from './plan/plan-cache.js';
export {
  createHashAlgorithm,
  createModAlgorithm,
  createFunctionAlgorithm,
  canonicalKeyString,
  crc32,
  defaultBucketMap,
  DEFAULT_BUCKET_COUNT,
  type BucketRange,
  type ShardingAlgorithm,
  type ShardingAlgorithmOption,
  type ShardingFunction,
  type KeyKind,
} from './algorithms/index.js';
