import type { Connection } from 'mysql2/promise';
import type { ShardedDataSource } from '../data-source/sharded-data-source.js';
import { installFence, releaseFence, removeFence, type FencedTable } from '../topology/fence.js';
import { applyTransaction, setFenceBypass, type ApplyTarget } from './apply-changes.js';
import { comparePositions, type BinlogPosition } from './binlog-position.js';
import { streamBinlog } from './binlog-stream.js';
import { bucketCondition } from './bucket-filter.js';
import { copyRows, type CopyOptions } from './copy.js';
import { connect, quoteId, rows, type Endpoint } from './endpoint.js';
import { ReshardingError } from './errors.js';
import { describeTables, pkOf, type GovernedTable, type TableShape } from './governed-tables.js';
import { openTransactions, waitTransactionsEnded } from './in-flight.js';
import { ReshardingMetrics } from './metrics.js';
import { normalizeSpans, placementAfterMove, placementAfterRollback, spansOf, upperHalf, type BucketSpan, type MoveSpec, type Placement } from './move-plan.js';
import { checkAction, TERMINAL_STATES, type MoveAction, type MoveState } from './move-state.js';
import { MoveStore, type MoveRecord, type MoveTableRecord, type VerifyResult } from './move-store.js';
import { deleteByKeys, prepareTarget } from './prepare-target.js';
import { checkBinlogFormat, currentPosition, openSnapshot } from './snapshot.js';
import { sqlTopologyPort, type TopologyPort } from './topology-port.js';
import { chunkSpans, DEFAULT_VERIFY_CHUNK_BUCKETS, verifyTable } from './verify.js';

/** Credentials of a server, by the name the topology gives it. */
export interface ServerAddress {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
}

/** What a mover works with. */
export interface MoverOptions {
  /** Servers by name (the names of the topology's `shards[].server`). */
  readonly servers: Readonly<Record<string, ServerAddress>>;
  /** The server and database of the topology store; the move ledger lives there too. */
  readonly meta: { readonly server: string; readonly database: string };
  /** The tables that move with their buckets, and the broadcast tables a new shard needs. */
  readonly tables: readonly GovernedTable[];
  /** @default the store's tables in `meta` (see topology-port.ts) */
  readonly topology?: TopologyPort;
  /** Publish through this data source (validated against its servers, adopted by it at once). */
  readonly dataSource?: ShardedDataSource;
  /** Binlog reader ids; each stream takes `serverIdBase + move id * 2 (+1 for reverse)`. @default 4_000_000 */
  readonly serverIdBase?: number;
  readonly metrics?: ReshardingMetrics;
  /**
   * Fault injection (tests): called at each point where a killed mover must be able to resume;
   * the kill tests end the process there with SIGKILL.
   */
  readonly faultPoint?: (point: FaultPoint) => void | Promise<void>;
}

/** Where {@link MoverOptions.faultPoint} is called: after a copy chunk, an applied forward transaction, a verify chunk, the fence, the publish, an applied reverse transaction. */
export type FaultPoint = 'copy' | 'catch-up' | 'verify' | 'fence' | 'flip' | 'reverse';

/** Options of `switch`. */
export interface SwitchOptions {
  /** Largest catch-up lag (binlog bytes) at which the fence may go in. @default 1_000_000 */
  readonly maxLagBytes?: number;
  /** How long to wait for transactions open when the fence went in; then the fence is released and the switch fails. @default 5000 */
  readonly inFlightTimeoutMs?: number;
  /** Test hook: runs after the fence is installed, before the in-flight wait. */
  readonly afterFence?: () => void | Promise<void>;
  /** Test hook: runs after the new version is published, before the state is written. */
  readonly afterPublish?: () => void | Promise<void>;
}

