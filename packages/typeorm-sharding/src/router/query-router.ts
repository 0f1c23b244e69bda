import { EventEmitter } from 'node:events';
import { errorCodeOf, isConnectionError, isNodeFailure, isReadOnlyRefusal } from './connection-error.js';
import { decideRole, type RouteReason } from './decision/decide-role.js';
import { RouteCache } from './decision/route-cache.js';
import { classifyShape } from './decision/shape-route.js';
import { NodeUnavailableError } from './errors.js';
import { systemClock, type Clock } from './health/clock.js';
import type { HealthTransition } from './health/health-state.js';
import { HeartbeatMonitor, type HeartbeatProbe, type HeartbeatResult } from './health/heartbeat-monitor.js';
import { mysqlHeartbeat } from './health/mysql-probe.js';
import { every } from './health/periodic.js';
import { NO_HINTS, unionHints, type RoutingHintName, type RoutingHints } from './hints/hint.js';
import { HintReader } from './hints/hint-reader.js';
import type { HintProblem } from './hints/parse-hints.js';
import { currentRoutingScope } from './hints/routing-scope.js';
import type { RoutingSession } from './hints/routing-session.js';
import { gtidOfLastGtidRows, gtidOfResult, gtidUnknown } from './lag/capture-gtid.js';
import { coversPosition, mergePositions, type GtidPosition } from './lag/gtid.js';
import { checkLag, lagUnknownWarning } from './lag/lag-monitor.js';
import { waitForGtid, type NodeQuery } from './lag/wait-for-gtid.js';
import { LoadSampler } from './load/load-sampler.js';
import { RouterMetrics, type RequestOutcome, type RouterMetricsOptions } from './metrics.js';
import { MysqlMonitorConnections, type MonitorConnections } from './monitor-connections.js';
import { meanBehaviour, type NodeState } from './node-state.js';
import type { RouteFallback, RouteTarget, StatementOutcome } from './route-target.js';
import type { RouterEventMap } from './router-events.js';
import type { RouterConfig } from './router-options.js';
import { ServerState } from './server-state.js';
import type { StatementDescriptor } from './statement.js';
import type { NodeConfig, ServerConfig } from './topology.js';
import { WarmUp } from './warm-up.js';

/** What the router is given besides its configuration (all optional; tests inject fakes). */
export interface QueryRouterOptions {
  /** @default the process clock */
  readonly clock?: Clock;
  /** The heartbeat of a node. @default `SELECT 1` on a monitoring connection (see `mysqlHeartbeat`) */
  readonly probe?: HeartbeatProbe;
  /** Connections for heartbeats, lag checks and load sampling. @default one mysql2 connection per node */
  readonly monitor?: MonitorConnections;
  /** A RouterMetrics to share, or where to create one. @default a new registry */
  readonly metrics?: RouterMetrics | RouterMetricsOptions;
  /**
   * Where warnings go (hint problems, overridden hints, a replica that does not replicate),
   * each once per shape or node. The engine passes TypeORM's `logger.log('warn', …)`.
   * @default process.emitWarning
   */
  readonly warn?: (message: string) => void;
}

/** A node's state, as plain data (for tests, the demo and debugging). */
export interface NodeSnapshot {
  readonly server: string;
  readonly node: string;
  readonly role: NodeConfig['role'];
  readonly up: boolean;
  readonly lagMs: number | undefined;
  readonly share: number;
  readonly loadScore: number | undefined;
  readonly effectiveWeight: number;
  readonly inFlight: number;
  readonly routed: number;
  readonly lastFailoverMs: number | undefined;
}

const MAINTENANCE_MS = 1000;
const NO_NODES: readonly string[] = Object.freeze([]);

/**
 * The query router of the PolarDB article, per server: it picks the node (primary, replica,
 * analytics replica) of each statement from its hints, its kind, the transaction, its shape,
 * the nodes' health, replication lag, warm-up and load, and keeps those up to date with its
 * own monitors. It opens no pool: the engine runs the statement on the pool of the node it
 * gets back, and reports the outcome. See `docs/router.md` for the wiring.
 */
