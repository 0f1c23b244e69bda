import type { Balancer, BalancerCandidate } from './balancer.js';

/**
 * TypeORM's `ORDER`: the first eligible node in configuration order takes every read; the next
 * one only when it is down or lagging (a hot standby). Warm-up does not apply: there is no
 * share to divide.
 */
export class OrderedBalancer implements Balancer {
  readonly name = 'order' as const;

  pick<T extends BalancerCandidate>(candidates: readonly T[]): T | undefined {
    return candidates[0];
  }
}