/** The state of one move, for `status`. */
export interface MoveStatus {
  readonly move: MoveRecord;
  readonly tables: readonly MoveTableRecord[];
  readonly rowsCopied: number;
  /** Source binlog not yet applied by the forward stream (bytes; undefined when in another file or not started). */
  readonly forwardLagBytes: number | undefined;
  /** Target binlog not yet applied to the source by the reverse stream (after the switch). */
  readonly reverseLagBytes: number | undefined;
  /** The last cutover's write pause on the moving buckets (ms), in this process. */
  readonly lastPauseMs: number | undefined;
}

interface MoveContext {
  readonly record: MoveRecord;
  readonly spans: BucketSpan[];
  readonly source: Endpoint;
  readonly target: Endpoint;
  readonly shapes: TableShape[];
  readonly bucketCount: number;
}

/**
 * The online move workflow, as one state machine over the ledger in `tsh_moves` (see
 * move-state.ts for the states). Every method reads the move's state, checks the action is
 * allowed, does its work idempotently, and writes the next state; a mover killed at any point
 * is resumed by running the same method again (or cancelled, before the switch).
 */
export class Mover {
  readonly metrics: ReshardingMetrics;
  private lastPause: number | undefined;
  private metaConn: Connection | undefined;
  private storeValue: MoveStore | undefined;
  private portValue: TopologyPort | undefined;

  constructor(private readonly options: MoverOptions) {
    this.metrics = options.metrics ?? new ReshardingMetrics();
  }

  private async store(): Promise<MoveStore> {
    if (!this.storeValue) {
      const server = this.server(this.options.meta.server);
      this.metaConn = await connect({ ...server, database: this.options.meta.database }, null);
      this.storeValue = new MoveStore(this.metaConn, this.options.meta.database);
      await this.storeValue.ensureSchema();
      this.portValue = this.options.topology ?? sqlTopologyPort(this.metaConn, this.options.meta.database, Object.keys(this.options.servers), this.options.dataSource);
    }
    return this.storeValue;
  }

  private async port(): Promise<TopologyPort> {
    await this.store();
    return this.portValue!;
  }

  /** Closes the mover's metadata connection. */
  async close(): Promise<void> {
    await this.metaConn?.end().catch(() => undefined);
    this.metaConn = undefined;
    this.storeValue = undefined;
  }

  private server(name: string): ServerAddress {
    const server = this.options.servers[name];
    if (!server) throw new ReshardingError('bad-plan', `Unknown server "${name}"; servers are ${Object.keys(this.options.servers).join(', ')}.`);
    return server;
  }

  private endpointOf(placement: Placement, shard: string): Endpoint {
    const entry = placement.shards.find((s) => s.name === shard);
    if (!entry) throw new ReshardingError('bad-plan', `Shard "${shard}" is not in topology version ${placement.version}.`);
    return { ...this.server(entry.server), database: entry.database };
  }

