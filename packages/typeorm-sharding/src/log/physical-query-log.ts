import type { Logger, QueryRunner } from 'typeorm';
import type { PhysicalQueryEvent } from '../data-source/options.js';
import { databaseErrorOf } from './logical-query-log.js';

/**
 * How physical statements (one logical statement → one per shard it reaches) are logged
 * through the data source's logger:
 * - `false`: not logged (`onPhysicalQuery` still sees them);
 * - `'query'`: as TypeORM logs a statement — `logQuery`, `logQueryError`, `logQuerySlow` —
 *   with `/* shard <name> *\/` in front of the SQL, so the `logging` option filters them with
 *   the logical ones;
 * - `'log' | 'info' | 'warn'`: one `logger.log(level, …)` line per statement naming the shard,
 *   the duration and the row count.
 */
export type PhysicalQueryLogLevel = false | 'query' | 'log' | 'info' | 'warn';

/** What the executor calls after each physical statement; the runner is the logical statement's. */
export type PhysicalQueryLog = (event: PhysicalQueryEvent, runner: QueryRunner | undefined) => void;

/** The physical-statement log for `level` through the logger `loggerOf()` returns, or undefined when nothing is logged. */
export function physicalQueryLog(loggerOf: () => Logger, level: PhysicalQueryLogLevel, maxQueryExecutionTime: number | undefined): PhysicalQueryLog | undefined {
  if (level === false) return undefined;
  if (level === 'query') {
    return (event, runner) => {
      const logger = loggerOf();
      const sql = `/* ${where(event)} */ ${event.sql}`;
      const parameters = [...event.parameters];
      const time = Math.round(event.durationMs);
      logger.logQuery(sql, parameters, runner);
      if (maxQueryExecutionTime && time > maxQueryExecutionTime) logger.logQuerySlow(time, sql, parameters, runner);
      if (event.error !== undefined) logger.logQueryError(databaseErrorOf(event.error), sql, parameters, runner);
    };
  }
  return (event, runner) => loggerOf().log(level, describePhysicalQuery(event), runner);
}

/** One line for one physical statement: `shard s1 (0.4 ms, 3 rows): SELECT … -- PARAMETERS: [1,5]`. */
export function describePhysicalQuery(event: PhysicalQueryEvent): string {
  const ms = `${event.durationMs.toFixed(1)} ms`;
  const parameters = event.parameters.length > 0 ? ` -- PARAMETERS: ${stringify(event.parameters)}` : '';
  if (event.error !== undefined) {
    const reason = databaseErrorOf(event.error);
    return `${where(event)} failed after ${ms}: ${typeof reason === 'string' ? reason : reason.message}: ${event.sql}${parameters}`;
  }
  return `${where(event)} (${ms}, ${event.rowCount} row${event.rowCount === 1 ? '' : 's'}): ${event.sql}${parameters}`;
}

/** `shard s1`, or for a coalesced statement `server db1:3306, shards s0, s4, s8`; with the query router `… on node replica1`. */
function where(event: PhysicalQueryEvent): string {
  const place = event.shards.length > 1 ? `server ${event.server}, shards ${event.shards.join(', ')}` : `shard ${event.shard}`;
  return event.node === undefined ? place : `${place} on node ${event.node}`;
}

function stringify(parameters: readonly unknown[]): string {
  try {
    return JSON.stringify(parameters, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
  } catch {
    return String(parameters);
  }
}
