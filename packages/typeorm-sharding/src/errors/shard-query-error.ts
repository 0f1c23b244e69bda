import { QueryFailedError } from 'typeorm';
import { brand } from './brand.js';
import type { ShardingStage } from './sharding-error.js';

/** Where a physical statement failed. */
export interface ShardQueryFacts {
  /** The shard the statement ran on. */
  readonly shard: string;
  /** The physical statement (after routing and rewriting) that failed. */
  readonly physicalQuery: string;
  readonly physicalParameters: readonly unknown[];
  /** What the shard was doing when it was not running the caller's own statement (e.g. joining the transaction). */
  readonly context?: string;
}

/**
 * A physical statement failed on a shard; the logical statement returns nothing.
 *
 * It is TypeORM's `QueryFailedError`, shaped exactly as one plain DataSource would shape it
 * for the same failing statement — `query` and `parameters` are the logical statement,
 * `driverError` and the driver's fields copied onto the error (`code`, `errno`, `sqlState`,
 * `sqlMessage`, …) are the shard's — so existing handling such as
 * `error instanceof QueryFailedError && error.driverError.code === 'ER_DUP_ENTRY'` keeps
 * working. On top it names the `shard` and the physical statement, and it still counts as a
 * sharding error: `instanceof ShardingError` holds, and `shardingCode` is
 * `SHARDING_SHARD_QUERY_FAILED` (`code`, as on any QueryFailedError, is the driver's).
 */
export class ShardQueryError<T extends Error = Error> extends QueryFailedError<T> {
  /** Stable sharding code (the driver's code is in `code`). */
  readonly shardingCode = 'SHARDING_SHARD_QUERY_FAILED';
  readonly stage: ShardingStage = 'execute';
  /** The shard whose statement failed. */
  readonly shard: string;
  /** The physical statement that failed on `shard`. */
  readonly physicalQuery: string;
  readonly physicalParameters: readonly unknown[];
  /** The error the shard's runner or driver raised. */
  override readonly cause: unknown;
  /** The driver's error code (`ER_DUP_ENTRY`, `SQLITE_CONSTRAINT_PRIMARYKEY`, …), copied from `driverError` as TypeORM does. */
  declare readonly code?: string;
  /**
   * The physical SQL: mysql2's own `sql` field (the statement with its values, as it sent it)
   * when the driver gives one, else `physicalQuery`.
   */
  declare readonly sql: string;

  constructor(cause: unknown, facts: ShardQueryFacts) {
    const driverError = (cause instanceof QueryFailedError ? cause.driverError : cause) ?? new Error(`Shard ${facts.shard} failed without an error`);
    super(facts.physicalQuery, [...facts.physicalParameters], driverError as T);
    this.message = `${this.message} (on shard ${facts.shard}${facts.context ? `, ${facts.context}` : ''})`;
    this.shard = facts.shard;
    this.physicalQuery = facts.physicalQuery;
    this.physicalParameters = facts.physicalParameters;
    this.cause = cause;
    // Only when the driver gave none: its own `sql` (copied by QueryFailedError) is kept.
    if (typeof (this as { sql?: unknown }).sql !== 'string') Object.assign(this, { sql: facts.physicalQuery });
  }
}
brand(ShardQueryError);
