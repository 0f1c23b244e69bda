import type { QueryResult } from 'typeorm';
import { ShardingError } from '../errors/index.js';
import type { SqlDialect } from '../parameterize/index.js';

/** A statement that ran unchanged on every shard (write of a broadcast table, DDL, PRAGMA). */
export interface CopiesStatement {
  /** Its first keyword (`UPDATE`, `PRAGMA`, …). */
  readonly verb: string;
  /** The logical SQL. */
  readonly sql: string;
  /** Compare the shards' outcomes: the statement writes the same rows of every copy. */
  readonly check: boolean;
}

/** What one shard reported for a write to its copy. */
export interface CopyOutcome {
  readonly shard: string;
  readonly affected: number;
  /** MySQL: rows whose values changed (UPDATE). */
  readonly changedRows?: number;
  /** The generated id the shard reported for an INSERT (mysql2 `insertId`, SQLite `lastInsertRowid`). */
  readonly insertId?: number | bigint | string;
}

const ROW_WRITES = new Set(['INSERT', 'REPLACE', 'UPDATE', 'DELETE']);
const INSERTS = new Set(['INSERT', 'REPLACE']);

/**
 * The result of a statement run on every copy, as one database reports it: the default
 * shard's own result, untouched (`affected`, mysql2's `affectedRows` / `changedRows` /
 * `insertId` / `info`, SQLite's `changes` and rowid, a PRAGMA's rows). The default shard is
 * the one reads of broadcast tables are served from, so the answer agrees with the next read.
 *
 * Every copy holds the same rows, so a row write must report the same counts and generated id
 * on every shard; when they differ the copies have diverged, and `BroadcastDivergenceError`
 * says so instead of reporting one copy's count. (DDL and PRAGMA results are not compared: a
 * PRAGMA reads per-database facts, and a table rebuild counts each shard's own rows.)
 */
export function copiesResult(parts: readonly QueryResult[], shards: readonly string[], dialect: SqlDialect, statement: CopiesStatement): QueryResult {
  const first = parts[0]!;
  if (parts.length === 1 || !statement.check || !ROW_WRITES.has(statement.verb)) return first;
  const outcomes = parts.map((part, i) => outcomeOf(part, shards[i]!, dialect, INSERTS.has(statement.verb)));
  const expected = signature(outcomes[0]!);
  if (outcomes.some((o) => signature(o) !== expected)) throw new BroadcastDivergenceError(statement, outcomes);
  return first;
}

function outcomeOf(part: QueryResult, shard: string, dialect: SqlDialect, insert: boolean): CopyOutcome {
  const affected = part.affected ?? 0;
  if (dialect === 'mysql') {
    const raw = (part.raw ?? {}) as { changedRows?: number; insertId?: number | string };
    return { shard, affected, changedRows: raw.changedRows, insertId: raw.insertId };
  }
  // SQLite's lastInsertRowid is only this statement's when it inserted a row.
  return { shard, affected, insertId: insert && affected > 0 ? (part.raw as number | bigint) : undefined };
}

function signature(o: CopyOutcome): string {
  return `${o.affected}/${o.changedRows ?? ''}/${o.insertId ?? ''}`;
}

/**
 * A write to a broadcast table reported different outcomes on different shards: the copies,
 * which must be identical, are not. The statement ran on every shard (inside a transaction it
 * can still be rolled back); the copies must be repaired before the table is trusted again.
 */
export class BroadcastDivergenceError extends ShardingError {
  readonly code = 'SHARDING_BROADCAST_DIVERGENCE';
  /** What each shard reported, in shard order (the first is the default shard). */
  readonly outcomes: readonly CopyOutcome[];

  constructor(statement: CopiesStatement, outcomes: readonly CopyOutcome[]) {
    const describe = (o: CopyOutcome) =>
      `${o.shard}: ${o.affected} affected${o.changedRows !== undefined ? `, ${o.changedRows} changed` : ''}${o.insertId !== undefined ? `, id ${String(o.insertId)}` : ''}`;
    super(
      `${statement.verb} of a broadcast table reported different results on its copies (${outcomes.map(describe).join('; ')}): the copies have diverged. ` +
        `The statement ran on every shard (roll back if inside a transaction); re-copy the table from the shard that holds the right rows (reads are served by ${outcomes[0]!.shard}).`,
      { stage: 'write', sql: statement.sql },
    );
    this.outcomes = outcomes;
  }
}