export class QueryRouter extends EventEmitter<RouterEventMap> {
  readonly metrics: RouterMetrics;
  private readonly servers = new Map<string, ServerState>();
  private readonly nodes = new Map<string, { server: ServerState; node: NodeState }>();
  private readonly routeCache: RouteCache;
  private readonly hintReader: HintReader;
  private readonly clock: Clock;
  private readonly warn: (message: string) => void;
  private readonly probe: HeartbeatProbe | undefined;
  private monitorConnections: MonitorConnections | undefined;
  private heartbeat: HeartbeatMonitor | undefined;
  private readonly stops: (() => void)[] = [];
  private readonly stickyByShape = new Map<string, string>();
  private readonly warned = new Set<string>();
  private readonly failoverTimes: number[] = [];

  constructor(
    readonly config: RouterConfig,
    options: QueryRouterOptions = {},
  ) {
    super();
    this.clock = options.clock ?? systemClock;
    this.warn = options.warn ?? ((message) => process.emitWarning(message, 'ShardingRouterWarning'));
    this.metrics = options.metrics instanceof RouterMetrics ? options.metrics : new RouterMetrics(options.metrics);
    this.monitorConnections = options.monitor;
    this.probe = options.probe;
    this.routeCache = new RouteCache(config.routeCacheSize);
    this.metrics.readRouteCache(() => this.routeCache);
    this.hintReader = new HintReader((problem) => this.reportHintProblem(problem));
    for (const server of config.servers) {
      const state = new ServerState(server, config.health);
      this.servers.set(server.name, state);
      for (const node of state.nodes) this.register(state, node);
      state.refresh(config.consistency.maxReplicationLagMs);
    }
  }

  /** Starts heartbeats, lag checks, load sampling and warm-up. */
  start(): void {
    if (this.heartbeat) return;
    const monitor = this.monitor();
    const all = [...this.nodes.values()].map((n) => n.node.config);
    this.heartbeat = new HeartbeatMonitor(all, this.probe ?? mysqlHeartbeat(monitor), this.clock, this.config.health, (node, result) => this.onHeartbeat(node, result));
    this.heartbeat.start();
    this.stops.push(every(this.clock, this.config.consistency.lagCheckIntervalMs, () => this.checkLagNow()));
    const sampler = new LoadSampler(monitor, this.config.loadScore, () => this.clock.now());
    this.stops.push(every(this.clock, this.config.loadScore.refreshIntervalMs, () => this.sampleLoadNow(sampler)));
    this.stops.push(every(this.clock, MAINTENANCE_MS, async () => this.maintain()));
  }

  /** Stops every monitor and closes the monitoring connections (not the engine's pools). */
  async stop(): Promise<void> {
    this.heartbeat?.stop();
    this.heartbeat = undefined;
    for (const stop of this.stops.splice(0)) stop();
    await this.monitorConnections?.close();
  }

  /** The servers' configurations (one pool per node of each: see `NodePools`). */
  get serverConfigs(): readonly ServerConfig[] {
    return this.config.servers;
  }

  /**
   * The hints in a statement's leading comment (TypeORM's `comment` option and
   * QueryBuilder `.comment()` write them there). Cheap for a statement without a leading
   * comment; problems are reported once per distinct comment.
   */
  hintsOf(sql: string): RoutingHints {
    return this.hintReader.hintsOf(sql);
  }

