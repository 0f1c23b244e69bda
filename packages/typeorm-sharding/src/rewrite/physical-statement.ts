import type { StatementDescriptor } from '../router/statement.js';

/** One statement to run on one shard: the unit of execution and of `explain()`. */
export interface PhysicalStatement {
  /** Shard index. */
  readonly shard: number;
  /** Index of the physical table it names in the shard database (a table-per-shard layout); undefined without one. */
  readonly table?: number;
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /**
   * SQLite: read INTEGER values as bigint, so that the merge can tell them from REAL values
   * (integer division, exact sums beyond 2^53). Set only on scattered statements; the merge
   * gives TypeORM numbers back.
   */
  readonly exactIntegers?: boolean;
  /**
   * MySQL: DATE, DATETIME and TIMESTAMP values as the text the server sent (mysql2's
   * `dateStrings`), for a subquery whose values are written back into a statement: a local-time
   * JS Date can hold neither a wall time that the process's time zone skips (a DST gap) nor
   * microseconds.
   */
  readonly serverText?: boolean;
  /**
   * MySQL: every table is named with its shard's database, so the statement runs on any
   * connection of the server (see `address-shard.ts`); otherwise it runs on one whose default
   * database is the shard's.
   */
  readonly qualified?: boolean;
  /**
   * A coalesced statement: the per-shard statements it carries as UNION ALL branches (see
   * `coalesce.ts`); `shard` is the first one's. Undefined: the statement of `shard` alone.
   */
  readonly branches?: readonly PhysicalStatement[];
  /**
   * With the query router (MySQL servers with replicas): what it decides the node on, set once
   * per logical statement (see `execute/routing/statement-routing.ts`). Undefined: the
   * statement runs on the primary.
   */
  readonly route?: StatementDescriptor;
}
