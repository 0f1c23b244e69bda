import type { ValueSlot } from '../parameterize/index.js';

/**
 * One physical statement to be: a shard, and for each IN list that is cut down,
 * the items that shard receives (lists not named here are sent whole).
 */
export interface RouteUnit {
  readonly shard: number;
  readonly lists: ReadonlyMap<number, readonly ValueSlot[]>;
}

/** Where a logical statement goes. */
export type Route =
  /** It can match no row anywhere (e.g. `In([])`): nothing runs. */
  | { readonly kind: 'nowhere' }
  /** One physical statement per unit. */
  | { readonly kind: 'units'; readonly units: readonly RouteUnit[] };

/** Settings route needs (from ShardingOptions, resolved). */
export interface RouteSettings {
  readonly pruning: boolean;
  readonly maxInValuesPerQuery: number;
}