  /**
   * Plans a move: checks it against the current topology and the servers' binlog settings,
   * creates the governed tables on the target (and copies the broadcast tables to a new shard),
   * and records the move as `planned`. Returns its id.
   */
  async plan(spec: MoveSpec): Promise<number> {
    const store = await this.store();
    const current = await (await this.port()).current();
    const after = placementAfterMove(current, spec);
    const source = this.endpointOf(current, spec.source);
    const target = this.endpointOf(after, spec.target);
    const [s, t] = [await connect(source), await connect(target, null)];
    try {
      await checkBinlogFormat(s, `source ${spec.source}`);
      await checkBinlogFormat(t, `target ${spec.target}`);
      const shapes = await describeTables(s, source.database, this.options.tables);
      const [exists] = await rows(t, 'SELECT 1 AS x FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [target.database]);
      await prepareTarget(s, source.database, t, target.database, shapes, spec.newShard !== undefined);
      return await store.create({ ...spec, ranges: normalizeSpans(spec.ranges) }, current.version, spec.newShard !== undefined && !exists, shapes.map((x) => x.table));
    } finally {
      await Promise.all([s.end(), t.end()]);
    }
  }

  /** Plans a split: the upper half of `shard`'s buckets to a new shard on `server` / `database`. */
  async split(shard: string, newShard: string, server: string, database: string): Promise<number> {
    const current = await (await this.port()).current();
    return this.plan({ source: shard, target: newShard, ranges: upperHalf(current, shard), newShard: { server, database } });
  }

  /** Plans moving every bucket of `shard` to a new shard on `server` / `database`. */
  async moveShard(shard: string, newShard: string, server: string, database: string): Promise<number> {
    const current = await (await this.port()).current();
    return this.plan({ source: shard, target: newShard, ranges: spansOf(current, shard), newShard: { server, database } });
  }

  private async context(id: number, action: MoveAction): Promise<MoveContext> {
    const store = await this.store();
    const record = await store.get(id);
    checkAction(action, record.state, id);
    const port = await this.port();
    const current = await port.current();
    // Before the switch the target may be a shard the topology does not name yet.
    const withTarget = current.shards.some((s) => s.name === record.spec.target)
      ? current
      : { ...current, shards: [...current.shards, { name: record.spec.target, ...record.spec.newShard! }] };
    const source = this.endpointOf(withTarget, record.spec.source);
    const target = this.endpointOf(withTarget, record.spec.target);
    const conn = await connect(source);
    try {
      const shapes = await describeTables(conn, source.database, this.options.tables);
      return { record, spans: normalizeSpans(record.spec.ranges), source, target, shapes, bucketCount: current.bucketCount };
    } finally {
      await conn.end();
    }
  }

  /**
   * Copies the moving rows from a consistent snapshot (resuming after the last copied key)
   * and catches up from the binlog to now. Leaves the move `catching_up`.
   */
  async start(id: number, copy: CopyOptions = {}): Promise<MoveStatus> {
    const ctx = await this.context(id, 'start');
    const store = await this.store();
    if (ctx.record.state === 'planned' || ctx.record.state === 'copying' || ctx.record.state === 'failed') {
      await store.transition(id, ['planned', 'copying', 'failed'], 'copying');
      const tables = await store.tables(id);
      if (tables.some((t) => !t.copyDone)) {
        const [s, t] = [await connect(ctx.source), await connect(ctx.target)];
        try {
          await copyRows(
            { moveId: id, source: s, sourceDb: ctx.source.database, target: t, targetDb: ctx.target.database, shapes: ctx.shapes, bucketCount: ctx.bucketCount, spans: ctx.spans, store },
            {
              ...copy,
              // The first snapshot's position is where the catch-up starts (see copy.ts).
              onSnapshot: async (at) => {
                if (!(await store.get(id)).forward) await store.setForward(id, at);
              },
              onChunk: async (e) => {
                this.metrics.rowsCopied.inc({ move: String(id), table: e.table }, e.rows);
                await copy.onChunk?.(e);
                await this.options.faultPoint?.('copy');
              },
            },
          );
        } finally {
          await Promise.all([s.end(), t.end()]);
        }
      } else if (!ctx.record.forward) {
        // Every table was empty of moving rows: the catch-up starts at a fresh snapshot.
        const s = await connect(ctx.source);
        try {
          await store.setForward(id, await openSnapshot(s));
        } finally {
          await s.query('COMMIT').catch(() => undefined);
          await s.end();
        }
      }
      await store.transition(id, ['copying'], 'catching_up');
    }
    await this.catchUp(id);
    return this.status(id);
  }

  /** Applies the source's binlog to the target up to the source's current end (forward stream). */
  async catchUp(id: number, until?: BinlogPosition): Promise<BinlogPosition> {
    const ctx = await this.context(id, 'verify');
    return this.forward(ctx, until);
  }

  private async forward(ctx: MoveContext, until?: BinlogPosition | (() => BinlogPosition | undefined)): Promise<BinlogPosition> {
    const store = await this.store();
    const from = (await store.get(ctx.record.id)).forward;
    if (!from) throw new ReshardingError('bad-state', `[BUG] move ${ctx.record.id} has no forward position`);
    const [s, t] = [await connect(ctx.source), await connect(ctx.target)];
    try {
      const end = until ?? (await currentPosition(s));
      let savedAt = Date.now();
      const reached = await streamBinlog({
        server: ctx.source,
        database: ctx.source.database,
        tables: ctx.shapes.filter((x) => x.kind === 'sharded').map((x) => x.table),
        from,
        until: end,
        serverId: (this.options.serverIdBase ?? 4_000_000) + ctx.record.id * 2,
        apply: async (tx) => {
          const n = await applyTransaction(this.applyTarget(ctx, t, ctx.target.database), tx);
          // The position is saved at most every POSITION_SAVE_MS (and at the end): a replay of
          // what was applied since is harmless, a commit per batch on the metadata server is not.
          if (Date.now() - savedAt >= POSITION_SAVE_MS) {
            await store.setForward(ctx.record.id, tx.end);
            savedAt = Date.now();
          }
          this.metrics.eventsApplied.inc({ move: String(ctx.record.id), direction: 'forward' }, n);
          if (n > 0) await this.options.faultPoint?.('catch-up');
        },
      });
      await store.setForward(ctx.record.id, reached);
      this.metrics.lagBytes.set({ move: String(ctx.record.id), direction: 'forward' }, lagBytes(reached, await currentPosition(s)) ?? -1);
      return reached;
    } finally {
      await Promise.all([s.end(), t.end()]);
    }
  }

  private applyTarget(ctx: MoveContext, conn: Connection, database: string): ApplyTarget {
    return { conn, database, shapes: new Map(ctx.shapes.filter((x) => x.kind === 'sharded').map((x) => [x.table, x])), bucketCount: ctx.bucketCount, spans: ctx.spans };
  }

  /**
   * Compares source and target chunk by chunk at one consistent point: a snapshot of the
   * source, and the target caught up to exactly that snapshot's position. Resumable (per
   * table, the last checked bucket is kept). `verified` when nothing differs; otherwise the
   * move stays `catching_up` and the result names the rows.
   */
  async verify(id: number, options: { readonly chunkBuckets?: number; readonly onChunk?: (table: string, upTo: number) => void } = {}): Promise<Record<string, VerifyResult>> {
    const ctx = await this.context(id, 'verify');
    const store = await this.store();
    const s = await connect(ctx.source);
    const t = await connect(ctx.target);
    const out: Record<string, VerifyResult> = {};
    try {
      const at = await openSnapshot(s);
      await this.forward(ctx, at);
      const chunks = chunkSpans(ctx.spans, options.chunkBuckets ?? DEFAULT_VERIFY_CHUNK_BUCKETS);
      const progress = new Map((await store.tables(id)).map((x) => [x.table, x]));
      for (const shape of ctx.shapes.filter((x) => x.kind === 'sharded')) {
        const p = progress.get(shape.table);
        out[shape.table] = await verifyTable(
          { source: s, sourceDb: ctx.source.database, target: t, targetDb: ctx.target.database, bucketCount: ctx.bucketCount },
          shape,
          chunks,
          // A verify that found rows differing starts again from the first chunk.
          p?.verify && p.verify.mismatches.length === 0 ? { afterBucket: p.verifiedUpTo, result: p.verify } : { afterBucket: undefined, result: undefined },
          async (upTo, result) => {
            await store.verifyProgress(id, shape.table, upTo, result);
            options.onChunk?.(shape.table, upTo);
            await this.options.faultPoint?.('verify');
          },
        );
      }
    } finally {
      await s.query('COMMIT').catch(() => undefined);
      await Promise.all([s.end(), t.end()]);
    }
    const clean = Object.values(out).every((r) => r.mismatches.length === 0);
    if (clean) await store.transition(id, ['catching_up', 'verified'], 'verified');
    else {
      // The next verify starts over; a fresh start is needed only if the catch-up cannot repair it.
      for (const table of Object.keys(out)) await store.verifyProgress(id, table, null, out[table]!);
      await store.transition(id, ['catching_up', 'verified'], 'catching_up', `verify: ${Object.entries(out).map(([k, r]) => `${k} ${r.mismatches.length} row(s) differ`).join(', ')}`);
    }
    return out;
  }

  /**
   * The cutover. When the catch-up lag is below `maxLagBytes`: fence the moving buckets on the
   * source, wait for every transaction open at that moment to end (on timeout: release the
   * fence and fail, the move is left `catching_up`), catch up to the source's position, note
   * the target's binlog position (where the reverse stream starts), publish the new topology
   * version. The source keeps its fence for the moved ranges (a stale process gets a
   * retryable refusal there). Writes to other buckets never wait.
   */
  async switch(id: number, options: SwitchOptions = {}): Promise<MoveStatus> {
    const ctx = await this.context(id, 'switch');
    const store = await this.store();
    const port = await this.port();
    const current = await port.current();
    if (this.alreadyPublished(current, ctx)) return this.finishSwitch(id);
    if (ctx.record.state !== 'cutting_over') {
      let reached = await this.forward(ctx);
      const s0 = await connect(ctx.source);
      try {
        const lag = lagBytes(reached, await currentPosition(s0));
        if (lag === undefined || lag > (options.maxLagBytes ?? 1_000_000)) {
          reached = await this.forward(ctx);
          const again = lagBytes(reached, await currentPosition(s0));
          if (again === undefined || again > (options.maxLagBytes ?? 1_000_000)) {
            throw new ReshardingError('lag', `Move ${id}: the catch-up is ${again ?? 'a binlog file or more'} bytes behind (max ${options.maxLagBytes ?? 1_000_000}); run catch-up again or raise maxLagBytes.`, { moveId: id });
          }
        }
      } finally {
        await s0.end();
      }
    }
    const next = placementAfterMove(current, ctx.record.spec);
    const fenced = this.fencedTables(ctx);
    const [s, t] = [await connect(ctx.source), await connect(ctx.target)];
    try {
      // Triggers first (they need each table's metadata lock), outside the pause.
      await installFence(s, { database: ctx.source.database, tables: fenced, bucketCount: ctx.bucketCount, ranges: [], version: next.version });
      await installFence(t, { database: ctx.target.database, tables: fenced, bucketCount: ctx.bucketCount, ranges: [], version: next.version });
      await store.transition(id, ['catching_up', 'verified', 'cutting_over'], 'cutting_over');
      await store.setToVersion(id, next.version);
      // One forward stream runs across the fence, so the last catch-up is not a new binlog
      // connection inside the pause: it is told where to stop once the source's position
      // after the fence is known.
      let stopAt: BinlogPosition | undefined;
      const following = this.forward(ctx, () => stopAt);
      following.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
      let pauseStart = 0;
      try {
        const open = await openTransactions(s);
        pauseStart = Date.now();
        await installFence(s, { database: ctx.source.database, tables: fenced, bucketCount: ctx.bucketCount, ranges: ctx.spans, version: next.version });
        await options.afterFence?.();
        await this.options.faultPoint?.('fence');
        if (!(await waitTransactionsEnded(s, open, options.inFlightTimeoutMs ?? 5000))) {
          await releaseFence(s, { database: ctx.source.database, ranges: ctx.spans });
          await store.transition(id, ['cutting_over'], 'catching_up', 'switch: transactions open at the fence did not end in time; fence released');
          throw new ReshardingError('in-flight-timeout', `Move ${id}: transactions open on ${ctx.record.spec.source} when the fence went in did not end within ${options.inFlightTimeoutMs ?? 5000} ms; the fence is released and writes flow again.`, { moveId: id });
        }
        stopAt = await currentPosition(s);
        await following;
      } finally {
        // On a failure: stop the stream at once (every position is past the empty one).
        stopAt ??= { file: '', pos: 0 };
        await following.catch(() => undefined);
      }
      // The reverse stream starts here: every later write to the moved buckets is the application's.
      await store.setReverse(id, await currentPosition(t));
      await port.publish(next, `move ${id}: ${describeSpans(ctx.spans)} ${ctx.record.spec.source} -> ${ctx.record.spec.target}`);
      this.lastPause = Date.now() - pauseStart;
      this.metrics.fencePause.observe(this.lastPause);
      await options.afterPublish?.();
      await this.options.faultPoint?.('flip');
    } finally {
      await Promise.all([s.end(), t.end()]);
    }
    return this.finishSwitch(id);
  }

  private async finishSwitch(id: number): Promise<MoveStatus> {
    await (await this.store()).transition(id, ['cutting_over', 'catching_up', 'verified'], 'switched');
    return this.status(id);
  }

  /** True when the topology already gives every moving span to the target (a killed switch got that far). */
  private alreadyPublished(current: Placement, ctx: MoveContext): boolean {
    if (ctx.record.toVersion === undefined || current.version < ctx.record.toVersion) return false;
    const owned = spansOf(current, ctx.record.spec.target);
    return ctx.spans.every((m) => owned.some((o) => o.from <= m.from && o.to >= m.to));
  }

  private fencedTables(ctx: MoveContext): FencedTable[] {
    return ctx.shapes.filter((x) => x.kind === 'sharded').map((x) => ({ table: x.table, keyColumn: x.keyColumn!, keyKind: x.keyKind! }));
  }

  /** Applies the target's binlog to the source (the reverse stream, bypassing the source's fence), up to now. */
  async catchUpReverse(id: number, until?: BinlogPosition): Promise<BinlogPosition> {
    const ctx = await this.context(id, 'rollback');
    return this.reverse(ctx, until);
  }

  private async reverse(ctx: MoveContext, until?: BinlogPosition): Promise<BinlogPosition> {
    const store = await this.store();
    const from = (await store.get(ctx.record.id)).reverse;
    if (!from) throw new ReshardingError('bad-state', `[BUG] move ${ctx.record.id} has no reverse position`);
    const [s, t] = [await connect(ctx.source), await connect(ctx.target)];
    try {
      const end = until ?? (await currentPosition(t));
      let savedAt = Date.now();
      await setFenceBypass(s, true);
      const reached = await streamBinlog({
        server: ctx.target,
        database: ctx.target.database,
        tables: ctx.shapes.filter((x) => x.kind === 'sharded').map((x) => x.table),
        from,
        until: end,
        serverId: (this.options.serverIdBase ?? 4_000_000) + ctx.record.id * 2 + 1,
        apply: async (tx) => {
          const n = await applyTransaction(this.applyTarget(ctx, s, ctx.source.database), tx);
          if (Date.now() - savedAt >= POSITION_SAVE_MS) {
            await store.setReverse(ctx.record.id, tx.end);
            savedAt = Date.now();
          }
          this.metrics.eventsApplied.inc({ move: String(ctx.record.id), direction: 'reverse' }, n);
          if (n > 0) await this.options.faultPoint?.('reverse');
        },
      });
      await store.setReverse(ctx.record.id, reached);
      return reached;
    } finally {
      await Promise.all([s.end(), t.end()]);
    }
  }

  /**
   * Undoes a switch with no write lost: fence the moved buckets on the target, wait for its
   * in-flight transactions, catch the reverse stream up, publish the old placement as a new
   * version, release the source's fence, and delete the moved rows from the target.
   */
  async rollback(id: number, options: { readonly inFlightTimeoutMs?: number } = {}): Promise<MoveStatus> {
    const ctx = await this.context(id, 'rollback');
    if (ctx.record.state === 'rolled_back') return this.status(id);
    const store = await this.store();
    const port = await this.port();
    const current = await port.current();
    const [s, t] = [await connect(ctx.source), await connect(ctx.target)];
    try {
      const sourceOwns = spansOf(current, ctx.record.spec.source);
      const back = ctx.spans.every((m) => sourceOwns.some((o) => o.from <= m.from && o.to >= m.to));
      if (!back) {
        const old = placementAfterRollback(current, ctx.record.spec);
        const open = await openTransactions(t);
        await installFence(t, { database: ctx.target.database, tables: this.fencedTables(ctx), bucketCount: ctx.bucketCount, ranges: ctx.spans, version: old.version });
        if (!(await waitTransactionsEnded(t, open, options.inFlightTimeoutMs ?? 5000))) {
          await releaseFence(t, { database: ctx.target.database, ranges: ctx.spans });
          throw new ReshardingError('in-flight-timeout', `Move ${id}: transactions open on ${ctx.record.spec.target} did not end in time; the rollback's fence is released.`, { moveId: id });
        }
        await this.reverse(ctx, await currentPosition(t));
        await port.publish(old, `move ${id} rolled back`);
      }
      await releaseFence(s, { database: ctx.source.database, ranges: ctx.spans });
      await this.liftFence(s, ctx.source.database, ctx);
      await this.deleteMoved(t, ctx.target.database, ctx);
    } finally {
      await Promise.all([s.end(), t.end()]);
    }
    await store.transition(id, ['switched'], 'rolled_back');
    return this.status(id);
  }

  /**
   * Ends a switched move: waits until every live client has adopted the new version, then
   * deletes the moved rows from the source (in chunks, past the fence). The source's fence
   * rows for the moved ranges stay: a process still holding an old map is refused there.
   */
  async complete(id: number, options: { readonly clientTimeoutMs?: number; readonly clientWindowMs?: number } = {}): Promise<MoveStatus> {
    const ctx = await this.context(id, 'complete');
    if (ctx.record.state === 'completed') return this.status(id);
    const port = await this.port();
    const version = ctx.record.toVersion!;
    const deadline = Date.now() + (options.clientTimeoutMs ?? 30_000);
    for (;;) {
      const behind = await port.clientsBehind(version, options.clientWindowMs ?? 3000);
      if (behind.length === 0) break;
      if (Date.now() >= deadline) {
        throw new ReshardingError('clients-not-adopted', `Move ${id}: ${behind.length} client(s) have not adopted topology version ${version}: ${behind.map((b) => `${b.clientId} (v${b.version})`).join(', ')}.`, { moveId: id });
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    // Apply what reached the target since the switch one last time, then drop the source's copy.
    await this.reverse(ctx);
    const s = await connect(ctx.source);
    try {
      await this.deleteMoved(s, ctx.source.database, ctx);
      // Every live client routes by the new version: the source's fence for these ranges can go.
      await this.liftFence(s, ctx.source.database, ctx);
    } finally {
      await s.end();
    }
    await (await this.store()).transition(id, ['switched'], 'completed');
    return this.status(id);
  }

  /**
   * Abandons a move before its switch: the source is left as it was (a fence of a cutover in
   * progress is released) and the target is cleaned (its moving rows deleted; a database the
   * plan created is dropped).
   */
  async cancel(id: number): Promise<MoveStatus> {
    const ctx = await this.context(id, 'cancel');
    if (ctx.record.state === 'cancelled') return this.status(id);
    const port = await this.port();
    if (this.alreadyPublished(await port.current(), ctx)) {
      throw new ReshardingError('bad-state', `Move ${id} was switched (topology v${ctx.record.toVersion} is published): run switch to finish it, then rollback.`, { moveId: id });
    }
    const [s, t] = [await connect(ctx.source), await connect(ctx.target, null)];
    try {
      const [fenceTable] = await rows(s, "SELECT 1 AS x FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'tsh_fence'", [ctx.source.database]);
      if (fenceTable) await this.liftFence(s, ctx.source.database, ctx);
      if (ctx.record.createdTarget) await t.query(`DROP DATABASE IF EXISTS ${quoteId(ctx.target.database)}`);
      else await this.deleteMoved(t, ctx.target.database, ctx);
    } finally {
      await Promise.all([s.end(), t.end()]);
    }
    await (await this.store()).transition(id, ['planned', 'copying', 'catching_up', 'verified', 'cutting_over', 'failed'], 'cancelled');
    return this.status(id);
  }

  /**
   * Releases this move's ranges of a fence and, when no range of any move is fenced there any
   * more, drops the triggers (removeFence): they cost every write of the table a lookup.
   * The rollback keeps the target's fence rows (the target owns none of those buckets now).
   */
  private async liftFence(conn: Connection, database: string, ctx: MoveContext): Promise<void> {
    await releaseFence(conn, { database, ranges: ctx.spans });
    const [left] = await rows<{ n: number | string }>(conn, `SELECT COUNT(*) AS n FROM ${quoteId(database)}.tsh_fence`);
    if (Number(left?.n ?? 0) === 0) await removeFence(conn, { database, tables: this.fencedTables(ctx) });
  }

  /** Deletes the rows of the moving buckets from one side, in chunks of primary keys, past the fence. */
  private async deleteMoved(conn: Connection, database: string, ctx: MoveContext, chunk = 1000): Promise<void> {
    await conn.query('SET @tsh_fence_bypass = 1');
    try {
      for (const shape of ctx.shapes.filter((x) => x.kind === 'sharded')) {
        for (;;) {
          const keys = await rows(conn, `SELECT ${shape.primaryKey.map(quoteId).join(', ')} FROM ${quoteId(database)}.${quoteId(shape.table)} WHERE ${bucketCondition(shape, ctx.bucketCount, ctx.spans)} LIMIT ${chunk}`);
          if (keys.length === 0) break;
          await deleteByKeys(conn, database, shape, keys.map((k) => pkOf(shape, k)));
        }
      }
    } finally {
      await conn.query('SET @tsh_fence_bypass = 0');
    }
  }

  /** Every move of the ledger. */
  async list(): Promise<MoveRecord[]> {
    const all = await (await this.store()).list();
    this.metrics.countStates(all.map((m) => m.state));
    return all;
  }

  /** The state of a move: phase, rows copied, lag of both streams, verify results. */
  async status(id: number): Promise<MoveStatus> {
    const store = await this.store();
    const move = await store.get(id);
    const tables = await store.tables(id);
    let forwardLagBytes: number | undefined;
    let reverseLagBytes: number | undefined;
    if (!TERMINAL_STATES.includes(move.state)) {
      const current = await (await this.port()).current();
      const withTarget = current.shards.some((s) => s.name === move.spec.target) ? current : { ...current, shards: [...current.shards, { name: move.spec.target, ...move.spec.newShard! }] };
      if (move.forward) forwardLagBytes = await this.lagOf(this.endpointOf(withTarget, move.spec.source), move.forward);
      if (move.reverse && move.state === 'switched') reverseLagBytes = await this.lagOf(this.endpointOf(withTarget, move.spec.target), move.reverse);
    }
    return { move, tables, rowsCopied: tables.reduce((n, t) => n + t.rowsCopied, 0), forwardLagBytes, reverseLagBytes, lastPauseMs: this.lastPause };
  }

  private async lagOf(endpoint: Endpoint, applied: BinlogPosition): Promise<number | undefined> {
    const conn = await connect(endpoint, null);
    try {
      return lagBytes(applied, await currentPosition(conn));
    } finally {
      await conn.end();
    }
  }
}

/** How often a running catch-up saves its position (it always does at its end). */
const POSITION_SAVE_MS = 500;

/** Bytes between two positions of one binlog file; undefined across files. */
export function lagBytes(applied: BinlogPosition, end: BinlogPosition): number | undefined {
  if (comparePositions(applied, end) >= 0) return 0;
  return applied.file === end.file ? end.pos - applied.pos : undefined;
}

function describeSpans(spans: readonly BucketSpan[]): string {
  return spans.map((s) => `${s.from}-${s.to}`).join(',');
}

export type { MoveState };
