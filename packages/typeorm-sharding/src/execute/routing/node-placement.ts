import type { RouteReason } from '../../router/decision/decide-role.js';
import { hintNames, type RoutingHintName } from '../../router/hints/hint.js';
import type { RouteFallback, RouteTarget } from '../../router/route-target.js';
import type { NodeRole } from '../../router/topology.js';

/** Where the query router ran one physical statement: what `onPhysicalQuery` reports beside the shard. */
export interface NodePlacement {
  readonly node: string;
  readonly role: NodeRole;
  readonly reason: RouteReason;
  readonly fallback: RouteFallback | undefined;
  /** The routing hints that applied (comment and `withRouting` scope); empty when none. */
  readonly hints: readonly RoutingHintName[];
}

const NONE: readonly RoutingHintName[] = Object.freeze([]);

/** The placement of a routed statement. */
export function placementOf(target: RouteTarget): NodePlacement {
  return { node: target.node.name, role: target.role, reason: target.reason, fallback: target.fallback, hints: target.hints.key === '' ? NONE : hintNames(target.hints) };
}
