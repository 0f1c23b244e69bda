import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { MOVE_STATES, type MoveState } from './move-state.js';

/** Where the mover's metrics go. */
export interface ReshardingMetricsOptions {
  /** @default a new Registry of the mover's own */
  readonly registry?: Registry;
  /** @default 'typeorm_sharding_resharding_' */
  readonly prefix?: string;
}

/**
 * The mover's Prometheus metrics. Labels carry move ids, tables and states, never row values.
 *
 * | metric | type | labels |
 * |---|---|---|
 * | `moves` (moves in each state, set from the ledger on each status) | gauge | state |
 * | `rows_copied_total` | counter | move, table |
 * | `catch_up_lag_bytes` (source binlog bytes not yet applied; −1 when the files differ) | gauge | move, direction |
 * | `events_applied_total` (row changes applied by the catch-up) | counter | move, direction |
 * | `fence_pause_ms` (fence installed → new version published) | histogram | — |
 */
export class ReshardingMetrics {
  readonly registry: Registry;
  readonly moves: Gauge<'state'>;
  readonly rowsCopied: Counter<'move' | 'table'>;
  readonly lagBytes: Gauge<'move' | 'direction'>;
  readonly eventsApplied: Counter<'move' | 'direction'>;
  readonly fencePause: Histogram;

  constructor(options: ReshardingMetricsOptions = {}) {
    this.registry = options.registry ?? new Registry();
    const p = options.prefix ?? 'typeorm_sharding_resharding_';
    const registers = [this.registry];
    this.moves = new Gauge({ name: `${p}moves`, help: 'Moves in each state', labelNames: ['state'], registers });
    this.rowsCopied = new Counter({ name: `${p}rows_copied_total`, help: 'Rows copied from snapshots', labelNames: ['move', 'table'], registers });
    this.lagBytes = new Gauge({ name: `${p}catch_up_lag_bytes`, help: 'Binlog bytes not yet applied (-1: another file)', labelNames: ['move', 'direction'], registers });
    this.eventsApplied = new Counter({ name: `${p}events_applied_total`, help: 'Row changes applied by the catch-up', labelNames: ['move', 'direction'], registers });
    this.fencePause = new Histogram({ name: `${p}fence_pause_ms`, help: 'Write pause on the moving buckets at cutover', buckets: [10, 25, 50, 100, 250, 500, 1000, 2500, 5000], registers });
  }

  /** Sets the `moves` gauge from a list of states. */
  countStates(states: readonly MoveState[]): void {
    for (const state of MOVE_STATES) this.moves.set({ state }, states.filter((s) => s === state).length);
  }
}
