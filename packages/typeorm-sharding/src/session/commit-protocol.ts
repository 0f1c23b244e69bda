import type { QueryRunner } from 'typeorm';
import type { ShardTarget } from '../execute/shard-target.js';
import type { TransactionControl } from './transaction-control.js';

/** A statement of the session: a control statement TypeORM sent, or one the protocol writes. */
export interface SessionStatement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/** A statement that opened the transaction or a savepoint, kept to be replayed on servers that join later. */
export interface OpeningStatement {
  readonly statement: SessionStatement;
  readonly kind: Extract<TransactionControl, 'set-isolation' | 'begin' | 'savepoint'>;
}

/**
 * One server's part of a session's transaction, as the protocol opened it.
 * - `own`: a connection of the server, with its own transaction (local, or an XA branch);
 * - `attached`: the server's statements run on another branch's connection (SQLite ATTACH),
 *   which commits them; nothing is sent to this one at COMMIT or SAVEPOINT.
 */
export interface Branch {
  readonly server: string;
  readonly target: ShardTarget;
  readonly runner: QueryRunner;
  readonly kind: 'own' | 'attached';
  /** XA: the branch's transaction id; undefined for a local transaction. */
  readonly xid?: { readonly gtrid: string; readonly bqual: string } | undefined;
}

/** How a server joins a transaction: its branch, and the work that opens it. */
export interface Join {
  readonly branch: Branch;
  /**
   * Opens the branch (replays the opening statements, or attaches the shard). On failure it
   * leaves nothing open on the connection and gives it back, then throws.
   */
  open(): Promise<void>;
}

/**
 * The transaction of one session, from BEGIN to COMMIT / ROLLBACK: how servers join it and
 * how it ends. One per BEGIN (`CommitProtocol.begin`).
 */
export interface SessionTransaction {
  /**
   * How `target`'s server joins, given the branches already there (in the order they joined)
   * and the statements that opened the transaction. Synchronous: the session registers the
   * branch before anything is awaited, so that a concurrent statement on the same server
   * waits for it instead of opening a second one.
   */
  join(target: ShardTarget, joined: readonly Branch[], opening: readonly OpeningStatement[]): Join;
  /** Commits every branch (each has been opened). Throws when the transaction is not committed everywhere. */
  commit(branches: readonly Branch[], statement: SessionStatement): Promise<void>;
  /** Rolls every branch back and gives their connections back; never throws for a branch that was already gone. */
  rollback(branches: readonly Branch[], statement: SessionStatement): Promise<void>;
}

/**
 * A branch's server has committed its part (the COMMIT of its local transaction, or XA COMMIT of
 * its branch), with the driver's raw result. With the query router the result carries the
 * primary's GTID of that commit: reads that must see the transaction (read-your-writes) wait
 * for it on a replica. Every protocol calls this for each server it commits.
 */
export function committedOn(branch: Branch, result: unknown): void {
  branch.target.nodes?.committed(result, branchesThatWrote.has(branch.runner));
}

/** Runners of branches that changed data in their transaction (one runner per branch and transaction). */
const branchesThatWrote = new WeakSet<QueryRunner>();

/**
 * A statement of a transaction changed data on the branch of `runner`: its COMMIT must then
 * report a GTID, and one that reports none is a write of unknown GTID (not a read-only
 * transaction), which reads that must see it take the primary for.
 */
export function noteBranchWrite(runner: QueryRunner): void {
  branchesThatWrote.add(runner);
}

/** Makes the transaction of each BEGIN: local per server, XA across servers, SQLite shards attached. */
export interface CommitProtocol {
  begin(): SessionTransaction;
}
