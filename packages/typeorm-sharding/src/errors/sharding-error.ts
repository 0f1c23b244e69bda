import { TypeORMError } from 'typeorm';
import { isBranded } from './brand.js';

/** Pipeline stage an error comes from; `config` and `init` are raised before any query runs. */
export type ShardingStage =
  | 'config'
  | 'init'
  | 'parameterize'
  | 'plan'
  | 'route'
  | 'rewrite'
  | 'execute'
  | 'merge'
  | 'write';

/** Extra facts an error carries so that a log line names what failed and where. */
export interface ShardingErrorDetails {
  /** The stage that raised the error. */
  readonly stage: ShardingStage;
  /** The shard a physical statement ran on, when one is involved. */
  readonly shard?: string;
  /** The logical (or physical, for execute errors) SQL involved. */
  readonly sql?: string;
  /** The underlying error. */
  readonly cause?: unknown;
}

/**
 * Base class of every error typeorm-sharding raises. It subclasses TypeORM's
 * `TypeORMError`, so existing `instanceof TypeORMError` handling keeps working, and
 * carries a stable `code` that callers may switch on (messages may change; codes do not).
 *
 * `ShardQueryError` is the one exception to the class tree: it extends TypeORM's
 * `QueryFailedError` so that driver-error handling keeps working, and `instanceof
 * ShardingError` still holds for it through a brand. Its `code` is the driver's (as on any
 * `QueryFailedError`); `shardingCode` is the stable sharding code on every sharding error.
 */
export abstract class ShardingError extends TypeORMError {
  /** Stable machine-readable code, e.g. `SHARDING_UNSUPPORTED`. */
  abstract readonly code: string;
  readonly stage: ShardingStage;
  readonly shard: string | undefined;
  readonly sql: string | undefined;
  override readonly cause: unknown;

  constructor(message: string, details: ShardingErrorDetails) {
    super(message);
    this.stage = details.stage;
    this.shard = details.shard;
    this.sql = details.sql;
    this.cause = details.cause;
  }

  /** The stable sharding code; the same as `code` here, and present on `ShardQueryError` too. */
  get shardingCode(): string {
    return this.code;
  }

  /** `instanceof ShardingError` also holds for branded errors of another class tree (ShardQueryError). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    return this === ShardingError && isBranded(value);
  }
}

/** The sharding configuration or an entity's decorators are invalid. */
export class ShardingConfigError extends ShardingError {
  readonly code = 'SHARDING_CONFIG';
  constructor(message: string, details: Partial<ShardingErrorDetails> = {}) {
    super(message, { stage: 'config', ...details });
  }
}

/** A shard could not be connected or initialised. */
export class ShardConnectionError extends ShardingError {
  readonly code = 'SHARDING_CONNECTION';
  constructor(message: string, details: Partial<ShardingErrorDetails> = {}) {
    super(message, { stage: 'init', ...details });
  }
}

/**
 * The statement is valid SQL but this version cannot run it across shards without
 * risking a wrong answer (e.g. a join of rows that live on different shards).
 */
export class UnsupportedShardingError extends ShardingError {
  readonly code = 'SHARDING_UNSUPPORTED';
  constructor(message: string, details: Partial<ShardingErrorDetails> = {}) {
    super(message, { stage: 'plan', ...details });
  }
}

/**
 * The planner cannot read a statement that names a sharded or broadcast table (the SQL
 * parser rejects it, or it is of a kind the plugin does not route). Before this is raised the
 * default shard is asked to check the statement without running it: a statement the database
 * itself rejects (a typo) gets the database's own error instead, as on one database.
 */
export class UnreadableStatementError extends UnsupportedShardingError {}

/** A value cannot be used as a shard key (wrong type, missing, not an integer for `mod`, ...). */
export class InvalidShardKeyError extends ShardingError {
  readonly code = 'SHARDING_INVALID_KEY';
  constructor(message: string, details: Partial<ShardingErrorDetails> = {}) {
    super(message, { stage: 'route', ...details });
  }
}

/** An invariant of typeorm-sharding itself was broken: a bug, please report it. */
export class ShardingInternalError extends ShardingError {
  readonly code = 'SHARDING_INTERNAL';
  constructor(message: string, details: Partial<ShardingErrorDetails> = {}) {
    super(`[BUG] ${message}`, { stage: 'plan', ...details });
  }
}
