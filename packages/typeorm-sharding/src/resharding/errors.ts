import { ShardingError, type ShardingErrorDetails } from '../errors/index.js';

/** Why a resharding step refused to run or stopped. */
export type ReshardingProblem =
  /** The move's spec is invalid (ranges, shards, a range the source does not own). */
  | 'bad-plan'
  /** The step is not allowed in the move's current state (e.g. `switch` before `verified`). */
  | 'bad-state'
  /** The source (or target) server does not log what the catch-up needs. */
  | 'binlog-format'
  /** The catch-up is too far behind for a cutover. */
  | 'lag'
  /** Transactions open when the fence went in did not end in time: the fence was released. */
  | 'in-flight-timeout'
  /** Some clients did not adopt the new topology version in time. */
  | 'clients-not-adopted'
  /** Source and target differ after the catch-up. */
  | 'verify-mismatch'
  /** No move with that id. */
  | 'unknown-move'
  /** A binlog event the catch-up does not understand (closed world). */
  | 'unsupported-event';

/**
 * Raised by the online move workflow (`ds.resharding`, the `typeorm-sharding reshard` command).
 * `problem` says which rule was broken; the move's persisted state is left as it was before the
 * step (or, for `in-flight-timeout`, with the fence released), so the step can be retried.
 */
export class ReshardingError extends ShardingError {
  readonly code = 'SHARDING_RESHARDING';
  readonly problem: ReshardingProblem;
  /** The move concerned, when there is one. */
  readonly moveId: number | undefined;
  constructor(problem: ReshardingProblem, message: string, details: Partial<ShardingErrorDetails> & { readonly moveId?: number } = {}) {
    super(message, { stage: 'execute', ...details });
    this.problem = problem;
    this.moveId = details.moveId;
  }
}