  /**
   * Chooses the node of one statement on `server`. Synchronous and allocation-light: the
   * per-shape part comes from the route cache when `statement.shapeKey` is given. Throws
   * `NodeUnavailableError` when the statement needs the primary and it is down, or when no
   * node at all can take a read.
   */
  route(server: string, statement: StatementDescriptor): RouteTarget {
    const started = performance.now();
    const state = this.servers.get(server);
    if (state === undefined) throw new NodeUnavailableError(server, 'any', `Unknown server ${server} (servers: ${[...this.servers.keys()].join(', ')})`);
    const scope = currentRoutingScope();
    const commentHints = statement.hints ?? NO_HINTS;
    const key = statement.shapeKey;
    const shape =
      key === undefined
        ? classifyShape(statement, this.config.analytics)
        : this.routeCache.getOrCreate(commentHints.key === '' ? key : `${key}\u0000${commentHints.key}`, () => classifyShape(statement, this.config.analytics));
    const hints = scope === undefined ? commentHints : unionHints(commentHints, scope.hints);
    const inTransaction = statement.inTransaction ?? false;
    const decision = decideRole(shape, { inTransaction, shardCount: statement.shardCount ?? 1, hints, defaultReads: this.config.defaultReads, masterRunner: statement.masterRunner === true, writesOwnReads: scope?.writesOwnReads === true });
    if (decision.overridden !== undefined) this.reportOverride(decision.overridden, decision.reason, key);
    const session = statement.session ?? scope?.session;
    // The target names the hints that applied: the comment's and the scope's together.
    const routed = hints === commentHints ? statement : { ...statement, hints };
    let target: RouteTarget;
    if (decision.role === 'primary') {
      target = this.toPrimary(state, decision.reason, undefined, routed, session, 1);
    } else {
      target = this.toReadNode(state, decision.role === 'analytics', decision.reason, hints, routed, session, key);
    }
    this.metrics.observeDecision(target.role, performance.now() - started);
    return target;
  }

  /**
   * Before a consistent read on a replica (`target.wait` set): waits on that replica for the
   * session's writes with `MASTER_GTID_WAIT`, through `query` (a statement on the pool of
   * `target.node`). Returns the target when the replica caught up, else a new target on the
   * primary (the first is completed here). Without `target.wait` returns it unchanged.
   */
  async awaitConsistency(target: RouteTarget, query: NodeQuery): Promise<RouteTarget> {
    if (target.wait === undefined) return target;
    const entry = this.nodes.get(target.node.name);
    const outcome = await waitForGtid(query, target.wait.position, target.wait.timeoutMs);
    if (outcome === 'reached') {
      this.metrics.consistentReads.inc({ outcome: 'reached' });
      if (entry) entry.node.appliedPosition = entry.node.appliedPosition === undefined ? target.wait.position : mergePositions(entry.node.appliedPosition, target.wait.position);
      return { ...target, wait: undefined };
    }
    this.metrics.consistentReads.inc({ outcome: 'timeout' });
    this.release(target);
    const state = this.servers.get(target.server)!;
    return this.toPrimary(state, target.reason, 'consistency-timeout', { kind: target.kind, inTransaction: target.inTransaction, hints: target.hints }, target.session, target.attempt);
  }

  /**
   * Reports how a statement ended; call it exactly once per target. Records latency, errors
   * and health (a node failure — a connection error, a node-level refusal: see `isNodeFailure` —
   * counts against the node), a write's GTID (read-your-writes, lag; a write whose GTID is unknown
   * sends the reads that must see it to the primary until a newer primary position is known), and
   * the request metrics. Returns the next target when the statement was a read that failed with
   * its node before delivering any row, with `retryReads` on: another eligible replica not tried
   * yet, else the primary (graceful degradation), at most one try per node of the server; run it
   * there (and complete that one too). Otherwise undefined: see `failureOf` for the error to raise.
   */
  complete(target: RouteTarget, outcome: StatementOutcome): RouteTarget | undefined {
    const entry = this.nodes.get(target.node.name);
    const now = this.clock.now();
    this.release(target);
    const failed = outcome.error !== undefined;
    const nodeFailure = failed && isNodeFailure(outcome.error, target.role);
    const result: RequestOutcome = !failed ? 'ok' : !nodeFailure ? 'sql_error' : isConnectionError(outcome.error) ? 'connection_error' : 'node_error';
    this.metrics.countRequest(target.server, target.node.name, target.role, target.kind, result);
    if (target.kind !== 'select' && target.role !== 'primary') this.metrics.misroutes.inc({ server: target.server, node: target.node.name, kind: target.kind });
    else if (failed && target.role !== 'primary' && isReadOnlyRefusal(outcome.error)) this.metrics.misroutes.inc({ server: target.server, node: target.node.name, kind: target.kind });
    if (entry === undefined) return undefined;
    const { node, server } = entry;
    node.observe(now - target.startedAt, nodeFailure);
    if (nodeFailure) {
      this.applyTransition(server, node, node.health.statementConnectionError(now));
    } else {
      node.health.statementSucceeded();
    }
    if (!failed && target.role === 'primary') this.captureWrite(server, target, outcome, now);
    if (nodeFailure && !outcome.rowsDelivered && target.role !== 'primary' && this.config.retryReads && target.kind === 'select' && !target.inTransaction) {
      this.metrics.retries.inc({ server: server.name, node: node.name });
      return this.retryTarget(server, target);
    }
    return undefined;
  }

