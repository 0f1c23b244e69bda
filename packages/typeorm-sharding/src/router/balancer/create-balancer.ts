import type { BalancerName } from '../topology.js';
import type { Balancer } from './balancer.js';
import { LeastOutstandingBalancer } from './least-outstanding.js';
import { LoadScoreBalancer } from './load-score-balancer.js';
import { OrderedBalancer } from './ordered.js';
import { RandomBalancer } from './random.js';
import { RoundRobinBalancer } from './round-robin.js';
import { WeightedRoundRobinBalancer } from './weighted-round-robin.js';

const FACTORIES = {
  round_robin: () => new RoundRobinBalancer(),
  random: () => new RandomBalancer(),
  weighted_round_robin: () => new WeightedRoundRobinBalancer(),
  least_outstanding: () => new LeastOutstandingBalancer(),
  load_score: () => new LoadScoreBalancer(),
  order: () => new OrderedBalancer(),
} satisfies Record<BalancerName, () => Balancer>;

/** A fresh balancer (balancers keep per-node state: one per server and role). */
export function createBalancer(name: BalancerName): Balancer {
  return FACTORIES[name]();
}
