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
 * before anything is sent, so that writes fail fast while reads go on on the replicas.
 */
export class NodeUnavailableError extends ShardingError {
  readonly code = 'SHARDING_NODE_UNAVAILABLE';
  /** The server whose nodes could not take the statement. */
  readonly server: string;
  /** The role that was needed (`primary` for writes, `any` when every node is down). */
  readonly role: 'primary' | 'any';
  constructor(server: string, role: 'primary' | 'any', message: string) {
    super(message, { stage: 'execute' });
    this.server = server;
    this.role = role;
  }
}
