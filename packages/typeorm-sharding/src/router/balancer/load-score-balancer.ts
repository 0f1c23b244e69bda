import type { Balancer, BalancerCandidate } from './balancer.js';
import { SmoothWeighted } from './smooth-weighted.js';

/**
 * The article's default (§2.2.3): weights follow the nodes' load scores, refreshed every 5 s
 * by the load sampler (`loadFactor` = 1 − score), and reads rotate over weight × warm-up
 * share × load factor. Rotating over weights rather than always taking the lowest score
 * keeps a stale score (it is up to 5 s old) from sending every read to one node.
 */
export class LoadScoreBalancer implements Balancer {
  readonly name = 'load_score' as const;
  private readonly rotation = new SmoothWeighted();

  pick<T extends BalancerCandidate>(candidates: readonly T[]): T | undefined {
    return this.rotation.pick(candidates, (c) => c.weight * c.share * c.loadFactor);
  }
}
