import type { Balancer, BalancerCandidate } from './balancer.js';

/**
 * The node with the fewest statements in flight from this router, relative to its weight ×
 * warm-up share (`(inFlight + 1) / (weight × share)`: the load it would have after this
 * pick). It reacts at once to a slow node, where score-based weights lag by their refresh
 * interval. Ties rotate, so that an idle cluster is still spread. A warming node's share scales
 * its capacity (as HAProxy's slow start does with `leastconn`): it takes reads once its peers
 * have about 1/share times its own in flight, so under light load it gets fewer than its share.
 */
export class LeastOutstandingBalancer implements Balancer {
  readonly name = 'least_outstanding' as const;
  private next = 0;

  pick<T extends BalancerCandidate>(candidates: readonly T[]): T | undefined {
    const n = candidates.length;
    if (n === 0) return undefined;
    const start = this.next++ % n;
    let best: T | undefined;
    let bestLoad = Infinity;
    for (let k = 0; k < n; k++) {
      const c = candidates[(start + k) % n]!;
      const capacity = c.weight * c.share;
      if (!(capacity > 0)) continue;
      const load = (c.inFlight + 1) / capacity;
      if (load < bestLoad) {
        best = c;
        bestLoad = load;
      }
    }
    return best;
  }
}
