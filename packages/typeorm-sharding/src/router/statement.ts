import type { RoutingHints } from './hints/hint.js';
import type { RoutingSession } from './hints/routing-session.js';

/**
 * What a statement does, as far as routing cares. Only `select` can go to a replica; every
 * other kind runs on the primary (`other` covers SHOW, CALL, LOCK TABLES, …: when in doubt,
 * the primary is always correct).
 */
export type StatementKind = 'select' | 'insert' | 'update' | 'delete' | 'ddl' | 'transaction' | 'session' | 'other';

/** A locking read (`FOR UPDATE`, `LOCK IN SHARE MODE` / `FOR SHARE`) must run where the writes are. */
export type LockingRead = 'none' | 'for-update' | 'for-share';

/**
 * The facts about one statement the router decides on. The engine fills it from the plan
 * (everything but `inTransaction`, `shardCount` and `session` is a property of the statement's
 * shape, so it can be computed once per plan).
 */
export interface StatementDescriptor {
  readonly kind: StatementKind;
  /** @default 'none' */
  readonly locking?: LockingRead;
  /**
   * The statement reads connection state or has side effects that must happen on the
   * primary's connection: `LAST_INSERT_ID()`, `FOUND_ROWS()`, `ROW_COUNT()`, `GET_LOCK()`,
   * sequences (see {@link readsSessionState}).
   * @default false
   */
  readonly readsSessionState?: boolean;
  /** Aggregate functions in the select list or HAVING. @default false */
  readonly hasAggregates?: boolean;
  /** A GROUP BY. @default false */
  readonly hasGroupBy?: boolean;
  /** No usable shard-key condition: every shard is scanned. @default false */
  readonly fullScan?: boolean;
  /** Shards the statement reaches on this server (or in all). @default 1 */
  readonly shardCount?: number;
  /** The statement runs inside a user transaction. @default false */
  readonly inTransaction?: boolean;
  /** Hints from the statement's leading comment, from `router.hintsOf(sql)`. @default none */
  readonly hints?: RoutingHints;
  /**
   * The plan-cache key of the statement's shape. With it the per-shape part of the decision is
   * remembered (the route cache); the fields above except `inTransaction`, `shardCount` and
   * `session` must then be the same for every statement with this key.
   */
  readonly shapeKey?: string;
  /**
   * The statement came through a TypeORM QueryRunner of mode `master`: TypeORM sends raw
   * `query()` calls there and the reads `save()` makes before it writes, and with replication
   * such a runner reads the master. Its reads then run on the primary unless a hint
   * (`FORCE_SLAVE`) says otherwise, as with `defaultReads: 'primary'`. Per statement, not
   * part of the shape. @default false
   */
  readonly masterRunner?: boolean;
  /**
   * The routing session of the caller (a QueryRunner's, say). When absent, the session of the
   * enclosing `withRouting` scope is used, if any.
   */
  readonly session?: RoutingSession;
}

const SESSION_STATE = /\b(?:LAST_INSERT_ID|FOUND_ROWS|ROW_COUNT|GET_LOCK|RELEASE_LOCK|RELEASE_ALL_LOCKS|IS_USED_LOCK|IS_FREE_LOCK|NEXTVAL|LASTVAL|SETVAL|CONNECTION_ID)\s*\(|\bNEXT\s+VALUE\s+FOR\b|\bPREVIOUS\s+VALUE\s+FOR\b|@@(?:SESSION\.)?(?:IDENTITY|LAST_INSERT_ID|LAST_GTID)\b/i;

/**
 * Whether a SELECT's text reads connection state or has side effects (see
 * `StatementDescriptor.readsSessionState`). A lexical check meant to run once per shape; a
 * match inside a string literal only costs a read on the primary.
 */
export function readsSessionState(sql: string): boolean {
  return SESSION_STATE.test(sql);
}
