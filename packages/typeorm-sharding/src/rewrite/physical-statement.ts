/** One statement to run on one shard: the unit of execution and of `explain()`. */
export interface PhysicalStatement {
  /** Shard index. */
  readonly shard: number;
  readonly sql: string;
  readonly parameters: readonly unknown[];
}
