import PQueue from 'p-queue';
import type { QueryResult, QueryRunner } from 'typeorm';
import type { PhysicalQueryEvent } from '../data-source/options.js';
import type { PhysicalQueryLog } from '../log/physical-query-log.js';
import type { PhysicalStatement } from '../rewrite/physical-statement.js';
import { noteBranchWrite } from '../session/commit-protocol.js';
import type { ShardSession } from '../session/shard-session.js';
import { shardFailure } from './shard-failure.js';
import { withoutDatabase } from '../rewrite/address-shard.js';
import { ON_PRIMARY, queryTimeoutOf, type ShardTarget } from './shard-target.js';
import { queryWithServerText } from './server-text.js';
import { isAttachedRunner } from './attached-runner.js';
import { placementOf, type NodePlacement } from './routing/node-placement.js';
import { changesData } from '../router/lag/capture-gtid.js';
import type { RouteTarget } from '../router/route-target.js';

/** Executor settings, resolved from ShardingOptions. */
export interface ExecutorSettings {
  /** Physical statements in flight per logical statement. */
  readonly concurrency: number;
  /** Shared cap across logical statements, or undefined for none. */
  readonly globalQueue: PQueue | undefined;
  readonly onPhysicalQuery: ((event: PhysicalQueryEvent) => void) | undefined;
  /** Logs physical statements through the data source's logger (`sharding.logPhysicalQueries`). */
  readonly logPhysical?: PhysicalQueryLog | undefined;
}

/** Hands one physical statement's event to the listener and the log, when there are any. */
export function reportPhysical(settings: ExecutorSettings, session: ShardSession, event: PhysicalQueryEvent): void {
  settings.onPhysicalQuery?.(event);
  settings.logPhysical?.(event, session.owner);
}

/**
 * Runs physical statements through a sliding window of `concurrency` (the article's choice:
 * enough to overlap round trips, few enough not to swamp the shards). Results come back in
 * statement order. If one fails, statements not yet started are dropped, running ones are
 * awaited (so every connection is back in its pool), and one `ShardQueryError` (a TypeORM
 * `QueryFailedError` naming the shard) is thrown: no partial result ever escapes.
 */
