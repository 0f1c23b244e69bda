import type { Balancer, BalancerCandidate } from './balancer.js';

/** TypeORM's `RANDOM`: a uniform draw (weighted by warm-up share only). */
export class RandomBalancer implements Balancer {
  readonly name = 'random' as const;

  constructor(private readonly random: () => number = Math.random) {}

  pick<T extends BalancerCandidate>(candidates: readonly T[]): T | undefined {
    let total = 0;
    for (const c of candidates) total += c.share;
    let r = this.random() * total;
    for (const c of candidates) {
      r -= c.share;
      if (r < 0) return c;
    }
    return candidates[candidates.length - 1];
  }
}
