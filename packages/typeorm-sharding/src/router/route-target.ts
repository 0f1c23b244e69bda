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
  /** The first node failed with a connection error; this is the one retry. */
  | 'retry';

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
  /** 1 for the first try, 2 for the retry. */
  readonly attempt: 1 | 2;
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
}