  /**
   * Whether the engine must read `LAST_GTID_SQL` on the connection a statement just ran on, and
   * hand its rows to `complete` as `lastGtid`: a write on the primary outside a transaction whose
   * result carries no GTID (`INSERT … RETURNING`; see `gtidUnknown`).
   */
  needsLastGtid(target: RouteTarget, result: unknown): boolean {
    return target.role === 'primary' && !target.inTransaction && gtidUnknown(target.kind, result);
  }

  /**
   * The error to raise for a statement that failed with its node and that `complete` did not
   * retry: one `NodeUnavailableError` naming the server and the node, with the driver's error as
   * `cause`, from the first failure on (a write on a primary that just died, a read no node could
   * take). Undefined for an SQL error (raise it as it is) and for a stream that had delivered rows.
   */
  failureOf(target: RouteTarget, error: unknown, rowsDelivered = false): NodeUnavailableError | undefined {
    if (rowsDelivered || !isNodeFailure(error, target.role)) return undefined;
    if (target.role !== 'primary' && !this.config.retryReads) return undefined;
    const code = errorCodeOf(error) ?? 'connection error';
    const read = target.kind === 'select' && (target.role !== 'primary' || target.tried.length > 0);
    if (read) {
      const tried = [...target.tried, target.node.name].join(', ');
      return new NodeUnavailableError(target.server, 'any', `No node of server ${target.server} could take the read: ${tried} failed (last: ${code}), and no other node is eligible.`, { node: target.node.name, cause: error });
    }
    return new NodeUnavailableError(
      target.server,
      'primary',
      `The primary ${target.node.name} of server ${target.server} failed under the statement (${code}): statements that need it (writes, locking reads, transactions, FORCE_MASTER) fail until it is back; reads go on on the replicas.`,
      { node: target.node.name, cause: error },
    );
  }

  /**
   * Records the GTID of a write that ran on `server`'s primary without `route` / `complete`:
   * the COMMIT of a transaction, sent on the transaction's own connection. Reads that must see
   * it (read-your-writes) then wait for it; `session` is the routing scope's by default.
   * `wrote`: the transaction changed data there. Its COMMIT without a GTID (the connection no
   * longer tracks `last_gtid`: mysql2's `resetOnRelease` resets it) is then a write of unknown
   * GTID, as in `complete`; without `wrote` it was a read-only transaction, which needs nothing.
   */
  noteWrite(server: string, result: unknown, session: RoutingSession | undefined = currentRoutingScope()?.session, wrote = false): void {
    const state = this.servers.get(server);
    if (state === undefined) return;
    const position = gtidOfResult(result);
    const now = this.clock.now();
    if (position === undefined) {
      if (wrote) this.noteUnknownWrite(state, session, now, 'commit', `A transaction's COMMIT on the primary of server ${server} reported no GTID (does the pool reset its connections, e.g. mysql2's resetOnRelease? That undoes session_track_system_variables)`);
      return;
    }
    state.noteWrite(position, now);
    session?.noteWrite(server, position);
  }

  /**
   * Adds a replica or analytics node at run time. It starts at its warm-up share. The engine
   * opens its pool (the `node-added` of the caller's own making: this returns the config).
   */
  addNode(config: NodeConfig): NodeConfig {
    const server = this.servers.get(config.server);
    if (server === undefined) throw new NodeUnavailableError(config.server, 'any', `Unknown server ${config.server}`);
    if (this.nodes.has(config.name)) throw new TypeError(`A node named ${config.name} exists already`);
    if (config.role === 'primary') throw new TypeError('addNode adds replicas and analytics nodes; a server has one primary');
    const node = server.add(config, this.config.health);
    this.register(server, node);
    this.startWarmUp(node, this.clock.now());
    server.refresh(this.config.consistency.maxReplicationLagMs);
    this.heartbeat?.add(config);
    return config;
  }

