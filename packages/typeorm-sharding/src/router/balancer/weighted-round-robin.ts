import type { Balancer, BalancerCandidate } from './balancer.js';
import { SmoothWeighted } from './smooth-weighted.js';

/** The article's `weighted_round_robin`: each node's share follows its configured weight (× warm-up share). */
export class WeightedRoundRobinBalancer implements Balancer {
  readonly name = 'weighted_round_robin' as const;
  private readonly rotation = new SmoothWeighted();

  pick<T extends BalancerCandidate>(candidates: readonly T[]): T | undefined {
    return this.rotation.pick(candidates, (c) => c.weight * c.share);
  }
}
