import type { Readable } from 'node:stream';
import type { ReplicationMode } from 'typeorm';
import { unionHints, type RoutingHints } from '../../router/hints/hint.js';
import type { QueryRouter } from '../../router/query-router.js';
import { LAST_GTID_SQL } from '../../router/lag/capture-gtid.js';
import type { RouteTarget } from '../../router/route-target.js';
import type { StatementDescriptor } from '../../router/statement.js';
import type { NodeConfig } from '../../router/topology.js';
import type { Mysql2Pool, ServerPool } from '../../servers/server-pool.js';
import type { Row } from '../../values/row.js';
import { drainThenRelease, giveBack, run, withMode, type NodeConnection } from './node-connection.js';
import { placementOf, type NodePlacement } from './node-placement.js';

/**
 * One server's nodes as the executor uses them (the query router's wiring, docs/router.md §1):
 * every statement outside a transaction is routed by the router, runs on the pool of the node
 * it picked, and is completed with its outcome — a read that failed with a connection error
 * before any row is tried once more on the node the router gives back. Statements of a
 * transaction run on the transaction's primary connection; they are routed too, so that a
 * statement that needs a primary that is down fails at once with `NodeUnavailableError`.
 */
export class ServerNodes {
  /**
   * @param poolOf the pool of a node: the primary's is the server's TypeORM pool, others their own
   * @param timeoutMs TypeORM's `maxQueryExecutionTime` when `enableQueryTimeout` is set
   */
  constructor(
    readonly server: string,
    readonly router: QueryRouter,
    private readonly serverPool: ServerPool,
    private readonly poolOf: (node: NodeConfig) => Mysql2Pool,
    private readonly timeoutMs: number | undefined,
  ) {}

  /** Hints of a statement text's leading comment (`/*+ FORCE_MASTER *\/`). */
  hintsOf(sql: string): RoutingHints {
    return this.router.hintsOf(sql);
  }

  /**
   * Runs a statement outside a transaction on the node the router picks and returns the
   * driver's raw result; `mode` is the QueryRunner's; `placed` learns where it ran (also when it failed);
   * `serverText`: dates and times read as the server's text (see `PhysicalStatement.serverText`).
   */
  async query(sql: string, parameters: readonly unknown[], database: string | undefined, statement: StatementDescriptor, mode: ReplicationMode, placed?: (where: NodePlacement) => void, serverText = false): Promise<unknown> {
    let target = this.router.route(this.server, withMode(statement, mode));
    for (;;) {
      let connection: NodeConnection | undefined;
      let failure: unknown;
      try {
        connection = await this.connect(target, database);
        // Only a consistent read waits (most reads do not: no extra turn of the event loop for them).
        if (target.wait !== undefined) {
          const consistent = await this.consistent(target, connection);
          const moved = consistent.node !== target.node;
          target = consistent;
          if (moved) continue;
        }
        const raw = await run(connection, sql, parameters, this.timeoutMs, serverText);
        // A write whose result carries no GTID (INSERT … RETURNING): ask the connection that wrote it.
        let lastGtid: unknown;
        if (this.router.needsLastGtid(target, raw)) {
          lastGtid = await run(connection, LAST_GTID_SQL, [], this.timeoutMs).catch((error: unknown) => (failure = error instanceof Error ? error : new Error(String(error))));
        }
        this.router.complete(target, { result: raw, lastGtid });
        placed?.(placementOf(target));
        return raw;
      } catch (error) {
        failure = error;
        const retry = this.router.complete(target, { error });
        if (retry === undefined) {
          placed?.(placementOf(target));
          throw this.router.failureOf(target, error) ?? error;
        }
        target = retry;
      } finally {
        if (connection !== undefined) giveBack(connection, failure);
      }
    }
  }

