/** Two column names of a join or a relation: `[column of the first table, column of the second]`. */
export type ColumnPair = readonly [string, string];

/**
 * A relation whose rows live on the same shard: the rows of `from` reference rows of `to`
 * through `pairs` (`from` column, `to` column). Table names are lower-cased.
 */
export interface ColocatedLink {
  readonly from: string;
  readonly to: string;
  readonly pairs: readonly ColumnPair[];
}

/**
 * Which sharded tables keep related rows on the same shard: groups of entities declared
 * co-located (`@Sharded({ colocateWith })`, closed transitively), and the relations between
 * members of a group (plus those of junction tables) whose joins pair rows of one shard.
 */
export class Colocation {
  constructor(
    /** Lower-cased table name → group number, for entities in a co-location group. */
    private readonly groupOf: ReadonlyMap<string, number>,
    private readonly links: readonly ColocatedLink[],
  ) {}

  /** True for two different tables of one co-location group. */
  areColocated(a: string, b: string): boolean {
    const la = a.toLowerCase();
    const lb = b.toLowerCase();
    const group = this.groupOf.get(la);
    return la !== lb && group !== undefined && group === this.groupOf.get(lb);
  }

  /**
   * True when `equal` (pairs of a column of `a` and a column of `b` known equal) contains every
   * column pair of a co-located relation between `a` and `b`, in either direction.
   */
  joinsRelatedRows(a: string, b: string, equal: readonly ColumnPair[]): boolean {
    const la = a.toLowerCase();
    const lb = b.toLowerCase();
    for (const link of this.links) {
      if (link.from === la && link.to === lb && covers(equal, link.pairs, false)) return true;
      if (link.from === lb && link.to === la && covers(equal, link.pairs, true)) return true;
    }
    return false;
  }
}

/** No table is co-located with another (the rules of tests that declare none). */
export const NO_COLOCATION = new Colocation(new Map(), []);

function covers(equal: readonly ColumnPair[], needed: readonly ColumnPair[], swapped: boolean): boolean {
  const same = (x: string, y: string) => x.toLowerCase() === y.toLowerCase();
  return needed.every(([from, to]) => equal.some(([a, b]) => (swapped ? same(a, to) && same(b, from) : same(a, from) && same(b, to))));
}
