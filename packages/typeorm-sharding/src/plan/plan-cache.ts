import type { Plan } from './plan.js';

/** Counters of a plan cache, for tests, metrics and the benchmark. */
export interface PlanCacheStats {
  readonly hits: number;
  readonly misses: number;
  readonly size: number;
  readonly capacity: number;
}

/**
 * Bounded LRU from template key to plan. A `Map` keeps insertion order, so re-inserting on
 * a hit makes the first key the least recently used one.
 */
export class PlanCache {
  private readonly entries = new Map<string, Plan>();
  private hitCount = 0;
  private missCount = 0;

  constructor(readonly capacity: number) {}

  /** The plan of `key`, computing and remembering it on a miss. */
  getOrCreate(key: string, create: () => Plan): Plan {
    const found = this.entries.get(key);
    if (found !== undefined) {
      this.hitCount++;
      this.entries.delete(key);
      this.entries.set(key, found);
      return found;
    }
    this.missCount++;
    const plan = create();
    if (this.capacity > 0) {
      this.entries.set(key, plan);
      if (this.entries.size > this.capacity) {
        this.entries.delete(this.entries.keys().next().value as string);
      }
    }
    return plan;
  }

  get stats(): PlanCacheStats {
    return { hits: this.hitCount, misses: this.missCount, size: this.entries.size, capacity: this.capacity };
  }

  clear(): void {
    this.entries.clear();
  }
}