  /** Every node's state. */
  snapshot(): NodeSnapshot[] {
    const out: NodeSnapshot[] = [];
    for (const { server, node } of this.nodes.values()) {
      out.push({
        server: server.name,
        node: node.name,
        role: node.role,
        up: node.health.isUp,
        lagMs: node.lagMs,
        share: node.share,
        loadScore: node.loadScore,
        effectiveWeight: node.weight * node.share * node.loadFactor,
        inFlight: node.inFlight,
        routed: node.routed,
        lastFailoverMs: node.health.lastFailoverMs,
      });
    }
    return out;
  }

  /** Failover times measured so far (first failure → node marked down), in ms, oldest first. */
  get failovers(): readonly number[] {
    return this.failoverTimes;
  }

  /** Runs one lag check on every server now (the monitor runs it every `lagCheckIntervalMs`). */
  async checkLagNow(): Promise<void> {
    const monitor = this.monitor();
    for (const server of this.servers.values()) {
      const before = new Map(server.replicas.concat(server.analytics).map((n) => [n.name, this.isLagEligible(n)]));
      const readings = await checkLag(server, monitor, () => this.clock.now());
      for (const r of readings) {
        if (r.lagMs !== undefined) this.metrics.lag.set({ server: server.name, node: r.node.name }, Number.isFinite(r.lagMs) ? r.lagMs : -1);
        if (r.notReplicating) this.warnOnce(`not-replicating:${r.node.name}`, `Node ${r.node.name} of server ${server.name} is configured as a replica but SHOW REPLICA STATUS returns nothing: it gets no reads.`);
        if (r.failure !== undefined) this.warnOnce(`lag-unknown:${r.node.name}:${errorCodeOf(r.failure) ?? ''}`, lagUnknownWarning(server.name, r.node.name, r.failure));
        const eligible = this.isLagEligible(r.node);
        if (before.get(r.node.name) !== eligible) {
          // Back in rotation after it was held out for its lag: it ramps up again, as a node back from down.
          if (eligible && r.node.health.isUp) this.startWarmUp(r.node, this.clock.now());
          this.emit('lag', { server: server.name, node: r.node.name, lagMs: r.lagMs ?? Number.NaN, eligible });
        }
      }
      server.refresh(this.config.consistency.maxReplicationLagMs);
    }
  }

  /** Samples the load signals of every server now (the monitor runs it every `refreshIntervalMs`). */
  async sampleLoadNow(sampler = new LoadSampler(this.monitor(), this.config.loadScore, () => this.clock.now())): Promise<void> {
    for (const server of this.servers.values()) {
      await sampler.sample(server);
      for (const node of [...server.replicas, ...server.analytics]) {
        if (node.loadScore !== undefined) this.metrics.loadScore.set({ server: server.name, node: node.name }, node.loadScore);
      }
      this.publishWeights(server);
    }
  }

  /** Advances warm-ups and refreshes the eligible lists (the monitor runs it every second). */
  maintain(): void {
    const now = this.clock.now();
    for (const server of this.servers.values()) {
      for (const group of [server.replicas, server.analytics]) {
        const warm = group.filter((n) => n.warmUp === undefined && n.health.isUp);
        for (const node of group) {
          if (node.warmUp === undefined || !node.health.isUp) continue;
          node.share = node.warmUp.advance(now, node.behaviour, meanBehaviour(warm));
          if (node.warmUp.done) node.warmUp = undefined;
        }
      }
      server.refresh(this.config.consistency.maxReplicationLagMs);
      this.publishWeights(server);
    }
  }

  /** Feeds one heartbeat result (the heartbeat monitor calls it; tests may too). */
  onHeartbeat(config: NodeConfig, result: HeartbeatResult): void {
    const entry = this.nodes.get(config.name);
    if (entry === undefined) return;
    const now = this.clock.now();
    if (result.ok) {
      entry.node.observeHeartbeat(result.rttMs);
      this.applyTransition(entry.server, entry.node, entry.node.health.heartbeatSucceeded(now));
    } else {
      this.applyTransition(entry.server, entry.node, entry.node.health.heartbeatMissed(now));
    }
  }

