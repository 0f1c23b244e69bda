/**
 * The query router (issue 10): per server, which node — primary, replica or analytics replica —
 * runs each statement. See `docs/router.md`.
 */
export { QueryRouter, type QueryRouterOptions, type NodeSnapshot } from './query-router.js';
export type { RouteTarget, RouteFallback, StatementOutcome, GtidWait } from './route-target.js';
export type { RouterEventMap, NodeDownEvent, NodeUpEvent, HintOverriddenEvent, LagEvent } from './router-events.js';
export { readsSessionState, type StatementDescriptor, type StatementKind, type LockingRead } from './statement.js';
export type { RouteReason } from './decision/decide-role.js';
export { hintSet, NO_HINTS, HINT_NAMES, type RoutingHints, type RoutingHintName } from './hints/hint.js';
export { parseLeadingHints, type HintProblem, type HintProblemKind, type ParsedHints } from './hints/parse-hints.js';
export { withRouting, currentRoutingScope, type RoutingScopeOptions } from './hints/routing-scope.js';
export { RoutingSession } from './hints/routing-session.js';
export type { NodeConfig, ServerConfig, NodeRole, BalancerName } from './topology.js';
export {
  DEFAULT_ANALYTICS,
  DEFAULT_CONSISTENCY,
  DEFAULT_HEALTH,
  DEFAULT_LOAD_SCORE,
  DEFAULT_WARM_UP,
  type RouterConfig,
  type HealthCheckOptions,
  type ConsistencyOptions,
  type AnalyticsRule,
  type WarmUpOptions,
  type LoadScoreOptions,
} from './router-options.js';
export { Secret } from './secret.js';
export { RouterConfigError, NodeUnavailableError } from './errors.js';
export { readRouterConfig, readRouterDocument, type RouterDocument, type ShardingSection, type ShardPlacement } from './config/read-config.js';
export { parseRouterYaml, loadRouterYaml, type LoadYamlOptions } from './config/load-yaml.js';
export { fromTypeormReplication, type TypeormReplication, type TypeormReplicationServer } from './config/typeorm-replication.js';
export { RouterMetrics, type RouterMetricsOptions } from './metrics.js';
export { NodePools, createNodePool, type SharedPoolOptions } from './node-pools.js';
export { TRACK_LAST_GTID_SQL, gtidOfResult } from './lag/capture-gtid.js';
export { parseGtidPosition, formatGtidPosition, type GtidPosition } from './lag/gtid.js';
export type { NodeQuery } from './lag/wait-for-gtid.js';
export { isConnectionError } from './connection-error.js';
export type { Clock } from './health/clock.js';
export type { HeartbeatProbe } from './health/heartbeat-monitor.js';
export type { MonitorConnections } from './monitor-connections.js';
