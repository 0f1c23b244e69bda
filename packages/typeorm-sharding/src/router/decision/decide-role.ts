import type { RoutingHintName, RoutingHints } from '../hints/hint.js';
import type { NodeRole } from '../topology.js';
import type { PrimaryRequirement, ShapeRoute } from './shape-route.js';

/** Why a statement went where it went (a label of decisions and events). */
export type RouteReason =
  | 'hint:FORCE_MASTER'
  | 'hint:MASTER_ONLY'
  | 'hint:FORCE_SLAVE'
  | PrimaryRequirement
  | 'transaction'
  | 'default-reads'
  | 'master-runner'
  | 'write-own-read'
  | 'analytics'
  | 'read';

/** The role a statement should run on, before a node is chosen. */
export interface RoleDecision {
  readonly role: NodeRole;
  readonly reason: RouteReason;
  /** A hint that was given but could not be followed (FORCE_SLAVE on a write, …). */
  readonly overridden: RoutingHintName | undefined;
}

/** What varies per statement of one shape. */
export interface StatementContext {
  readonly inTransaction: boolean;
  readonly shardCount: number;
  /** Hints of the statement's comment and of the enclosing `withRouting` scope together. */
  readonly hints: RoutingHints;
  readonly defaultReads: 'replica' | 'primary';
  /** The statement came through a QueryRunner of mode `master` (see `StatementDescriptor.masterRunner`). */
  readonly masterRunner?: boolean;
  /** The statement is a read a write makes for itself (see `forWritesOwnReads`). */
  readonly writesOwnReads?: boolean;
}

/**
 * The article's rules (§2.2, §3.2), in order:
 * 1. `FORCE_MASTER` (and `MASTER_ONLY`) → primary;
 * 2. writes, DDL, locking reads, reads of session state, transaction control and anything
 *    unknown → primary (a `FORCE_SLAVE` here is overridden: a write never reaches a replica);
 * 3. every statement inside a transaction, and every read a write makes for itself (save's
 *    existence check, the reload after an insert) → primary (same);
 * 4. `FORCE_SLAVE` → replica;
 * 5. `defaultReads: 'primary'` (TypeORM's `defaultMode: 'master'`), or a QueryRunner of
 *    mode `master` (TypeORM's raw `query()`, the reads of `save()`) → primary;
 * 6. analytics-shaped reads → analytics replicas;
 * 7. other reads → replicas.
 * The fall-backs (no analytics node → replicas, no replica → primary) are the node choice's.
 */
export function decideRole(shape: ShapeRoute, context: StatementContext): RoleDecision {
  const { hints } = context;
  if (hints.forceMaster) return primary('hint:FORCE_MASTER');
  if (hints.masterOnly && (context.inTransaction || shape.requires === 'transaction-control')) return primary('hint:MASTER_ONLY');
  if (shape.requires !== undefined) return primary(shape.requires, hints.forceSlave);
  if (context.inTransaction) return primary('transaction', hints.forceSlave);
  if (context.writesOwnReads) return primary('write-own-read', hints.forceSlave);
  if (hints.masterOnly) return primary('hint:MASTER_ONLY');
  if (hints.forceSlave) return { role: 'replica', reason: 'hint:FORCE_SLAVE', overridden: undefined };
  if (context.defaultReads === 'primary') return primary('default-reads');
  if (context.masterRunner) return primary('master-runner');
  if (context.shardCount >= shape.analyticsFromShards) return { role: 'analytics', reason: 'analytics', overridden: undefined };
  return { role: 'replica', reason: 'read', overridden: undefined };
}

function primary(reason: RouteReason, forceSlaveGiven = false): RoleDecision {
  return { role: 'primary', reason, overridden: forceSlaveGiven ? 'FORCE_SLAVE' : undefined };
}
