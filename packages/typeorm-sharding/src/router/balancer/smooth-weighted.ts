import type { BalancerCandidate } from './balancer.js';

/**
 * Smooth weighted round-robin (as nginx does it): each pick adds every candidate's weight to
 * its running credit, takes the candidate with the most credit and charges it the total.
 * Over any window a candidate gets its weight's share, interleaved rather than in bursts
 * (weights 5:1:1 give a a b a c a a, not a a a a a b c), and a candidate that joins or leaves
 * does not disturb the others' order.
 */
export class SmoothWeighted {
  private readonly credit = new Map<string, number>();

  pick<T extends BalancerCandidate>(candidates: readonly T[], weightOf: (c: T) => number): T | undefined {
    let best: T | undefined;
    let bestCredit = -Infinity;
    let total = 0;
    for (const c of candidates) {
      const w = weightOf(c);
      if (!(w > 0)) continue;
      const credit = (this.credit.get(c.name) ?? 0) + w;
      this.credit.set(c.name, credit);
      total += w;
      if (credit > bestCredit) {
        best = c;
        bestCredit = credit;
      }
    }
    if (best !== undefined) this.credit.set(best.name, bestCredit - total);
    // Credit of nodes that left must not pile up for when they return.
    if (this.credit.size > candidates.length * 2 + 8) this.credit.clear();
    return best;
  }
}
