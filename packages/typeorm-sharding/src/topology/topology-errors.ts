import { ShardingError, type ShardingErrorDetails } from '../errors/index.js';

/**
 * The placement of the rows a statement touched changed while it ran: the database refused the
 * write because its buckets are fenced (a move is cutting over), and the data source could not
 * reach a topology version past the fence in time, or the write was part of a user transaction.
 *
 * Nothing of the refused statement was written. `retryable` is always true: retry the statement
 * (or, inside a transaction, the whole transaction — TypeORM has rolled it back) and it is routed
 * by the newer topology.
 */
export class TopologyChangedError extends ShardingError {
  readonly code = 'SHARDING_TOPOLOGY_CHANGED';
  /** Always true: the caller may retry; the next attempt is routed by the new topology. */
  readonly retryable = true as const;
  constructor(
    message: string,
    /** The topology version the fence named (the version the move publishes). */
    readonly fenceVersion: number | undefined,
    /** The bucket the refused row belongs to, when the fence named it. */
    readonly bucket: number | undefined,
    details: Partial<ShardingErrorDetails> = {},
  ) {
    super(message, { stage: 'execute', ...details });
  }
}

/** A topology document (or the metadata store holding it) is invalid or unreadable. */
export class TopologyDocumentError extends ShardingError {
  readonly code = 'SHARDING_TOPOLOGY_DOCUMENT';
  constructor(message: string, details: Partial<ShardingErrorDetails> = {}) {
    super(message, { stage: 'config', ...details });
  }
}

/** `publishTopology` lost the race: another process published this version first. */
export class TopologyConflictError extends ShardingError {
  readonly code = 'SHARDING_TOPOLOGY_CONFLICT';
  constructor(
    /** The version this call tried to publish. */
    readonly version: number,
    cause?: unknown,
  ) {
    super(`Topology version ${version} was published by someone else first; re-read the current topology and retry`, { stage: 'execute', cause });
  }
}
