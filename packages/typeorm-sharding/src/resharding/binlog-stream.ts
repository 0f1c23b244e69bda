/*
 * The binlog client. Chosen: @vlasky/zongji (0.9, maintained in 2026, MySQL *and* MariaDB,
 * on mysql2 — the driver the project already uses). Its resume position (options.filename /
 * position) never points inside a transaction: it freezes at the first TableMap and moves at
 * the commit, and MariaDB's zero end_log_pos inside transactions is ignored, which is exactly
 * the "persist only at transaction boundaries" rule a resumable catch-up needs. The
 * alternatives in the registry: `zongji` (the original, on the unmaintained `mysql` driver,
 * no MariaDB GTIDs), `@rodrigogs/zongji` (a fork of that, last release years old),
 * `@powersync/mysql-zongji` (MySQL 8 only), `go-mysql-js` / `@solashi/go-mysql-binlog-node`
 * (native Go builds, heavier to install, small user base).
 */
import { comparePositions, type BinlogPosition } from './binlog-position.js';
import type { Endpoint } from './endpoint.js';
import { ReshardingError } from './errors.js';

/** A row change, with the position after the transaction that made it. */
export type RowChange =
  | { readonly kind: 'insert'; readonly table: string; readonly after: Record<string, unknown> }
  | { readonly kind: 'update'; readonly table: string; readonly before: Record<string, unknown>; readonly after: Record<string, unknown> }
  | { readonly kind: 'delete'; readonly table: string; readonly before: Record<string, unknown> };

/** One committed transaction's changes to the watched tables, and where the binlog stands after it. */
export interface BinlogTransaction {
  readonly changes: readonly RowChange[];
  readonly end: BinlogPosition;
}

/** What to read. */
export interface StreamOptions {
  readonly server: Endpoint;
  readonly database: string;
  readonly tables: readonly string[];
  readonly from: BinlogPosition;
  /**
   * Stop once this position is reached. A function is asked again after every event and
   * every {@link FOLLOW_POLL_MS} while it answers undefined (follow the binlog until told
   * where to stop: the cutover keeps one stream running across the fence).
   */
  readonly until: BinlogPosition | (() => BinlogPosition | undefined);
  /** Replica server id of this reader (unique on the server). */
  readonly serverId: number;
  /** Fail when no event arrives for this long before `until` is reached. @default 30000 */
  readonly idleTimeoutMs?: number;
  /** Applies one transaction; the stream reads on only after it resolves. */
  readonly apply: (tx: BinlogTransaction) => Promise<void>;
}

interface ZEvent {
  getEventName(): string;
  nextPosition: number;
  tableId?: number;
  tableMap?: Record<number, { parentSchema: string; tableName: string }>;
  rows?: unknown[];
}

/** How often a following stream (no stop position yet) looks at its `until` again. */
const FOLLOW_POLL_MS = 5;

/** Largest number of row changes applied (and positions persisted) as one batch. */
const MAX_BATCH_CHANGES = 500;

/**
 * Reads the server's binlog from `from` until `until`, handing committed transactions to
 * `apply` in order (events of one transaction are buffered until its commit; transactions that
 * arrived together are handed over as one batch). Resolves with the position reached
 * (≥ `until`), which the caller persists: transactions that touched no watched table are not
 * handed over at all — persisting a position for each would write to the metadata database,
 * whose own commits, on a shared server, would feed the stream for ever.
 */
export async function streamBinlog(options: StreamOptions): Promise<BinlogPosition> {
  const untilNow = typeof options.until === 'function' ? options.until : ((fixed) => () => fixed)(options.until);
  const first = untilNow();
  if (first && comparePositions(options.from, first) >= 0) return options.from;
  const { default: ZongJi } = await import('@vlasky/zongji');
  const zongji = new ZongJi({
    host: options.server.host,
    port: options.server.port,
    user: options.server.user,
    password: options.server.password,
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
  } as never);
  const watched = new Set(options.tables);
  const queue: { event: ZEvent; at: BinlogPosition }[] = [];
  let pending: RowChange[] = [];
  let batch: RowChange[] = [];
  let batchEnd: BinlogPosition | undefined;
  let reached = options.from;
  let wake: (() => void) | undefined;
  let failure: unknown;
  zongji.on('binlog', (event: ZEvent) => {
    const z = zongji as unknown as { options: { filename?: string; position?: number } };
    queue.push({ event, at: { file: z.options.filename ?? reached.file, pos: z.options.position ?? reached.pos } });
    wake?.();
  });
  zongji.on('error', (error: unknown) => {
    failure = error;
    wake?.();
  });
  zongji.start({
    serverId: options.serverId,
    filename: options.from.file,
    position: options.from.pos,
    includeEvents: ['tablemap', 'writerows', 'updaterows', 'deleterows', 'xid', 'query', 'rotate'],
    includeSchema: { [options.database]: [...options.tables] },
  });
  const idle = options.idleTimeoutMs ?? 30_000;
  try {
    for (;;) {
      const until = untilNow();
      if (until && comparePositions(reached, until) >= 0) break;
      const next = queue.shift();
      if (!next) {
        if (failure) throw failure;
        const arrived = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), until ? idle : FOLLOW_POLL_MS);
          wake = () => {
            clearTimeout(timer);
            resolve(true);
          };
        });
        wake = undefined;
        if (!arrived && queue.length === 0 && until) {
          throw new ReshardingError('lag', `The binlog of ${options.server.host}:${options.server.port} gave no event for ${idle} ms at ${reached.file}:${reached.pos}, before ${until.file}:${until.pos}.`);
        }
        continue;
      }
      const { event, at } = next;
      const name = event.getEventName();
      const table = event.tableId !== undefined ? event.tableMap?.[event.tableId]?.tableName : undefined;
      switch (name) {
        case 'tablemap':
        case 'rotate':
          break;
        case 'writerows':
        case 'updaterows':
        case 'deleterows':
          if (table && watched.has(table)) pending.push(...toChanges(name, table, event.rows ?? []));
          break;
        case 'xid':
        case 'query':
          // A commit (xid), or a statement outside a transaction (DDL, COMMIT of a
          // non-transactional table): the end of a unit the stream may resume after.
          batch.push(...pending);
          pending = [];
          batchEnd = at;
          // Several committed transactions are applied as one (still whole transactions, in
          // order): one target commit and one position write for a burst, not one per event.
          if (batch.length > 0 && (queue.length === 0 || batch.length >= MAX_BATCH_CHANGES)) {
            await options.apply({ changes: batch, end: at });
            batch = [];
          }
          reached = at;
          break;
        default:
          throw new ReshardingError('unsupported-event', `[BUG] binlog event ${name} was not asked for`);
      }
    }
    if (batch.length > 0) await options.apply({ changes: batch, end: batchEnd! });
    return reached;
  } finally {
    zongji.stop();
  }
}

function toChanges(name: string, table: string, list: readonly unknown[]): RowChange[] {
  if (name === 'writerows') return list.map((after) => ({ kind: 'insert', table, after: after as Record<string, unknown> }));
  if (name === 'deleterows') return list.map((before) => ({ kind: 'delete', table, before: before as Record<string, unknown> }));
  return list.map((r) => {
    const { before, after } = r as { before: Record<string, unknown>; after: Record<string, unknown> };
    return { kind: 'update', table, before, after };
  });
}
