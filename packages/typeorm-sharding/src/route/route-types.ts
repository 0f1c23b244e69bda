import type { ValueSlot } from '../parameterize/index.js';

/**
 * One physical statement to be: a shard (and, under a table-per-shard layout, the index of its
 * physical table there), and for each IN list that is cut down, the items that table receives
 * (lists not named here are sent whole).
 */
export interface RouteUnit {
  readonly shard: number;
  /** Index of the physical table in the shard database (a table layout); undefined without one. */
  readonly table?: number;
  readonly lists: ReadonlyMap<number, readonly ValueSlot[]>;
  /**
   * For each prunable OR (by its index in the plan's `prunableOrs`) that the unit receives cut
   * down, the indexes of the terms it keeps, ascending; ORs not named here are sent whole.
   */
  readonly ors?: ReadonlyMap<number, readonly number[]>;
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
