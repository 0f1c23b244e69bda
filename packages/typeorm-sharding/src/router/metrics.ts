import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { NodeRole } from './topology.js';

/** Where the metrics go. */
export interface RouterMetricsOptions {
  /** @default a new Registry of the router's own (expose it with `router.metrics.registry.metrics()`) */
  readonly registry?: Registry;
  /** @default 'typeorm_sharding_router_' (the article's `polar_router_`) */
  readonly prefix?: string;
}

/** Outcome label of `requests_total` (`node_error`: a node-level refusal such as rejected credentials, see `isNodeFailure`). */
export type RequestOutcome = 'ok' | 'sql_error' | 'connection_error' | 'node_error' | 'rejected';

/** Counters that a collect callback reads (cache statistics). */
export interface HitMissCounts {
  readonly hits: number;
  readonly misses: number;
}

/**
 * The router's Prometheus metrics (the article's §5.2, names adapted). Labels carry the
 * server, node, role, statement kind and outcome — never SQL text or parameter values.
 *
 * | metric | type | labels |
 * |---|---|---|
 * | `decision_time_ms` | histogram | `type` (primary, replica, analytics) |
 * | `requests_total` | counter | server, node, role, kind, outcome |
 * | `misroutes_total` (a write that reached a replica; must stay 0) | counter | server, node, kind |
 * | `failovers_total` | counter | server, node, cause (heartbeat, traffic) |
 * | `failover_time_ms` (first failure → node marked down) | histogram | server, node |
 * | `retries_total` (reads retried on another node after their node failed) | counter | server, node (the one that failed) |
 * | `fallbacks_total` (statements that did not run where their rule sent them) | counter | server, role (where it ran), fallback |
 * | `unknown_gtids_total` (writes whose GTID could not be learnt: reads go to the primary) | counter | server |
 * | `node_up` | gauge | server, node, role |
 * | `replication_lag_ms` | gauge | server, node |
 * | `node_weight` (weight × warm-up share × load factor) | gauge | server, node, role |
 * | `load_score` | gauge | server, node |
 * | `consistent_reads_total` | counter | outcome (reached, timeout, caught_up) |
 * | `hint_problems_total` | counter | problem |
 * | `route_cache_hits_total`, `route_cache_misses_total` | counter | — |
 * | `plan_cache_hits_total`, `plan_cache_misses_total` (fed by the engine) | counter | — |
 */
export class RouterMetrics {
  readonly registry: Registry;
  readonly decisionTime: Histogram<'type'>;
  readonly requests: Counter<'server' | 'node' | 'role' | 'kind' | 'outcome'>;
  readonly misroutes: Counter<'server' | 'node' | 'kind'>;
  readonly failovers: Counter<'server' | 'node' | 'cause'>;
  readonly failoverTime: Histogram<'server' | 'node'>;
  readonly retries: Counter<'server' | 'node'>;
  readonly fallbacks: Counter<'server' | 'role' | 'fallback'>;
  readonly unknownGtids: Counter<'server'>;
  readonly nodeUp: Gauge<'server' | 'node' | 'role'>;
  readonly lag: Gauge<'server' | 'node'>;
  readonly weight: Gauge<'server' | 'node' | 'role'>;
  readonly loadScore: Gauge<'server' | 'node'>;
  readonly consistentReads: Counter<'outcome'>;
  readonly hintProblems: Counter<'problem'>;
  private readonly decisionByRole: Readonly<Record<NodeRole, Histogram.Internal<'type'>>>;
  private routeCacheStats: () => HitMissCounts = () => ({ hits: 0, misses: 0 });
  private planCacheStats: () => HitMissCounts = () => ({ hits: 0, misses: 0 });

