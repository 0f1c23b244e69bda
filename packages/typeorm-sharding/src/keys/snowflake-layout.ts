/**
 * The bit layout of a Snowflake id, as a signed 64-bit integer whose top bit is always 0 (so it
 * fits a MySQL `BIGINT` and a SQLite `INTEGER`, signed or not):
 *
 * ```
 *  0 | 41 bits: milliseconds since the epoch | 10 bits: worker id | 12 bits: sequence
 * ```
 *
 * Ids of one worker increase with time; ids of different workers never collide, whatever
 * their clocks say. The layout is data that existing ids depend on: it is fixed.
 */
export const TIMESTAMP_BITS = 41;
/** Bits of the worker id: 1024 workers. */
export const WORKER_ID_BITS = 10;
/** Bits of the per-millisecond sequence: 4096 ids per worker and millisecond. */
export const SEQUENCE_BITS = 12;

/** Largest worker id (1023). */
export const MAX_WORKER_ID = 2 ** WORKER_ID_BITS - 1;
/** Largest sequence number (4095). */
export const MAX_SEQUENCE = 2 ** SEQUENCE_BITS - 1;
/** Largest timestamp (milliseconds since the epoch): about 69.7 years. */
export const MAX_TIMESTAMP = 2 ** TIMESTAMP_BITS - 1;

/**
 * The default epoch, 2024-01-01T00:00:00.000Z: ids fit 41 bits until 2093-09-06. Like the
 * bucket count, an epoch is fixed for the life of the data: moving it back makes new ids
 * repeat old ones.
 */
export const DEFAULT_EPOCH = Date.UTC(2024, 0, 1);

/** Decimal digits of the largest Snowflake id (2^63 − 1): text columns hold ids padded to this width. */
export const SNOWFLAKE_DIGITS = 19;

const TIMESTAMP_SHIFT = BigInt(SEQUENCE_BITS + WORKER_ID_BITS);

/** The parts of a Snowflake id. */
export interface SnowflakeParts {
  /** Milliseconds since the Unix epoch (the id's epoch added back). */
  readonly time: number;
  /** The worker that issued it. */
  readonly workerId: number;
  /** Its place within that worker's millisecond. */
  readonly sequence: number;
}

/**
 * The id of `(timestamp, workerId, sequence)`; `timestamp` counts milliseconds since the epoch.
 * The low 22 bits are assembled as a number (exact), only the shift of the timestamp needs BigInt.
 */
export function composeSnowflake(timestamp: number, workerId: number, sequence: number): bigint {
  return (BigInt(timestamp) << TIMESTAMP_SHIFT) | BigInt(workerId * 2 ** SEQUENCE_BITS + sequence);
}

/**
 * Splits a Snowflake id (a decimal string, possibly zero-padded, a bigint or a safe integer)
 * into its parts, for logs and debugging. `epoch` must be the one the id was made with.
 */
export function decodeSnowflake(id: string | bigint | number, epoch: Date | number = DEFAULT_EPOCH): SnowflakeParts {
  const value = BigInt(id);
  if (value < 0n || value >= 2n ** 63n) throw new RangeError(`${String(id)} is not a Snowflake id (0 … 2^63 − 1)`);
  const low = Number(value & ((1n << TIMESTAMP_SHIFT) - 1n));
  return {
    time: Number(value >> TIMESTAMP_SHIFT) + (typeof epoch === 'number' ? epoch : epoch.getTime()),
    workerId: Math.floor(low / 2 ** SEQUENCE_BITS),
    sequence: low % 2 ** SEQUENCE_BITS,
  };
}
