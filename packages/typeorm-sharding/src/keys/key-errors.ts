import { ShardingError, type ShardingErrorDetails } from '../errors/index.js';

/**
 * The clock went back further than `sharding.keyGenerator.maxClockBackwardMs` behind the
 * newest id this worker issued (an NTP step, a VM restored from a snapshot): issuing ids now
 * could repeat earlier ones, so none is issued until the clock has caught up again. Smaller
 * steps are waited out without an error.
 */
export class ClockMovedBackwardsError extends ShardingError {
  readonly code = 'SHARDING_CLOCK_BACKWARDS';
  constructor(
    message: string,
    /** How far (milliseconds) the clock is behind the earliest time a new id may carry. */
    readonly behindMs: number,
    details: Partial<ShardingErrorDetails> = {},
  ) {
    super(message, { stage: 'write', ...details });
  }
}

/** A worker id outside 0 … 1023 or not an integer. */
export class InvalidWorkerIdError extends ShardingError {
  readonly code = 'SHARDING_WORKER_ID';
  constructor(message: string, details: Partial<ShardingErrorDetails> = {}) {
    super(message, { stage: 'config', ...details });
  }
}

/**
 * The Snowflake epoch is in the future or not a time, or so far in the past that the
 * milliseconds since it no longer fit the id's 41 bits (about 69.7 years after the epoch).
 */
export class InvalidEpochError extends ShardingError {
  readonly code = 'SHARDING_EPOCH';
  constructor(message: string, details: Partial<ShardingErrorDetails> = {}) {
    super(message, { stage: 'config', ...details });
  }
}

/**
 * A leased worker id (`workerId: 'lease'`) cannot be used: none is free at `initialize()`,
 * another process took it over, or it expired because it could not be renewed. No id is
 * issued without a valid lease, so that two processes never share a worker id.
 */
export class WorkerLeaseError extends ShardingError {
  readonly code = 'SHARDING_WORKER_LEASE';
  constructor(message: string, details: Partial<ShardingErrorDetails> = {}) {
    super(message, { stage: 'write', ...details });
  }
}