  constructor(options: RouterMetricsOptions = {}) {
    const registry = (this.registry = options.registry ?? new Registry());
    const p = options.prefix ?? 'typeorm_sharding_router_';
    const registers = [registry];
    this.decisionTime = new Histogram({
      name: `${p}decision_time_ms`,
      help: 'Time to choose the node of a statement, in milliseconds, by target type.',
      labelNames: ['type'],
      buckets: [0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5, 1, 5],
      registers,
    });
    this.decisionByRole = { primary: this.decisionTime.labels('primary'), replica: this.decisionTime.labels('replica'), analytics: this.decisionTime.labels('analytics') };
    const counts = this.requestCounts;
    this.requests = new Counter({
      name: `${p}requests_total`,
      help: 'Statements run, by node and outcome.',
      labelNames: ['server', 'node', 'role', 'kind', 'outcome'],
      registers,
      collect() {
        this.reset();
        for (const { labels, count } of counts.values()) this.inc(labels, count);
      },
    });
    this.misroutes = new Counter({ name: `${p}misroutes_total`, help: 'Writes that reached a replica (must stay 0).', labelNames: ['server', 'node', 'kind'], registers });
    this.failovers = new Counter({ name: `${p}failovers_total`, help: 'Nodes marked down.', labelNames: ['server', 'node', 'cause'], registers });
    this.failoverTime = new Histogram({
      name: `${p}failover_time_ms`,
      help: 'From the first failed heartbeat or statement to the node marked down (traffic moved), in milliseconds.',
      labelNames: ['server', 'node'],
      buckets: [10, 100, 250, 500, 1000, 2000, 3000, 5000, 10000],
      registers,
    });
    this.retries = new Counter({ name: `${p}retries_total`, help: 'Reads retried on another node after their node failed (connection error, node-level refusal), by the node that failed.', labelNames: ['server', 'node'], registers });
    const fallbackCounts = this.fallbackCounts;
    this.fallbacks = new Counter({
      name: `${p}fallbacks_total`,
      help: 'Statements that ran elsewhere than their rule said: no-analytics, no-replica, consistency-timeout, retry (after a failed node), unknown-write (a GTID the router could not learn).',
      labelNames: ['server', 'role', 'fallback'],
      registers,
      collect() {
        this.reset();
        for (const { labels, count } of fallbackCounts.values()) this.inc(labels, count);
      },
    });
    this.unknownGtids = new Counter({ name: `${p}unknown_gtids_total`, help: 'Writes on a primary whose GTID could not be learnt (their readers go to the primary until a newer position is polled).', labelNames: ['server'], registers });
    this.nodeUp = new Gauge({ name: `${p}node_up`, help: '1 when the node is up, 0 when down.', labelNames: ['server', 'node', 'role'], registers });
    this.lag = new Gauge({ name: `${p}replication_lag_ms`, help: 'Measured replication lag of a replica, in milliseconds.', labelNames: ['server', 'node'], registers });
    this.weight = new Gauge({ name: `${p}node_weight`, help: 'Effective weight: configured weight × warm-up share × load factor.', labelNames: ['server', 'node', 'role'], registers });
    this.loadScore = new Gauge({ name: `${p}load_score`, help: 'Load score in [0, 1] (0.4 CPU + 0.3 connections + 0.2 disk I/O + 0.1 latency).', labelNames: ['server', 'node'], registers });
    this.consistentReads = new Counter({ name: `${p}consistent_reads_total`, help: 'Consistent reads on replicas, by outcome (reached, timeout → primary, caught_up: no wait needed).', labelNames: ['outcome'], registers });
    this.hintProblems = new Counter({ name: `${p}hint_problems_total`, help: 'Unknown, malformed, conflicting, misplaced or overridden hints, once per statement shape.', labelNames: ['problem'], registers });
    const fromStats = (name: string, help: string, read: () => number) =>
      new Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    fromStats(`${p}route_cache_hits_total`, 'Route-cache hits.', () => this.routeCacheStats().hits);
    fromStats(`${p}route_cache_misses_total`, 'Route-cache misses.', () => this.routeCacheStats().misses);
    fromStats(`${p}plan_cache_hits_total`, 'Plan-cache hits (fed by the engine).', () => this.planCacheStats().hits);
    fromStats(`${p}plan_cache_misses_total`, 'Plan-cache misses (fed by the engine).', () => this.planCacheStats().misses);
  }

  /**
   * Statements run, by their labels, counted here and handed to `requests_total` when it is
   * read: prom-client validates and hashes a label object on every `inc`, which costs more than
   * the routing decision itself, once per statement.
   */
  private readonly requestCounts = new Map<string, { readonly labels: Record<string, string>; count: number }>();
  /** The entries of `requestCounts` by node, outcome and kind: found without building a key per statement. */
  private readonly requestEntries = new Map<string, Map<RequestOutcome, Map<string, { readonly labels: Record<string, string>; count: number }>>>();

  /** Statements that ran elsewhere than their rule said, counted as `requestCounts` (a read on a server without replicas is one, every time). */
  private readonly fallbackCounts = new Map<string, { readonly labels: Record<string, string>; count: number }>();
  /** The last entry of `fallbackCounts` used per server and fallback (its role checked): no key built per statement. */
  private readonly fallbackEntries = new Map<string, Map<string, { readonly labels: Record<string, string>; count: number }>>();

  /** Counts one fallback (`fallbacks_total`). */
  countFallback(server: string, role: NodeRole, fallback: string): void {
    const cached = this.fallbackEntries.get(server)?.get(fallback);
    if (cached !== undefined && cached.labels.role === role) {
      cached.count++;
      return;
    }
    const key = `${server}\u0000${role}\u0000${fallback}`;
    let entry = this.fallbackCounts.get(key);
    if (entry !== undefined) entry.count++;
    else this.fallbackCounts.set(key, (entry = { labels: { server, role, fallback }, count: 1 }));
    let byFallback = this.fallbackEntries.get(server);
    if (byFallback === undefined) this.fallbackEntries.set(server, (byFallback = new Map()));
    byFallback.set(fallback, entry);
  }

  /** Counts one statement run (`requests_total`). */
  countRequest(server: string, node: string, role: NodeRole, kind: string, outcome: RequestOutcome): void {
    const byKind = this.requestEntries.get(node)?.get(outcome);
    const cached = byKind?.get(kind);
    // A RouterMetrics shared by several routers may see one node name on two servers (or roles): the labels decide.
    if (cached !== undefined && cached.labels.server === server && cached.labels.role === role) {
      cached.count++;
      return;
    }
    const key = `${server}\u0000${node}\u0000${role}\u0000${kind}\u0000${outcome}`;
    let entry = this.requestCounts.get(key);
    if (entry !== undefined) entry.count++;
    else this.requestCounts.set(key, (entry = { labels: { server, node, role, kind, outcome }, count: 1 }));
    // Node names are unique in a router and a node's server and role are fixed: node, outcome and kind find the entry.
    let byOutcome = this.requestEntries.get(node);
    if (byOutcome === undefined) this.requestEntries.set(node, (byOutcome = new Map()));
    let kinds = byOutcome.get(outcome);
    if (kinds === undefined) byOutcome.set(outcome, (kinds = new Map()));
    kinds.set(kind, entry);
  }

  observeDecision(role: NodeRole, ms: number): void {
    this.decisionByRole[role].observe(ms);
  }

  /** Where the route-cache counters are read at scrape time. */
  readRouteCache(stats: () => HitMissCounts): void {
    this.routeCacheStats = stats;
  }

  /** Where the plan-cache counters are read at scrape time (the engine's `planCacheStats`). */
  readPlanCache(stats: () => HitMissCounts): void {
    this.planCacheStats = stats;
  }
}
