import { ShardingConfigError } from '../errors/index.js';

/** A step of a cross-server commit, reported to `sharding.transactions.onStep` (see `TransactionOptions`). */
export type TransactionStep =
  /** The transaction id and its participants are in the coordinator server's log (before any PREPARE). */
  | 'recorded'
  /** `XA PREPARE` succeeded on `server`. */
  | 'prepared'
  /** The decision to commit is durable: the coordinator server's local transaction committed with it. */
  | 'decided'
  /** `XA COMMIT` succeeded on `server`. */
  | 'committed'
  /** Every branch was rolled back (a failure before the decision, or a ROLLBACK). */
  | 'rolled-back'
  /** The resolver committed or rolled back a branch left prepared on `server` (`outcome`). */
  | 'resolved';

/** One step of a cross-server transaction. */
export interface TransactionStepEvent {
  readonly step: TransactionStep;
  /** The global transaction id (the XA gtrid). */
  readonly xid: string;
  /** The server the step happened on, for per-server steps. */
  readonly server?: string;
  /** Every server the transaction touched, coordinator first. */
  readonly servers: readonly string[];
  /** `resolved`: what the resolver did. */
  readonly outcome?: 'commit' | 'rollback';
}

/** How transactions that touch several servers commit (`sharding.transactions`). */
export interface TransactionOptions {
  /**
   * `'atomic'`: a transaction over several MySQL/MariaDB servers commits with XA two-phase
   * commit and a decision log; over several SQLite shard files, as one transaction of the
   * first shard's connection with the others attached. `'sequential'`: each server commits its
   * own part, one after the other (a failure part-way raises `PartialCommitError`).
   * @default 'atomic'
   */
  readonly crossServer?: 'atomic' | 'sequential';
  /**
   * Prefix of this data source's XA transaction ids (letters, digits, `_`; at most 24): the
   * resolver only touches prepared branches that carry it, so applications that share servers
   * leave each other's alone. Every process of one application must use the same prefix.
   * @default 'tsh' and a hash of the default shard's database name
   */
  readonly xidPrefix?: string;
  /**
   * The decision log: a table in the database of each server's first shard.
   * @default 'tsh_xa_log'
   */
  readonly logTable?: string;
  /**
   * How often the resolver finishes transactions a crashed process left prepared (it also runs
   * in `initialize()`); `false`: only in `initialize()`.
   * @default 5000
   */
  readonly resolveIntervalMs?: number | false;
  /**
   * A transaction recorded `prepared` but not decided (a record written by an earlier version,
   * whose decision is an UPDATE after the PREPAREs) is rolled back by the resolver only once its
   * record is this old (measured by the log server's clock): younger ones may still be committing
   * in another live process. Today's commits write their decision inside the coordinator's
   * transaction before any PREPARE, and a resolver waits for that transaction instead.
   * @default 30000
   */
  readonly resolveAfterMs?: number;
  /**
   * Called at each step of a cross-server commit and of the resolver (awaited): for metrics,
   * logs, and fault-injection tests. Keep it cheap; an error it throws is logged as a warning.
   */
  readonly onStep?: (event: TransactionStepEvent) => void | Promise<void>;
}

/** TransactionOptions with defaults applied. */
export interface TransactionSettings {
  readonly crossServer: 'atomic' | 'sequential';
  readonly xidPrefix: string | undefined;
  readonly logTable: string;
  readonly resolveIntervalMs: number | false;
  readonly resolveAfterMs: number;
  readonly onStep: ((event: TransactionStepEvent) => void | Promise<void>) | undefined;
}

const NAME = /^[A-Za-z0-9_]+$/;

/** Validates `sharding.transactions` eagerly and applies the defaults. */
export function resolveTransactionOptions(options: TransactionOptions = {}): TransactionSettings {
  const crossServer = options.crossServer ?? 'atomic';
  if (crossServer !== 'atomic' && crossServer !== 'sequential') {
    throw new ShardingConfigError(`sharding.transactions.crossServer must be 'atomic' or 'sequential'; got ${JSON.stringify(options.crossServer)}.`);
  }
  if (options.xidPrefix !== undefined && (typeof options.xidPrefix !== 'string' || !NAME.test(options.xidPrefix) || options.xidPrefix.length > 24)) {
    throw new ShardingConfigError(`sharding.transactions.xidPrefix must be 1 to 24 letters, digits or _; got ${JSON.stringify(options.xidPrefix)}.`);
  }
  const logTable = options.logTable ?? 'tsh_xa_log';
  if (typeof logTable !== 'string' || !NAME.test(logTable) || logTable.length > 64) {
    throw new ShardingConfigError(`sharding.transactions.logTable must be a table name of letters, digits or _; got ${JSON.stringify(options.logTable)}.`);
  }
  const interval = options.resolveIntervalMs ?? 5000;
  if (interval !== false && (typeof interval !== 'number' || !Number.isFinite(interval) || interval < 10)) {
    throw new ShardingConfigError(`sharding.transactions.resolveIntervalMs must be false or a number of milliseconds ≥ 10; got ${JSON.stringify(options.resolveIntervalMs)}.`);
  }
  const after = options.resolveAfterMs ?? 30_000;
  if (typeof after !== 'number' || !Number.isFinite(after) || after < 0) {
    throw new ShardingConfigError(`sharding.transactions.resolveAfterMs must be a number of milliseconds ≥ 0; got ${JSON.stringify(options.resolveAfterMs)}.`);
  }
  if (options.onStep !== undefined && typeof options.onStep !== 'function') throw new ShardingConfigError('sharding.transactions.onStep must be a function.');
  return { crossServer, xidPrefix: options.xidPrefix, logTable, resolveIntervalMs: interval, resolveAfterMs: after, onStep: options.onStep };
}
