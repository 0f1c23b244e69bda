/**
 * typeorm-sharding: shard-aware TypeORM.
 *
 * ```ts
 * import { ShardedDataSource, Sharded, ShardKey, Broadcast } from 'typeorm-sharding';
 * ```
 */
export { ShardedDataSource } from './data-source/sharded-data-source.js';
export { publishTopology, type PublishTopologyOptions } from './data-source/publish-topology.js';
export { moveBucketsOffline, type OfflineMoveOptions, type OfflineMoveReport } from './data-source/move-buckets-offline.js';
export type {
  ShardedDataSourceOptions,
  MysqlShardedOptions,
  SqliteShardedOptions,
  ShardConnectionOptions,
  ShardingOptions,
  PhysicalQueryEvent,
  ServerOptions,
} from './data-source/options.js';
export type { YamlDataSourceOptions } from './data-source/yaml-options.js';
export type { ReplicaOptions, ShardingRouterOptions, RoutingMetricsOptions } from './router/config/routing-options.js';
export { withRouting, type RoutingScopeOptions } from './router/hints/routing-scope.js';
export { NodeUnavailableError, RouterConfigError } from './router/errors.js';
export { Secret } from './router/secret.js';
export { RouterMetrics, type RouterMetricsOptions } from './router/metrics.js';
export { readRouterConfig, type RouterDocument } from './router/config/read-config.js';
export { loadRouterYaml, parseRouterYaml, type LoadYamlOptions } from './router/config/load-yaml.js';
export type { QueryRouter, NodeSnapshot } from './router/query-router.js';
export type { RouterConfig } from './router/router-options.js';
export type { RouterEventMap, NodeDownEvent, NodeUpEvent, HintOverriddenEvent, LagEvent } from './router/router-events.js';
export type { HintProblem } from './router/hints/parse-hints.js';
export type { NodeRole, BalancerName } from './router/topology.js';
export type { RouteReason } from './router/decision/decide-role.js';
export type { RouteFallback } from './router/route-target.js';
export { Sharded, ShardKey, Broadcast, Snowflake, type ShardedOptions } from './decorators/index.js';
export * from './errors/index.js';
export { PartialCommitError, TransactionStateError } from './session/session-errors.js';
export { PrepareFailedError, CommitOutcomeUnknownError, CrossServerTransactionError } from './transactions/transaction-errors.js';
export type { TransactionOptions, TransactionStep, TransactionStepEvent } from './transactions/transaction-options.js';
export type { ResolveReport } from './transactions/xa-resolver.js';
export { BroadcastDivergenceError, type CopyOutcome } from './engine/copies-result.js';
export { MissingShardKeyError } from './write/route-insert.js';
export { ParameterCountError } from './parameterize/parameterize-error.js';
export type { ExplainedStatement } from './engine/sharding-engine.js';
export type { PlanCacheStats } from './plan/plan-cache.js';
export { IndexMetrics, type IndexMetricsOptions } from './indexes/index-metrics.js';
export type { CheckIndexesOptions, IndexCheckReport, IndexRepair } from './indexes/check/check-indexes.js';
export type { IndexFinding } from './indexes/check/index-findings.js';
export type { RepairAction } from './indexes/check/reconcile-entry.js';
export type { BuildIndexesOptions, IndexBuildReport } from './indexes/build/build-indexes.js';
export type { BuildPhase } from './indexes/build/build-state.js';
export {
  createHashAlgorithm,
  createModAlgorithm,
  createFunctionAlgorithm,
  canonicalKeyString,
  crc32,
  bucketSql,
  defaultBucketMap,
  DEFAULT_BUCKET_COUNT,
  type BucketRange,
  type ShardingAlgorithm,
  type ShardingAlgorithmOption,
  type ShardingFunction,
  type KeyKind,
} from './algorithms/index.js';
export {
  createSnowflakeGenerator,
  DEFAULT_MAX_CLOCK_BACKWARD_MS,
  type KeyGenerator,
  type SnowflakeGeneratorOptions,
} from './keys/snowflake-generator.js';
export { decodeSnowflake, DEFAULT_EPOCH as DEFAULT_SNOWFLAKE_EPOCH, type SnowflakeParts } from './keys/snowflake-layout.js';
export type { KeyGeneratorOptions } from './keys/key-generator-options.js';
export type { Clock } from './keys/clock.js';
export {
  installFence,
  releaseFence,
  removeFence,
  isFencedError,
  FENCE_BYPASS_VARIABLE,
  TopologyChangedError,
  TopologyConflictError,
  TopologyDocumentError,
  type InstallFenceOptions,
  type ReleaseFenceOptions,
  type RemoveFenceOptions,
  type FencedErrorFacts,
  type FencedTable,
  type FenceRange,
  type SqlConnection,
  type TopologyDocument,
  type TopologyShard,
  type TopologyView,
  type TopologyOptions,
  type MysqlTopologyOptions,
  type SqliteTopologyOptions,
  validateTopologyDocument,
  reassignBuckets,
  TopologyStore,
  DEFAULT_TOPOLOGY_DATABASE,
  type StoredTopology,
} from './topology/index.js';
export { ClockMovedBackwardsError, InvalidEpochError, InvalidWorkerIdError, WorkerLeaseError } from './keys/key-errors.js';
// Online resharding: the move workflow (see the README, "Online resharding → moving buckets").
export {
  Mover,
  ReshardingError,
  ReshardingMetrics,
  MOVE_STATES,
  placementAfterMove,
  firstBuckets,
  upperHalf,
  sqlTopologyPort,
  reshardingOf,
  governedTables,
  type ReshardingProblem,
  type MoveState,
  type MoveSpec,
  type MoveStatus,
  type MoverOptions,
  type FaultPoint,
  type SwitchOptions,
  type Placement,
  type BucketSpan,
  type GovernedTable,
  type TopologyPort,
  type VerifyResult,
  type CopyOptions,
  type ServerAddress,
} from './resharding/index.js';
