import { describe, expect, it } from 'vitest';
import { PlanCache } from './plan-cache.js';
import type { Plan } from './plan.js';

const plan = (reason: string): Plan => ({ kind: 'default-shard', reason });

describe('PlanCache', () => {
  it('computes a plan once per key and counts hits and misses', () => {
    const cache = new PlanCache(10);
    let created = 0;
    const create = () => plan(`p${++created}`);
    const first = cache.getOrCreate('a', create);
    expect(cache.getOrCreate('a', create)).toBe(first);
    cache.getOrCreate('b', create);
    expect(created).toBe(2);
    expect(cache.stats).toEqual({ hits: 1, misses: 2, size: 2, capacity: 10 });
  });

  it('evicts the least recently used key beyond its capacity', () => {
    const cache = new PlanCache(2);
    cache.getOrCreate('a', () => plan('a'));
    cache.getOrCreate('b', () => plan('b'));
    cache.getOrCreate('a', () => plan('a again')); // a is now the most recent
    cache.getOrCreate('c', () => plan('c')); // evicts b
    expect(cache.stats.size).toBe(2);
    expect(cache.getOrCreate('a', () => plan('a recomputed'))).toEqual(plan('a'));
    expect(cache.getOrCreate('b', () => plan('b recomputed'))).toEqual(plan('b recomputed'));
  });

  it('with capacity 0 remembers nothing', () => {
    const cache = new PlanCache(0);
    cache.getOrCreate('a', () => plan('a'));
    expect(cache.getOrCreate('a', () => plan('a2'))).toEqual(plan('a2'));
    expect(cache.stats).toEqual({ hits: 0, misses: 2, size: 0, capacity: 0 });
  });

  it('clear() empties it', () => {
    const cache = new PlanCache(3);
    cache.getOrCreate('a', () => plan('a'));
    cache.clear();
    expect(cache.stats.size).toBe(0);
  });
});