  private toReadNode(
    state: ServerState,
    analytics: boolean,
    reason: RouteReason,
    hints: RoutingHints,
    statement: StatementDescriptor,
    session: RoutingSession | undefined,
    shapeKey: string | undefined,
  ): RouteTarget {
    let candidates = analytics ? state.eligibleAnalytics : state.eligibleReplicas;
    let fallback: RouteFallback | undefined;
    if (candidates.length === 0 && analytics) {
      candidates = state.eligibleReplicas;
      fallback = 'no-analytics';
    }
    if (candidates.length === 0) return this.toPrimary(state, reason, 'no-replica', statement, session, 1);

    const required = this.requiredPosition(state, hints, session);
    if (required === 'primary') return this.toPrimary(state, reason, 'unknown-write', statement, session, 1);
    let wait: RouteTarget['wait'];
    if (required !== undefined) {
      const caughtUp = candidates.filter((n) => n.appliedPosition !== undefined && coversPosition(n.appliedPosition, required));
      if (caughtUp.length > 0) {
        candidates = caughtUp;
        this.metrics.consistentReads.inc({ outcome: 'caught_up' });
      } else {
        wait = { position: required, timeoutMs: this.config.consistency.waitTimeoutMs };
      }
    }

    let node: NodeState | undefined;
    let sticky = false;
    if (hints.sticky) {
      const stickyName = this.stickyNode(state.name, session, shapeKey);
      node = stickyName === undefined ? undefined : candidates.find((n) => n.name === stickyName);
      sticky = node !== undefined;
    }
    node ??= (analytics && fallback === undefined ? state.analyticsBalancer : state.replicaBalancer).pick(candidates);
    if (node === undefined) return this.toPrimary(state, reason, 'no-replica', statement, session, 1);
    if (hints.sticky && !sticky) this.rememberSticky(state.name, node.name, session, shapeKey);
    return this.target(state, node, reason, fallback, wait, sticky, statement, session, 1, NO_NODES);
  }

  private toPrimary(
    state: ServerState,
    reason: RouteReason,
    fallback: RouteFallback | undefined,
    statement: Pick<StatementDescriptor, 'kind' | 'inTransaction' | 'hints'>,
    session: RoutingSession | undefined,
    attempt: number,
  ): RouteTarget {
    if (!state.primary.health.isUp) {
      const role = fallback === undefined ? 'primary' : 'any';
      throw new NodeUnavailableError(
        state.name,
        role,
        role === 'primary'
          ? `The primary ${state.primary.name} of server ${state.name} is down: statements that need it (writes, locking reads, transactions, FORCE_MASTER) fail until it is back; reads go on on the replicas.`
          : `No node of server ${state.name} can take the read: the primary ${state.primary.name} is down and no replica is eligible (down, lagging or out of rotation).`,
      );
    }
    return this.target(state, state.primary, reason, fallback, undefined, false, statement, session, attempt, NO_NODES);
  }

  private target(
    state: ServerState,
    node: NodeState,
    reason: RouteReason,
    fallback: RouteFallback | undefined,
    wait: RouteTarget['wait'],
    sticky: boolean,
    statement: Pick<StatementDescriptor, 'kind' | 'inTransaction' | 'hints'>,
    session: RoutingSession | undefined,
    attempt: number,
    tried: readonly string[],
  ): RouteTarget {
    node.inFlight++;
    node.routed++;
    if (fallback !== undefined) this.metrics.countFallback(state.name, node.role, fallback);
    return {
      server: state.name,
      node: node.config,
      role: node.role,
      reason,
      fallback,
      wait,
      sticky,
      kind: statement.kind,
      inTransaction: statement.inTransaction ?? false,
      hints: statement.hints ?? NO_HINTS,
      attempt,
      tried,
      session,
      startedAt: this.clock.now(),
    };
  }

