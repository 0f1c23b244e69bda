/** One statement to run on one shard: the unit of execution and of `explain()`. */
export interface PhysicalStatement {
  /** Shard index. */
  readonly shard: number;
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /**
   * SQLite: read INTEGER values as bigint, so that the merge can tell them from REAL values
   * (integer division, exact sums beyond 2^53). Set only on scattered statements; the merge
   * gives TypeORM numbers back.
   */
  readonly exactIntegers?: boolean;
}
