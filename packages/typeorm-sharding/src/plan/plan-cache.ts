import type { Plan } from './plan.js';

/** Counters of a plan cache, for tests, metrics and the benchmark. */
export interface PlanCacheStats {
  readonly hits: number;
  readonly misses: number;
  readonly size: number;
  readonly capacity: number;
}

interface Entry {
  readonly plan: Plan;
  lastUsed: number;
}

/**
 * Bounded LRU from template key to plan. A hit only stamps the entry with a counter (one Map
 * lookup on the hot path); the least recently used entry is searched for on an insert into a
 * full cache, which follows a miss — and a miss already costs a parse, far more than a scan.
 */
export class PlanCache {
  private readonly entries = new Map<string, Entry>();
  private clock = 0;
  private hitCount = 0;
  private missCount = 0;

  constructor(readonly capacity: number) {}

  /** The plan of `key`, computing and remembering it on a miss. */
  getOrCreate(key: string, create: () => Plan): Plan {
    const found = this.entries.get(key);
    if (found !== undefined) {
      this.hitCount++;
      found.lastUsed = ++this.clock;
      return found.plan;
    }
    this.missCount++;
    const plan = create();
    if (this.capacity > 0) {
      if (this.entries.size >= this.capacity) this.evictLeastRecentlyUsed();
      this.entries.set(key, { plan, lastUsed: ++this.clock });
    }
    return plan;
  }

  get stats(): PlanCacheStats {
    return { hits: this.hitCount, misses: this.missCount, size: this.entries.size, capacity: this.capacity };
  }

  clear(): void {
    this.entries.clear();
  }

  private evictLeastRecentlyUsed(): void {
    let oldestKey: string | undefined;
    let oldest = Infinity;
    for (const [key, entry] of this.entries) {
      if (entry.lastUsed < oldest) {
        oldest = entry.lastUsed;
        oldestKey = key;
      }
    }
    if (oldestKey !== undefined) this.entries.delete(oldestKey);
  }
}
