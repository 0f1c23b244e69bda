import type { ShapeRoute } from './shape-route.js';

/**
 * The article's route cache (§4.3): statement shape (plan-cache key + comment hints) → its
 * {@link ShapeRoute}. A bounded map that drops its older half when full: lookups stay one
 * `Map.get`, and a shape that is still used is back after one miss. No invalidation is needed:
 * a shape's class depends on its text only (the article invalidates on data changes because
 * it caches cost-based choices, which this router makes per statement from live state).
 */
export class RouteCache {
  private entries = new Map<string, ShapeRoute>();
  private older = new Map<string, ShapeRoute>();
  hits = 0;
  misses = 0;

  constructor(readonly capacity: number) {}

  getOrCreate(key: string, create: () => ShapeRoute): ShapeRoute {
    let found = this.entries.get(key);
    if (found !== undefined) {
      this.hits++;
      return found;
    }
    found = this.older.get(key);
    if (found === undefined) {
      this.misses++;
      found = create();
    } else {
      this.hits++;
    }
    if (this.capacity > 0) {
      if (this.entries.size >= Math.ceil(this.capacity / 2)) {
        this.older = this.entries;
        this.entries = new Map();
      }
      this.entries.set(key, found);
    }
    return found;
  }

  get size(): number {
    return this.entries.size + this.older.size;
  }
}
