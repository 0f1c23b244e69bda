import { ShardingError } from '../errors/index.js';

/**
 * COMMIT reached some servers and then failed on another: the transaction is partly durable.
 * Shards of one server commit together, so the error names servers (SQLite: shards). Raised
 * only where cross-server commits are not atomic (`sharding.transactions.crossServer:
 * 'sequential'`, SQLite shards in memory).
 */
export class PartialCommitError extends ShardingError {
  readonly code = 'SHARDING_PARTIAL_COMMIT';
  constructor(
    /** Servers whose part of the transaction is committed. */
    readonly committedServers: readonly string[],
    /** The server whose COMMIT failed. */
    readonly failedServer: string,
    cause: unknown,
  ) {
    super(
      `COMMIT failed on server ${failedServer} after server${committedServers.length > 1 ? 's' : ''} ${committedServers.join(', ')} had committed; the rest was rolled back.`,
      { stage: 'execute', shard: failedServer, cause },
    );
  }
}

/**
 * A transaction-control statement arrived where the database would refuse it (a second BEGIN
 * on SQLite, COMMIT with no transaction open, …). Nothing was run; the session is unchanged.
 */
export class TransactionStateError extends ShardingError {
  readonly code = 'SHARDING_TRANSACTION_STATE';
  constructor(reason: string) {
    super(`${reason}. Use the EntityManager passed to the transaction callback for work inside a transaction, and let each transaction finish before starting another on the same QueryRunner.`, { stage: 'execute' });
  }
}
