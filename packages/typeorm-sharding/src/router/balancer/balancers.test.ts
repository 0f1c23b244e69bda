import { describe, expect, it } from 'vitest';
import type { Balancer, BalancerCandidate } from './balancer.js';
import { createBalancer } from './create-balancer.js';
import { LeastOutstandingBalancer } from './least-outstanding.js';
import { RandomBalancer } from './random.js';

const node = (name: string, extra: Partial<BalancerCandidate> = {}): BalancerCandidate => ({ name, weight: 1, share: 1, inFlight: 0, loadFactor: 1, ...extra });

/** Picks `n` times and counts per node name. */
function distribution(balancer: Balancer, candidates: readonly BalancerCandidate[], n: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const picked = balancer.pick(candidates)!;
    counts[picked.name] = (counts[picked.name] ?? 0) + 1;
  }
  return counts;
}

/** A seeded generator (mulberry32), so the random balancer's test is reproducible. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('balancers', () => {
  it('round_robin takes the nodes in turn and ignores weights', () => {
    const b = createBalancer('round_robin');
    const cs = [node('a', { weight: 5 }), node('b'), node('c')];
    expect(Array.from({ length: 6 }, () => b.pick(cs)!.name)).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('weighted_round_robin follows the weights, interleaved (smooth)', () => {
    const b = createBalancer('weighted_round_robin');
    const cs = [node('a', { weight: 5 }), node('b'), node('c')];
    expect(Array.from({ length: 7 }, () => b.pick(cs)!.name).join('')).toBe('aabacaa');
    expect(distribution(b, cs, 7000)).toEqual({ a: 5000, b: 1000, c: 1000 });
  });

  it('random is uniform (a seeded draw, within 3 %)', () => {
    const counts = distribution(new RandomBalancer(seeded(42)), [node('a'), node('b'), node('c')], 30_000);
    for (const n of ['a', 'b', 'c']) expect(Math.abs(counts[n]! - 10_000)).toBeLessThan(300);
  });

  it('least_outstanding takes the node with the fewest statements in flight per weight, rotating ties', () => {
    const b = new LeastOutstandingBalancer();
    expect(b.pick([node('a', { inFlight: 3 }), node('b', { inFlight: 1 }), node('c', { inFlight: 2 })])!.name).toBe('b');
    expect(b.pick([node('a', { inFlight: 3, weight: 4 }), node('b', { inFlight: 1 })])!.name).toBe('a');
    expect(distribution(b, [node('a'), node('b')], 10)).toEqual({ a: 5, b: 5 });
  });

  it('load_score rotates over weight × load factor: a node with score 0.75 gets a fifth of an idle peer’s reads', () => {
    const counts = distribution(createBalancer('load_score'), [node('idle', { loadFactor: 1 }), node('busy', { loadFactor: 0.25 })], 5000);
    expect(counts).toEqual({ idle: 4000, busy: 1000 });
  });

  it('order takes the first eligible node', () => {
    expect(distribution(createBalancer('order'), [node('a'), node('b')], 10)).toEqual({ a: 10 });
  });

  it('least_outstanding scales a warming node’s capacity by its share', () => {
    const b = new LeastOutstandingBalancer();
    // (inFlight + 1) / share: the new node (0 in flight, share 0.1) counts as 10.
    expect(b.pick([node('warm', { inFlight: 8 }), node('new', { share: 0.1 })])!.name).toBe('warm');
    expect(b.pick([node('warm', { inFlight: 10 }), node('new', { share: 0.1 })])!.name).toBe('new');
  });

  it.each(['round_robin', 'weighted_round_robin', 'load_score'] as const)('%s gives a warming node its share', (name) => {
    const counts = distribution(createBalancer(name), [node('warm'), node('new', { share: 0.1 })], 1100);
    expect(counts.new).toBe(100);
  });

  it('random gives a warming node its share (a seeded draw, within 1 %)', () => {
    const counts = distribution(new RandomBalancer(seeded(7)), [node('warm'), node('new', { share: 0.1 })], 11_000);
    expect(Math.abs(counts.new! - 1000)).toBeLessThan(110);
  });

  it('a node that leaves and comes back does not get a burst', () => {
    const b = createBalancer('weighted_round_robin');
    const all = [node('a'), node('b'), node('c')];
    distribution(b, all, 10);
    distribution(b, [all[0]!, all[1]!], 50);
    expect(distribution(b, all, 30)).toEqual({ a: 10, b: 10, c: 10 });
  });
});
