import type { Row } from '../row.js';

/** How a {@link fakeInput} misbehaves. */
export interface FakeInputOptions {
  /** Name used in log lines. @default 'in' */
  readonly name?: string;
  /** Shared log to append to, so tests can assert the interleaving of several inputs. */
  readonly log?: string[];
  /** The row index (0-based; may equal `rows.length`) whose next() rejects instead of answering. */
  readonly failAt?: number;
  /** The error `failAt` rejects with. @default new Error(`${name} failed`) */
  readonly error?: Error;
  /** return() rejects with this error (after marking the input closed). */
  readonly closeError?: Error;
}

/** A logging fake shard stream (like Vitess's fake cursor): it records every call made to it. */
export interface FakeInput extends AsyncIterable<Row> {
  readonly name: string;
  /** next() calls answered with a row or an error (not the final `done`). */
  readonly pulled: number;
  /** Times `[Symbol.asyncIterator]()` was called. */
  readonly opened: number;
  /** True once return() was called. */
  readonly closed: boolean;
  /** True once next() answered `done`. */
  readonly exhausted: boolean;
  readonly log: readonly string[];
}

/** `id=1 t=5` form of a row for compact assertions. */
export function show(row: Row): string {
  return Object.entries(row)
    .map(([column, value]) => `${column}=${showCell(value)}`)
    .join(' ');
}

function showCell(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

/** A stream over `rows` that logs `name: next → …` / `name: return` and can fail on demand. */
export function fakeInput(rows: readonly Row[], options: FakeInputOptions = {}): FakeInput {
  const name = options.name ?? 'in';
  const log = options.log ?? [];
  const state = { pulled: 0, opened: 0, closed: false, exhausted: false, index: 0 };
  return {
    name,
    log,
    get pulled() {
      return state.pulled;
    },
    get opened() {
      return state.opened;
    },
    get closed() {
      return state.closed;
    },
    get exhausted() {
      return state.exhausted;
    },
    [Symbol.asyncIterator](): AsyncIterator<Row> {
      state.opened++;
      return {
        async next() {
          await Promise.resolve();
          if (state.index === options.failAt && !state.closed) {
            state.pulled++;
            const error = options.error ?? new Error(`${name} failed`);
            log.push(`${name}: next → error ${error.message}`);
            throw error;
          }
          if (state.closed || state.index >= rows.length) {
            state.exhausted = true;
            log.push(`${name}: next → done`);
            return { done: true, value: undefined };
          }
          const row = rows[state.index++] as Row;
          state.pulled++;
          log.push(`${name}: next → ${show(row)}`);
          return { done: false, value: row };
        },
        async return() {
          state.closed = true;
          log.push(`${name}: return`);
          if (options.closeError !== undefined) throw options.closeError;
          return { done: true, value: undefined };
        },
      };
    },
  };
}