  private retryTarget(server: ServerState, failed: RouteTarget): RouteTarget | undefined {
    const tried = [...failed.tried, failed.node.name];
    // A read that must see some writes goes to the primary, the one node sure to be current. Its
    // target says so only before its wait ran (a wait that reached, and the caught-up shortcut,
    // leave `wait` unset): the requirement is asked again, from its hints and session.
    const consistent = failed.wait !== undefined || failed.session?.wrote(server.name) === true || this.requiredPosition(server, failed.hints, failed.session) !== undefined;
    const candidates = consistent ? [] : server.eligibleReplicas.filter((n) => !tried.includes(n.name));
    const node = candidates.length === 0 ? undefined : server.replicaBalancer.pick(candidates);
    if (node !== undefined) return this.target(server, node, failed.reason, 'retry', undefined, false, failed, failed.session, failed.attempt + 1, tried);
    // The primary last; when it is down too the read fails with `failureOf`'s error.
    if (!server.primary.health.isUp) return undefined;
    return this.target(server, server.primary, failed.reason, 'retry', undefined, false, failed, failed.session, failed.attempt + 1, tried);
  }

  /** The GTID position a read must see, per `readYourWrites` and the hints; 'primary' when a write it must see has an unknown GTID. */
  private requiredPosition(state: ServerState, hints: RoutingHints, session: RoutingSession | undefined): GtidPosition | 'primary' | undefined {
    const mode = this.config.consistency.readYourWrites;
    if (hints.consistentRead) return session === undefined ? this.routerWrites(state) : this.sessionWrites(state, session);
    if (mode === 'session') return session === undefined ? undefined : this.sessionWrites(state, session);
    if (mode === 'global') return this.routerWrites(state);
    return undefined;
  }

  /** Every write this router has seen on the server; 'primary' while one of unknown GTID is not covered by a polled position. */
  private routerWrites(state: ServerState): GtidPosition | 'primary' | undefined {
    return state.unknownWriteSince !== undefined ? 'primary' : state.lastWrite;
  }

  /** The session's writes on the server; a write of unknown GTID is replaced by the first primary position polled after it. */
  private sessionWrites(state: ServerState, session: RoutingSession): GtidPosition | 'primary' | undefined {
    const since = session.unknownWriteSince.get(state.name);
    if (since !== undefined) {
      const covering = state.positionCovering(since);
      if (covering === undefined) return 'primary';
      session.noteWrite(state.name, covering);
      session.unknownWriteSince.delete(state.name);
    }
    return session.written.get(state.name);
  }

  private captureWrite(server: ServerState, target: RouteTarget, outcome: StatementOutcome, now: number): void {
    let position = gtidOfResult(outcome.result);
    if (position === undefined && !target.inTransaction && gtidUnknown(target.kind, outcome.result)) {
      position = gtidOfLastGtidRows(outcome.lastGtid);
      if (position === undefined) {
        const why = outcome.lastGtid === undefined ? 'it was not read' : outcome.lastGtid instanceof Error ? `reading it failed: ${errorCodeOf(outcome.lastGtid) ?? outcome.lastGtid.message}` : 'it was empty';
        this.noteUnknownWrite(server, target.session, now, 'write', `A write on the primary of server ${server.name} left no GTID in its result and @@last_gtid could not tell it (${why})`);
      }
    }
    if (position === undefined) return;
    server.noteWrite(position, now);
    target.session?.noteWrite(server.name, position);
  }

  /** A write on `server` finished at `now` whose GTID is unknown: its readers take the primary until a poll covers it; said once per server and cause. */
  private noteUnknownWrite(server: ServerState, session: RoutingSession | undefined, now: number, cause: 'write' | 'commit', what: string): void {
    server.noteUnknownWrite(now);
    session?.noteUnknownWrite(server.name, now);
    this.metrics.unknownGtids.inc({ server: server.name });
    this.warnOnce(`unknown-gtid:${cause}:${server.name}`, `${what}: reads that must see it (read-your-writes, CONSISTENT_READ) run on the primary until the lag monitor has read a newer primary position.`);
  }

  private stickyNode(server: string, session: RoutingSession | undefined, shapeKey: string | undefined): string | undefined {
    return session !== undefined ? session.stickyNodes.get(server) : this.stickyByShape.get(`${server}\u0000${shapeKey ?? ''}`);
  }

