import type { RouteReason } from './decision/decide-role.js';
import type { RoutingHints } from './hints/hint.js';
import type { RoutingSession } from './hints/routing-session.js';
import type { GtidPosition } from './lag/gtid.js';
import type { StatementKind } from './statement.js';
import type { NodeConfig, NodeRole } from './topology.js';

/** Why a statement did not run where its rule sent it. */
export type RouteFallback =
  /** No analytics node was eligible: a replica took the read. */
  | 'no-analytics'
  /** No replica was eligible (down, lagging, warming at 0): the primary took the read. */
  | 'no-replica'
  /** A consistent read's replica did not reach the session's writes in time. */
  | 'consistency-timeout'
  /** The node before failed (a connection error, a node-level refusal); this is a retry on another node. */
  | 'retry'
  /** A write of the session (or, outside one, of the router) has a GTID the router could not learn: the primary took the read. */
  | 'unknown-write';

/** Before a consistent read on a replica: wait until it has applied `position` (`MASTER_GTID_WAIT`). */
export interface GtidWait {
  readonly position: GtidPosition;
  readonly timeoutMs: number;
}

/**
 * Where one statement runs. Returned by `QueryRouter.route`; hand it back to
 * `QueryRouter.complete` exactly once when the statement has finished (it counts the
 * statement in flight on its node until then).
 */
export interface RouteTarget {
  readonly server: string;
  /** The node to run on: use the pool of `node.name`. */
  readonly node: NodeConfig;
  readonly role: NodeRole;
  /** The rule that decided. */
  readonly reason: RouteReason;
  readonly fallback: RouteFallback | undefined;
  /** Set when `QueryRouter.awaitConsistency` must run before the statement. */
  readonly wait: GtidWait | undefined;
  /** The same node as the session's (or shape's) previous sticky read. */
  readonly sticky: boolean;
  readonly kind: StatementKind;
  readonly inTransaction: boolean;
  /** The hints that applied: the statement's comment and the enclosing `withRouting` scope together. */
  readonly hints: RoutingHints;
  /** 1 for the first try, then 2, 3 … for each retry on another node (at most one per node of the server). */
  readonly attempt: number;
  /** @internal nodes that already failed this statement (a retry never goes back to them) */
  readonly tried: readonly string[];
  /** @internal the session that records the write's GTID */
  readonly session: RoutingSession | undefined;
  /** @internal for latency accounting (clock milliseconds) */
  readonly startedAt: number;
}

/** How a statement ended, for `QueryRouter.complete`. */
export interface StatementOutcome {
  /** The driver's result on success (mysql2's `ResultSetHeader` carries a write's GTID). */
  readonly result?: unknown;
  /** The error, when it failed. */
  readonly error?: unknown;
  /** Rows had already reached the caller when it failed (a stream): never retried. */
  readonly rowsDelivered?: boolean;
  /**
   * When `QueryRouter.needsLastGtid(target, result)` said so: the rows of `LAST_GTID_SQL` run
   * on the same connection right after the write, or the error that statement failed with.
   */
  readonly lastGtid?: unknown;
}
