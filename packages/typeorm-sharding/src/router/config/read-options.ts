import { RouterConfigError } from '../errors.js';
import {
  DEFAULT_ANALYTICS,
  DEFAULT_CONSISTENCY,
  DEFAULT_HEALTH,
  DEFAULT_LOAD_SCORE,
  DEFAULT_WARM_UP,
  type AnalyticsRule,
  type ConsistencyOptions,
  type HealthCheckOptions,
  type LoadScoreOptions,
  type WarmUpOptions,
} from '../router-options.js';
import type { Fields } from './fields.js';

/** Keys of `healthCheck:`. */
export const HEALTH_KEYS = ['interval', 'timeout', 'retry', 'rise', 'errorThreshold', 'minDown'] as const;
/** Keys of `routing.analytics:`. */
export const ANALYTICS_KEYS = ['aggregates', 'groupBy', 'fullScans', 'minShards', 'minShardsForAggregates'] as const;
/** Keys of `warmUp:`. */
export const WARM_UP_KEYS = ['duration', 'initialShare', 'steps', 'latencyTolerance', 'errorRateTolerance'] as const;
/** Keys of `loadScore:`. */
export const LOAD_SCORE_KEYS = ['refreshInterval', 'weights'] as const;
/** The routing policy keys of `routing:` (besides its server's `master`, `slave`, `columnar`). */
export const ROUTING_POLICY_KEYS = ['maxReplicationLagMs', 'lagCheckInterval', 'readYourWrites', 'consistentReadTimeout', 'analytics', 'defaultReads', 'retryReads', 'routeCacheSize'] as const;

/** `healthCheck:` — the article's `interval`, `timeout`, `retry`, plus `rise`, `errorThreshold`, `minDown`. */
export function readHealth(f: Fields | undefined): HealthCheckOptions {
  if (!f) return DEFAULT_HEALTH;
  const d = DEFAULT_HEALTH;
  const intervalMs = f.number('interval', d.intervalMs, { min: 1, integer: true });
  const timeoutMs = f.number('timeout', d.timeoutMs, { min: 1, integer: true });
  if (timeoutMs > intervalMs) throw new RouterConfigError(f.at('timeout'), `must not exceed interval (${intervalMs} ms): a heartbeat would still run when the next one starts`);
  return Object.freeze({
    intervalMs,
    timeoutMs,
    failureThreshold: f.number('retry', d.failureThreshold, { min: 1, integer: true }),
    successThreshold: f.number('rise', d.successThreshold, { min: 1, integer: true }),
    errorThreshold: f.number('errorThreshold', d.errorThreshold, { min: 0, integer: true }),
    minDownMs: f.number('minDown', d.minDownMs, { min: 0, integer: true }),
  });
}

/** Consistency keys of `routing:`. */
export function readConsistency(f: Fields | undefined): ConsistencyOptions {
  if (!f) return DEFAULT_CONSISTENCY;
  const d = DEFAULT_CONSISTENCY;
  return Object.freeze({
    maxReplicationLagMs: f.number('maxReplicationLagMs', d.maxReplicationLagMs, { min: 0 }),
    lagCheckIntervalMs: f.number('lagCheckInterval', d.lagCheckIntervalMs, { min: 1, integer: true }),
    readYourWrites: f.oneOf('readYourWrites', ['hint', 'session', 'global'] as const, d.readYourWrites),
    waitTimeoutMs: f.number('consistentReadTimeout', d.waitTimeoutMs, { min: 0, integer: true }),
  });
}

/** `routing.analytics:` — which reads count as analytics-shaped. */
export function readAnalytics(f: Fields | undefined): AnalyticsRule {
  if (!f) return DEFAULT_ANALYTICS;
  const d = DEFAULT_ANALYTICS;
  return Object.freeze({
    aggregates: f.boolean('aggregates', d.aggregates),
    groupBy: f.boolean('groupBy', d.groupBy),
    fullScans: f.boolean('fullScans', d.fullScans),
    minShards: f.number('minShards', d.minShards, { min: 1, integer: true }),
    minShardsForAggregates: f.number('minShardsForAggregates', d.minShardsForAggregates, { min: 1, integer: true }),
  });
}

/** `warmUp:` */
export function readWarmUp(f: Fields | undefined): WarmUpOptions {
  if (!f) return DEFAULT_WARM_UP;
  const d = DEFAULT_WARM_UP;
  return Object.freeze({
    durationMs: f.number('duration', d.durationMs, { min: 0, integer: true }),
    initialShare: f.number('initialShare', d.initialShare, { min: 0, max: 1, exclusiveMin: true }),
    steps: f.number('steps', d.steps, { min: 1, integer: true }),
    latencyTolerance: f.number('latencyTolerance', d.latencyTolerance, { min: 1 }),
    errorRateTolerance: f.number('errorRateTolerance', d.errorRateTolerance, { min: 0, max: 1 }),
  });
}

/** `loadScore:` — refresh interval and the weights of the four terms (they must add up to 1). */
export function readLoadScore(f: Fields | undefined): LoadScoreOptions {
  if (!f) return DEFAULT_LOAD_SCORE;
  const d = DEFAULT_LOAD_SCORE;
  const w = f.child('weights', ['cpu', 'connections', 'io', 'latency']);
  const weights = w
    ? {
        cpu: w.number('cpu', d.weights.cpu, { min: 0, max: 1 }),
        connections: w.number('connections', d.weights.connections, { min: 0, max: 1 }),
        io: w.number('io', d.weights.io, { min: 0, max: 1 }),
        latency: w.number('latency', d.weights.latency, { min: 0, max: 1 }),
      }
    : d.weights;
  const sum = weights.cpu + weights.connections + weights.io + weights.latency;
  if (Math.abs(sum - 1) > 1e-9) throw new RouterConfigError(f.at('weights'), `the four weights must add up to 1, they add up to ${Number(sum.toFixed(6))}`);
  return Object.freeze({ refreshIntervalMs: f.number('refreshInterval', d.refreshIntervalMs, { min: 1, integer: true }), weights: Object.freeze(weights) });
}
