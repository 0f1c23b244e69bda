import type { QueryRunner } from 'typeorm';
import type { ShardTarget } from './shard-target.js';

/**
 * The runner a transaction hands out for a shard whose statements run on another shard's
 * connection (SQLite: a shard file attached to the connection of the transaction's first
 * shard, so that one COMMIT covers both). The executor runs the statement, rewritten for that
 * connection, on `runsOn`; nothing else of a QueryRunner is used.
 */
export interface AttachedRunner {
  /** The shard whose connection runs the statements. */
  readonly runsOn: ShardTarget;
  /** The statement as that connection must read it (the shard's tables named with their schema). */
  rewrite(sql: string, parameters: readonly unknown[]): string;
}

/** Whether a runner from `ShardSession.acquire` is an attached shard's (handed out in a QueryRunner's place). */
export function isAttachedRunner(runner: QueryRunner | AttachedRunner): runner is AttachedRunner & QueryRunner {
  return (runner as Partial<AttachedRunner>).runsOn !== undefined;
}