export async function executeStatements(
  statements: readonly PhysicalStatement[],
  targets: readonly ShardTarget[],
  session: ShardSession,
  settings: ExecutorSettings,
): Promise<QueryResult[]> {
  if (statements.length === 1) return [await runGuarded(statements[0]!, targets, session, settings)];
  if (statements.length <= settings.concurrency) {
    // Everything fits in the window: start all, wait for all (so no connection is still in use), then fail.
    const outcomes = await Promise.allSettled(statements.map((s) => runGuarded(s, targets, session, settings)));
    const failed = outcomes.find((o) => o.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    return outcomes.map((o) => (o as PromiseFulfilledResult<QueryResult>).value);
  }
  if (!session.inTransaction && !settings.globalQueue && runsNow(statements, targets)) return executeNow(statements, targets, session, settings);
  if (statements.every((s) => targets[s.shard]!.inProcess === true)) {
    // In-process shards (SQLite) run synchronously: one after the other, stopping at the first failure.
    const results: QueryResult[] = [];
    for (const statement of statements) results.push(await runGuarded(statement, targets, session, settings));
    return results;
  }
  const results = new Array<QueryResult>(statements.length);
  const window = new PQueue({ concurrency: Math.min(settings.concurrency, statements.length) });
  let failure: unknown;
  statements.forEach((statement, index) => {
    void window
      .add(async () => {
        if (failure !== undefined) return;
        results[index] = await runGuarded(statement, targets, session, settings);
      })
      .catch((error: unknown) => {
        if (failure === undefined) {
          failure = error;
          window.clear();
        }
      });
  });
  await window.onIdle();
  if (failure !== undefined) throw failure;
  return results;
}

/**
 * In-process shards outside a transaction: each statement is run at once (`ShardTarget.executeNow`),
 * with no promise per shard — a scattered read of 1,024 SQLite files pays for 1,024 statements,
 * not for 3,000 promises. What `runOne` does for such a statement otherwise: the event, the
 * shard's failure.
 */
function executeNow(statements: readonly PhysicalStatement[], targets: readonly ShardTarget[], session: ShardSession, settings: ExecutorSettings): QueryResult[] {
  const observed = settings.onPhysicalQuery !== undefined || settings.logPhysical !== undefined;
  const results = new Array<QueryResult>(statements.length);
  for (let i = 0; i < statements.length; i++) {
    const statement = statements[i]!;
    const target = targets[statement.shard]!;
    const started = observed ? performance.now() : 0;
    let result: QueryResult;
    try {
      result = target.executeNow!(statement.sql, statement.parameters, { exactIntegers: statement.exactIntegers });
    } catch (cause) {
      if (observed) reportNow(statement, targets, session, settings, started, 0, cause);
      throw shardFailure(cause, { shard: target.name, physicalQuery: statement.sql, physicalParameters: statement.parameters });
    }
    if (observed) reportNow(statement, targets, session, settings, started, result.records?.length ? result.records.length : (result.affected ?? 0));
    results[i] = result;
  }
  return results;
}

/** Every statement can run at once: on an in-process shard, written for it alone (not qualified, not coalesced). */
function runsNow(statements: readonly PhysicalStatement[], targets: readonly ShardTarget[]): boolean {
  for (const s of statements) if (targets[s.shard]!.executeNow === undefined || s.qualified === true || s.branches !== undefined) return false;
  return true;
}

function reportNow(statement: PhysicalStatement, targets: readonly ShardTarget[], session: ShardSession, settings: ExecutorSettings, started: number, rowCount: number, error?: unknown): void {
  reportPhysical(settings, session, {
    ...placeOf(statement, targets),
    sql: statement.sql,
    parameters: statement.parameters,
    durationMs: performance.now() - started,
    rowCount,
    ...(error === undefined ? {} : { error }),
  });
}

/** Where a statement ran, for its event: the shard, its server, and a coalesced statement's branches. */
export function placeOf(statement: PhysicalStatement, targets: readonly ShardTarget[]): Pick<PhysicalQueryEvent, 'shard' | 'server' | 'shards' | 'branches'> {
  const target = targets[statement.shard]!;
  if (!statement.branches) return { shard: target.name, server: target.server, shards: [target.name] };
  const branches = statement.branches.map((b) => ({ shard: targets[b.shard]!.name, sql: b.sql, parameters: b.parameters }));
  // A table-per-shard layout sends several branches to one shard: each shard is named once.
  return { shard: target.name, server: target.server, shards: [...new Set(branches.map((b) => b.shard))], branches };
}

function runGuarded(statement: PhysicalStatement, targets: readonly ShardTarget[], session: ShardSession, settings: ExecutorSettings): Promise<QueryResult> {
  const run = () => runOne(statement, targets, session, settings);
  return settings.globalQueue ? (settings.globalQueue.add(run) as Promise<QueryResult>) : run();
}

async function runOne(statement: PhysicalStatement, targets: readonly ShardTarget[], session: ShardSession, settings: ExecutorSettings): Promise<QueryResult> {
  const target = targets[statement.shard]!;
  const observed = settings.onPhysicalQuery !== undefined || settings.logPhysical !== undefined;
  const started = observed ? performance.now() : 0;
  let node: NodePlacement | undefined;
  const report = (rowCount: number, error?: unknown) =>
    reportPhysical(settings, session, {
      ...placeOf(statement, targets),
      ...node,
      sql: statement.sql,
      parameters: statement.parameters,
      durationMs: performance.now() - started,
      rowCount,
      ...(error === undefined ? {} : { error }),
    });
  // With the query router a statement of a transaction is routed first: one that needs a primary
  // that is down fails here, before a connection is taken.
  const routed = session.inTransaction && target.nodes ? target.nodes.routeInTransaction(statement.route ?? ON_PRIMARY, session.beginSql) : undefined;
  if (routed) node = placementOf(routed);
  // Inside a transaction the statement runs on the server's pinned connection; outside, on any.
  const runner = session.inTransaction ? await acquire(target, session, routed) : undefined;
  // SQLite's one connection per shard serves the transaction too, and reads integers exactly when asked.
  const direct = !runner || (statement.exactIntegers === true && target.executesOnTransactionConnection === true);
  // A statement that names tables without their database runs where the shard's database is the default.
  const unqualified = target.database !== undefined && statement.qualified !== true;
  const placed = observed && target.nodes ? (where: NodePlacement) => void (node = where) : undefined;
  let failure: unknown;
  try {
    // A SQLite shard attached to the transaction's first shard runs there, its tables named with its schema.
    const result = runner && isAttachedRunner(runner)
      ? await runner.runsOn.execute(runner.rewrite(statement.sql, statement.parameters), statement.parameters, session.mode, { exactIntegers: statement.exactIntegers })
      : direct
      ? await target.execute(statement.sql, statement.parameters, session.mode, { exactIntegers: statement.exactIntegers, serverText: statement.serverText, unqualified, route: statement.route, placed })
      : unqualified && target.useDatabaseOn
        ? await session.exclusive(runner, async () => {
            await target.useDatabaseOn!(runner);
            return onRunner(runner, statement, target);
          })
        : await onRunner(runner, statement, target);
    if (routed) {
      target.nodes!.complete(routed, { result: result.raw });
      if (runner && changesData(routed.kind, result.raw)) noteBranchWrite(runner);
    }
    if (observed) report(result.records?.length ? result.records.length : (result.affected ?? 0));
    return result;
  } catch (cause) {
    const typed = routed ? target.nodes!.complete(routed, { error: cause }) : undefined;
    if (observed) report(0, cause);
    failure = typed ?? cause;
  } finally {
    if (runner) await session.done(target, runner);
  }
  await throwFailingBranch(statement, failure, targets, session, settings);
  if (statement.qualified && target.database !== undefined && !statement.branches) {
    // The error reads as the shard's own database would report it: without the database prefixes.
    const database = target.database;
    const driverError = (failure as { driverError?: { sql?: unknown } } | undefined)?.driverError ?? (failure as { sql?: unknown } | undefined);
    if (driverError && typeof driverError.sql === 'string') driverError.sql = withoutDatabase(driverError.sql, database);
    throw shardFailure(failure, { shard: target.name, physicalQuery: withoutDatabase(statement.sql, database), physicalParameters: statement.parameters });
  }
  throw shardFailure(failure, { shard: target.name, physicalQuery: statement.sql, physicalParameters: statement.parameters });
}

/** A statement on a transaction's runner; one that reads dates as the server's text goes to the runner's connection itself. */
async function onRunner(runner: QueryRunner, statement: PhysicalStatement, target: ShardTarget): Promise<QueryResult> {
  if (statement.serverText === true) return queryWithServerText(runner, statement.sql, statement.parameters, queryTimeoutOf(target.dataSource));
  return (await runner.query(statement.sql, statement.parameters as unknown[], true)) as QueryResult;
}

/** The transaction's connection of the target's server; a routed statement that cannot get it is completed with the failure. */
async function acquire(target: ShardTarget, session: ShardSession, routed: RouteTarget | undefined): Promise<QueryRunner> {
  try {
    return await session.acquire(target);
  } catch (error) {
    throw (routed ? target.nodes!.complete(routed, { error }) : undefined) ?? error;
  }
}

/**
 * A coalesced read failed: its branches, one by one, tell which shard fails (a table missing on
 * one shard), so that the error names the shard as it would without coalescing. Throws that
 * branch's error; returns when there is nothing to learn.
 */
export async function throwFailingBranch(statement: PhysicalStatement, failure: unknown, targets: readonly ShardTarget[], session: ShardSession, settings: ExecutorSettings): Promise<void> {
  if (!statement.branches || !isStatementError(failure)) return;
  for (const branch of statement.branches) await runOne(branch, targets, session, settings);
}

/** True for an error the database raised for the statement (it has a SQL error number), not a lost connection. */
function isStatementError(error: unknown): boolean {
  const driverError = (error as { driverError?: { errno?: unknown; fatal?: unknown } } | undefined)?.driverError ?? (error as { errno?: unknown; fatal?: unknown } | undefined);
  return typeof driverError?.errno === 'number' && driverError.fatal !== true;
}