  private rememberSticky(server: string, node: string, session: RoutingSession | undefined, shapeKey: string | undefined): void {
    if (session !== undefined) {
      session.stickyNodes.set(server, node);
      return;
    }
    if (this.stickyByShape.size >= 10_000) this.stickyByShape.clear();
    this.stickyByShape.set(`${server}\u0000${shapeKey ?? ''}`, node);
  }

  private release(target: RouteTarget): void {
    const entry = this.nodes.get(target.node.name);
    if (entry !== undefined && entry.node.inFlight > 0) entry.node.inFlight--;
  }

  private applyTransition(server: ServerState, node: NodeState, transition: HealthTransition | undefined): void {
    if (transition === undefined) return;
    const labels = { server: server.name, node: node.name, role: node.role };
    if (transition.to === 'down') {
      node.warmUp = undefined;
      server.refresh(this.config.consistency.maxReplicationLagMs);
      this.failoverTimes.push(transition.failoverMs);
      this.metrics.nodeUp.set(labels, 0);
      this.metrics.failovers.inc({ server: server.name, node: node.name, cause: transition.cause });
      this.metrics.failoverTime.observe({ server: server.name, node: node.name }, transition.failoverMs);
      this.emit('node-down', { server: server.name, node: node.name, role: node.role, cause: transition.cause, failoverMs: transition.failoverMs });
    } else {
      if (node.role !== 'primary') this.startWarmUp(node, this.clock.now());
      // A replica back from down is behind by its downtime: no reads until the next lag check
      // has measured it (when no lag checks run, i.e. the router was not started, it is trusted).
      if (node.role !== 'primary') node.lagMs = this.heartbeat === undefined ? undefined : Infinity;
      server.refresh(this.config.consistency.maxReplicationLagMs);
      this.metrics.nodeUp.set(labels, 1);
      this.emit('node-up', { server: server.name, node: node.name, role: node.role, downForMs: transition.downForMs });
    }
    this.publishWeights(server);
  }

  private startWarmUp(node: NodeState, now: number): void {
    node.warmUp = new WarmUp(this.config.warmUp, now);
    node.share = node.warmUp.share;
    if (node.warmUp.done) node.warmUp = undefined;
  }

  private isLagEligible(node: NodeState): boolean {
    return !node.lagUnknown && (node.lagMs === undefined || node.lagMs <= this.config.consistency.maxReplicationLagMs);
  }

  private publishWeights(server: ServerState): void {
    for (const node of server.nodes) {
      this.metrics.weight.set({ server: server.name, node: node.name, role: node.role }, node.health.isUp ? node.weight * node.share * node.loadFactor : 0);
    }
  }

  private register(server: ServerState, node: NodeState): void {
    this.nodes.set(node.name, { server, node });
    this.metrics.nodeUp.set({ server: server.name, node: node.name, role: node.role }, node.health.isUp ? 1 : 0);
  }

  private monitor(): MonitorConnections {
    this.monitorConnections ??= new MysqlMonitorConnections(this.config.health.timeoutMs);
    return this.monitorConnections;
  }

  private reportHintProblem(problem: HintProblem): void {
    this.metrics.hintProblems.inc({ problem: problem.kind });
    this.emit('hint-problem', problem);
    this.warn(`Routing hint problem (${problem.kind}): ${problem.message}`);
  }

  private reportOverride(hint: RoutingHintName, reason: RouteReason, shapeKey: string | undefined): void {
    if (!this.firstTime(`override:${hint}:${reason}:${shapeKey ?? ''}`)) return;
    this.metrics.hintProblems.inc({ problem: 'overridden-hint' });
    this.emit('hint-overridden', { hint, reason });
    this.warn(`Routing hint ${hint} cannot be followed for this statement (${reason}): it runs on the primary.`);
  }

  private warnOnce(key: string, message: string): void {
    if (this.firstTime(key)) this.warn(message);
  }

  private firstTime(key: string): boolean {
    if (this.warned.has(key)) return false;
    if (this.warned.size >= 10_000) this.warned.clear();
    this.warned.add(key);
    return true;
  }
}
