import type { BalancerName } from '../topology.js';

/** What a balancer sees of a node. */
export interface BalancerCandidate {
  /** Unique node name (the key of per-node balancer state). */
  readonly name: string;
  /** Configured weight (> 0 for candidates: weight 0 keeps a node out of rotation). */
  readonly weight: number;
  /** Warm-up share in (0, 1]: 1 once the node is warm. */
  readonly share: number;
  /** Statements this router has in flight on the node. */
  readonly inFlight: number;
  /** 1 − load score, in (0, 1]: 1 for an idle node (see `load/load-score.ts`). */
  readonly loadFactor: number;
}

/**
 * Picks one node among the eligible ones (healthy, caught up, weight > 0), given in
 * configuration order. Every balancer honours the warm-up share, so that a node that comes
 * back gets its reduced part of the traffic whatever the strategy.
 */
export interface Balancer {
  readonly name: BalancerName;
  pick<T extends BalancerCandidate>(candidates: readonly T[]): T | undefined;
}
