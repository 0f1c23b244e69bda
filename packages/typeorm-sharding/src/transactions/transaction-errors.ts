import { ShardingError } from '../errors/index.js';

/**
 * A cross-server commit failed before its decision (a server failed `XA END` / `XA PREPARE`, the
 * log could not be written, or the resolver of another process rolled it back because its
 * prepare phase outlived `resolveAfterMs`): every server's part was rolled back; nothing of the
 * transaction is durable. Retrying it is safe.
 */
export class PrepareFailedError extends ShardingError {
  readonly code = 'SHARDING_PREPARE_FAILED';
  constructor(
    /** The server where the commit failed. */
    readonly server: string,
    /** What failed there. */
    readonly reason: string,
    cause?: unknown,
  ) {
    const detail = cause instanceof Error ? `: ${cause.message}` : '';
    super(`COMMIT failed on server ${server} (${reason})${detail}; every server's part of the transaction was rolled back.`, { stage: 'execute', shard: server, cause });
  }
}

/**
 * The decision of a cross-server commit could not be confirmed: the coordinator server's
 * COMMIT (which carries the decision) lost its connection and the log could not be read
 * afterwards. The transaction is either committed or rolled back on every server — never
 * partly — and the resolver finishes the prepared parts the same way once the server answers.
 */
export class CommitOutcomeUnknownError extends ShardingError {
  readonly code = 'SHARDING_COMMIT_OUTCOME_UNKNOWN';
  constructor(
    /** The coordinator server, whose log holds the decision. */
    readonly server: string,
    /** The global transaction id to look for in its log (`sharding.transactions.logTable`). */
    readonly xid: string,
    cause: unknown,
  ) {
    super(
      `The outcome of the COMMIT of transaction ${xid} is unknown: server ${server} (which holds its decision) did not answer${cause instanceof Error ? ` (${cause.message})` : ''}. It is committed or rolled back on every server alike; the resolver finishes it when ${server} answers again.`,
      { stage: 'execute', shard: server, cause },
    );
  }
}

/**
 * A transaction was about to reach one more server or shard that it cannot commit atomically
 * together with the others (XA unavailable on that server version, SQLite shards that cannot be
 * attached to one connection). The statement did not run there; the transaction is still open
 * (roll it back), the data is unchanged. The message names the fix, or
 * `sharding.transactions.crossServer: 'sequential'` to accept commits one server at a time.
 */
export class CrossServerTransactionError extends ShardingError {
  readonly code = 'SHARDING_CROSS_SERVER_TRANSACTION';
  constructor(message: string, server: string) {
    super(message, { stage: 'execute', shard: server });
  }
}
