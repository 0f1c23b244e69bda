import { ShardingConfigError, ShardingError, type ShardingErrorDetails } from '../errors/sharding-error.js';

/**
 * The router configuration (a YAML file, `servers`, or TypeORM's `replication` form) is
 * invalid. `keyPath` names the offending key (`servers[0].replicas[1].port`), so that the
 * message can point at the line to fix; values of secrets never appear in it.
 */
export class RouterConfigError extends ShardingConfigError {
  /** Dotted path of the bad key, e.g. `healthCheck.interval`; '' for the whole document. */
  readonly keyPath: string;
  constructor(keyPath: string, message: string, details: Partial<ShardingErrorDetails> = {}) {
    super(keyPath === '' ? message : `${keyPath}: ${message}`, details);
    this.keyPath = keyPath;
  }
}

/**
 * No node of a server can take the statement: the primary is down for a statement that
 * needs it (a write, a locking read, a transaction), or every node is down. Raised at once,
 * before anything is sent, once the router knows the node is down; and from the first failure
 * on, when the node fails under the statement (a lost or refused connection, rejected
 * credentials, a read-only primary): then `node` names it and `cause` is the driver's error.
 * Writes fail fast while reads go on on the replicas.
 */
export class NodeUnavailableError extends ShardingError {
  readonly code = 'SHARDING_NODE_UNAVAILABLE';
  /** The server whose nodes could not take the statement. */
  readonly server: string;
  /** The role that was needed (`primary` for writes, `any` when every node is down). */
  readonly role: 'primary' | 'any';
  /** The node that failed under the statement, when it was sent (undefined when refused before). */
  readonly node: string | undefined;
  constructor(server: string, role: 'primary' | 'any', message: string, failure: { readonly node?: string; readonly cause?: unknown } = {}) {
    super(message, { stage: 'execute', cause: failure.cause });
    this.server = server;
    this.role = role;
    this.node = failure.node;
  }
}