  /**
   * Streams the rows of a read outside a transaction from the node the router picks. A
   * connection error before the first row is retried once elsewhere; after it, never (rows
   * have reached the caller). When the caller stops early, the rest is drained before the
   * connection goes back to its pool (a connection in the middle of a result is unusable).
   */
  async *rows(sql: string, parameters: readonly unknown[], database: string | undefined, statement: StatementDescriptor, mode: ReplicationMode, placed?: (where: NodePlacement) => void): AsyncGenerator<Row> {
    let target = this.router.route(this.server, withMode(statement, mode));
    let delivered = 0;
    for (;;) {
      let connection: NodeConnection | undefined;
      let stream: Readable | undefined;
      let settled = false;
      try {
        connection = await this.connect(target, database);
        const consistent = await this.consistent(target, connection);
        const moved = consistent.node !== target.node;
        target = consistent;
        if (moved) {
          giveBack(connection, undefined);
          connection = undefined;
          continue;
        }
        stream = connection.query(sql, parameters).stream();
        // destroyOnReturn: false — an early stop must not destroy the driver's stream (see below).
        for await (const row of stream.iterator({ destroyOnReturn: false })) {
          delivered++;
          yield row as Row;
        }
        settled = true;
        this.router.complete(target, { result: undefined });
        placed?.(placementOf(target));
        giveBack(connection, undefined);
        return;
      } catch (error) {
        settled = true;
        if (connection !== undefined) giveBack(connection, error);
        connection = undefined;
        const retry = this.router.complete(target, { error, rowsDelivered: delivered > 0 });
        if (retry === undefined) {
          placed?.(placementOf(target));
          throw this.router.failureOf(target, error, delivered > 0) ?? error;
        }
        target = retry;
      } finally {
        if (!settled && connection !== undefined) {
          // Stopped early by the caller: a success; drain the rest, then release.
          this.router.complete(target, { result: undefined });
          placed?.(placementOf(target));
          drainThenRelease(connection, stream);
        }
      }
    }
  }

  /**
   * Routes a statement of a transaction: the primary (or `NodeUnavailableError` at once when
   * it is down). `beginSql` is the statement that opened the transaction: its hints
   * (`/*+ MASTER_ONLY *\/ BEGIN`) hold for every statement in it. Complete the target with `complete`.
   */
  routeInTransaction(statement: StatementDescriptor, beginSql: string | undefined): RouteTarget {
    const begin = beginSql === undefined ? undefined : this.router.hintsOf(beginSql);
    const hints = begin === undefined || begin.key === '' ? statement.hints : statement.hints === undefined ? begin : unionHints(statement.hints, begin);
    return this.router.route(this.server, { ...statement, hints, inTransaction: true });
  }

  /**
   * Reports how a statement routed with `routeInTransaction` ended (never retried: it is in a
   * transaction). Returns the error to raise instead of the driver's when the primary failed
   * under it (a `NodeUnavailableError` naming the server, see `QueryRouter.failureOf`).
   */
  complete(target: RouteTarget, outcome: { readonly result?: unknown; readonly error?: unknown }): Error | undefined {
    this.router.complete(target, outcome);
    return outcome.error === undefined ? undefined : this.router.failureOf(target, outcome.error);
  }

  /**
   * A transaction's COMMIT on this server's primary succeeded: its GTID is what later consistent
   * reads wait for. `wrote`: the transaction changed data here (a COMMIT without a GTID is then unknown).
   */
  committed(result: unknown, wrote: boolean): void {
    this.router.noteWrite(this.server, result, undefined, wrote);
  }

  private connect(target: RouteTarget, database: string | undefined): Promise<NodeConnection> {
    return this.serverPool.connection(database, this.poolOf(target.node)) as Promise<NodeConnection>;
  }

  /** A consistent read's wait on its replica, on the connection the read will use: the target on the same node, or one on the primary. */
  private consistent(target: RouteTarget, connection: NodeConnection): Promise<RouteTarget> {
    if (target.wait === undefined) return Promise.resolve(target);
    return this.router.awaitConsistency(target, (sql, values) => run(connection, sql, values, undefined));
  }
}

export type { NodePlacement };
