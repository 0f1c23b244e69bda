import type { Balancer, BalancerCandidate } from './balancer.js';
import { SmoothWeighted } from './smooth-weighted.js';

/**
 * Takes the candidates in turn (TypeORM's `RR`), ignoring configured weights. While a node
 * warms up its turns are scaled by its share (smooth weighted round-robin over the shares,
 * which is plain rotation when every share is 1).
 */
export class RoundRobinBalancer implements Balancer {
  readonly name = 'round_robin' as const;
  private readonly rotation = new SmoothWeighted();

  pick<T extends BalancerCandidate>(candidates: readonly T[]): T | undefined {
    return this.rotation.pick(candidates, (c) => c.share);
  }
}
