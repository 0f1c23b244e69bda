import type { Readable } from 'node:stream';
import type { QueryRunner } from 'typeorm';
import type { Row } from '../values/row.js';
import type { PhysicalStatement } from '../rewrite/physical-statement.js';
import type { ShardSession } from '../session/shard-session.js';
import { placeOf, reportPhysical, throwFailingBranch, type ExecutorSettings } from './executor.js';
import { shardFailure } from './shard-failure.js';
import { ON_PRIMARY, type ShardTarget } from './shard-target.js';
import { placementOf, type NodePlacement } from './routing/node-placement.js';

/**
 * Opens one row stream per physical statement (MySQL/MariaDB: the driver's streaming query,
 * which pauses the socket when the consumer is slow), so that a merge pulling one row at a
 * time holds shards × a small buffer in memory, not shards × (offset + count) rows.
 *
 * Each stream keeps its connection until it ends. When the merge stops early (its LIMIT is
 * reached) the rest of a stream is drained in the background and discarded — the shard was
 * sent `LIMIT offset+count`, so that is bounded — and only then is the connection released:
 * giving back a connection in the middle of a result would corrupt it.
 */
export function streamStatements(
  statements: readonly PhysicalStatement[],
  targets: readonly ShardTarget[],
  session: ShardSession,
  settings: ExecutorSettings,
): AsyncIterable<Row>[] {
  return statements.map((statement) => streamOne(statement, targets, session, settings));
}

async function* streamOne(statement: PhysicalStatement, targets: readonly ShardTarget[], session: ShardSession, settings: ExecutorSettings): AsyncGenerator<Row> {
  const target = targets[statement.shard]!;
  const where = placeOf(statement, targets);
  const started = performance.now();
  let runner: QueryRunner | undefined;
  let stream: Readable | undefined;
  let rows = 0;
  let ended = false;
  let node: NodePlacement | undefined;
  const report = (error?: unknown) =>
    reportPhysical(settings, session, { ...where, ...node, sql: statement.sql, parameters: statement.parameters, durationMs: performance.now() - started, rowCount: rows, ...(error === undefined ? {} : { error }) });
  const fail = async (cause: unknown): Promise<Error> => {
    await throwFailingBranch(statement, cause, targets, session, settings);
    report(cause);
    return shardFailure(cause, { shard: target.name, physicalQuery: statement.sql, physicalParameters: statement.parameters });
  };
  const unqualified = target.database !== undefined && statement.qualified !== true;
  if (target.nodes && !session.inTransaction) {
    // The query router picks the node, and retries elsewhere a stream that failed before its first row.
    let settled = false;
    try {
      for await (const row of target.nodes.rows(statement.sql, statement.parameters, unqualified ? target.database : undefined, statement.route ?? ON_PRIMARY, session.mode, (p) => void (node = p))) {
        rows++;
        yield row;
      }
    } catch (cause) {
      settled = true;
      throw await fail(cause);
    } finally {
      // Also when the consumer stopped early (the router drains the rest): the rows it was handed.
      if (!settled) report();
    }
    return;
  }
  const routed = target.nodes?.routeInTransaction(statement.route ?? ON_PRIMARY, session.beginSql);
  if (routed) node = placementOf(routed);
  try {
    runner = await session.acquire(target);
    if (unqualified) await target.useDatabaseOn?.(runner);
    stream = (await runner.stream(statement.sql, statement.parameters as unknown[])) as Readable;
    // destroyOnReturn: false — an early stop must not destroy the driver's stream (see above).
    for await (const row of stream.iterator({ destroyOnReturn: false })) {
      rows++;
      yield row as Row;
    }
    ended = true;
    if (routed) target.nodes!.complete(routed, {});
    report();
  } catch (cause) {
    ended = true;
    if (routed) target.nodes!.complete(routed, { error: cause });
    throw await fail(cause);
  } finally {
    const r = runner;
    if (r) {
      if (ended || !stream) {
        await session.done(target, r);
      } else {
        // Stopped early by the consumer: drain the rest, then release. The statement is reported
        // once drained (after the logical read has returned), with every row the shard sent.
        if (routed) target.nodes!.complete(routed, {});
        const s = stream;
        s.on('data', () => void rows++);
        s.on('error', (error) => {
          report(error);
          void session.done(target, r);
        });
        s.on('end', () => {
          report();
          void session.done(target, r);
        });
        s.resume();
      }
    }
  }
}
