import { describeValue } from '../algorithms/index.js';
import { ShardingConfigError } from '../errors/index.js';
import { systemClock, type Clock } from './clock.js';
import { ClockMovedBackwardsError, InvalidEpochError, InvalidWorkerIdError } from './key-errors.js';
import {
  composeSnowflake,
  decodeSnowflake,
  DEFAULT_EPOCH,
  MAX_SEQUENCE,
  MAX_TIMESTAMP,
  MAX_WORKER_ID,
  SEQUENCE_BITS,
  type SnowflakeParts,
} from './snowflake-layout.js';

/** Default of `maxClockBackwardMs`: NTP slews small errors and steps only large ones, so 10 ms covers jitter, not real steps. */
export const DEFAULT_MAX_CLOCK_BACKWARD_MS = 10;

/** Options of {@link createSnowflakeGenerator}. */
export interface SnowflakeGeneratorOptions {
  /** This worker's id, 0 … 1023; no two live processes may share one. */
  readonly workerId: number;
  /**
   * The time ids count from (a Date or Unix milliseconds); fixed for the life of the data.
   * @default 2024-01-01T00:00:00.000Z
   */
  readonly epoch?: Date | number;
  /**
   * How far (ms) the clock may step back behind the newest id before `ClockMovedBackwardsError`;
   * smaller steps are waited out (the call blocks that long).
   * @default 10
   */
  readonly maxClockBackwardMs?: number;
  /** @default the system clock */
  readonly clock?: Clock;
  /**
   * Where each millisecond's sequence starts, as a fraction in [0, 1) (see "Spread over shards").
   * @default Math.random
   */
  readonly random?: () => number;
  /**
   * Earliest Unix millisecond an id may carry: a leased worker id's previous holder issued ids
   * only before it, so starting there keeps ids unique whatever the two clocks said.
   * @default no bound
   */
  readonly notBefore?: number;
  /** Called with the time of each id before it is issued; throws to refuse it (an expired lease). */
  readonly guard?: (time: number) => void;
}

/** Hands out Snowflake ids: unique, increasing per worker, as exact decimal strings or bigints. */
export interface KeyGenerator {
  /** The worker id in every id of this generator. */
  readonly workerId: number;
  /** The epoch, in Unix milliseconds. */
  readonly epoch: number;
  /** A new id as a decimal string (how TypeORM carries a `bigint` column). */
  nextId(): string;
  /** A new id as a bigint. */
  nextBigInt(): bigint;
  /** The parts of an id made with this generator's epoch. */
  decode(id: string | bigint | number): SnowflakeParts;
}

const SEQUENCE_SPAN = 2 ** SEQUENCE_BITS;

/**
 * A Snowflake generator (41-bit milliseconds since the epoch, 10-bit worker id, 12-bit sequence).
 *
 * Guarantees, for one generator:
 * - **no repeat, strictly increasing**: each id carries a later millisecond than the previous
 *   one, or the same millisecond and a higher sequence; after 4096 ids in one millisecond it
 *   waits for the next one;
 * - **clock steps back**: if the clock reads earlier than the newest id (or `notBefore`) by at
 *   most `maxClockBackwardMs`, the call sleeps until the clock is there again; further back, it
 *   throws `ClockMovedBackwardsError` and issues nothing (later calls work once the clock caught up);
 * - **spread over shards**: each millisecond's sequence starts at a random value in 0 … 4095
 *   instead of 0 (ShardingSphere's "vibration" problem: at low rates most ids would end in 12 zero
 *   bits, and `id mod 64` would put them all on shard 0). Ids within a millisecond then take
 *   consecutive residues from a random start, so `mod n` and the hash spread them evenly over any
 *   shard count up to 4096. The cost: a millisecond holds on average 2048 ids before the wait,
 *   still two million ids a second per worker.
 *
 * Throws `InvalidWorkerIdError` or `InvalidEpochError` for bad options.
 */
export function createSnowflakeGenerator(options: SnowflakeGeneratorOptions): KeyGenerator {
  return new SnowflakeGenerator(options);
}

class SnowflakeGenerator implements KeyGenerator {
  readonly workerId: number;
  readonly epoch: number;
  private readonly maxBackward: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly notBefore: number;
  private readonly guard: ((time: number) => void) | undefined;
  /** Unix millisecond of the newest id issued (-Infinity before the first). */
  private last = -Infinity;
  private sequence = 0;
  /** The timestamp bits of `last`, shifted into place once per millisecond. */
  private high = 0n;

  constructor(options: SnowflakeGeneratorOptions) {
    this.workerId = checkWorkerId(options.workerId);
    this.clock = options.clock ?? systemClock;
    this.epoch = checkEpoch(options.epoch ?? DEFAULT_EPOCH, this.clock.now());
    this.maxBackward = checkTolerance(options.maxClockBackwardMs ?? DEFAULT_MAX_CLOCK_BACKWARD_MS);
    this.random = options.random ?? Math.random;
    this.notBefore = options.notBefore ?? -Infinity;
    this.guard = options.guard;
  }

  nextId(): string {
    return this.nextBigInt().toString();
  }

  nextBigInt(): bigint {
    for (;;) {
      const now = this.clock.now();
      const earliest = Math.max(this.last, this.notBefore);
      if (now < earliest) {
        this.waitForClock(earliest - now);
        continue;
      }
      const sameMillisecond = now === this.last;
      if (sameMillisecond && this.sequence === MAX_SEQUENCE) {
        this.clock.sleep(1); // this millisecond is used up
        continue;
      }
      const sequence = sameMillisecond ? this.sequence + 1 : Math.floor(this.random() * SEQUENCE_SPAN) % SEQUENCE_SPAN;
      const timestamp = now - this.epoch;
      if (timestamp > MAX_TIMESTAMP) {
        throw new InvalidEpochError(`Snowflake ids ran out of timestamp bits: ${new Date(now).toISOString()} is more than 2^41 ms after the epoch ${new Date(this.epoch).toISOString()}; no id was issued.`);
      }
      this.guard?.(now);
      if (!sameMillisecond) this.high = composeSnowflake(timestamp, 0, 0);
      this.last = now;
      this.sequence = sequence;
      return this.high | BigInt(this.workerId * SEQUENCE_SPAN + sequence);
    }
  }

  decode(id: string | bigint | number): SnowflakeParts {
    return decodeSnowflake(id, this.epoch);
  }

  private waitForClock(behind: number): void {
    if (behind > this.maxBackward) {
      const reference = this.last >= this.notBefore
        ? `the newest id of worker ${this.workerId} (${new Date(this.last).toISOString()})`
        : `the end of the previous lease of worker id ${this.workerId} (${new Date(this.notBefore).toISOString()})`;
      throw new ClockMovedBackwardsError(
        `The clock is ${behind} ms behind ${reference}, more than sharding.keyGenerator.maxClockBackwardMs (${this.maxBackward}); ` +
          'no id was issued, since it could repeat an earlier one. Ids are issued again once the clock has caught up; check NTP if this repeats.',
        behind,
      );
    }
    this.clock.sleep(behind);
  }
}

function checkWorkerId(workerId: unknown): number {
  if (typeof workerId !== 'number' || !Number.isInteger(workerId) || workerId < 0 || workerId > MAX_WORKER_ID) {
    throw new InvalidWorkerIdError(`A Snowflake worker id is an integer from 0 to ${MAX_WORKER_ID}; got ${describeValue(workerId)}. Give each process its own, or use workerId: 'lease'.`);
  }
  return workerId;
}

function checkEpoch(epoch: unknown, now: number): number {
  const ms = epoch instanceof Date ? epoch.getTime() : epoch;
  if (typeof ms !== 'number' || !Number.isInteger(ms)) {
    throw new InvalidEpochError(`The Snowflake epoch must be a Date or integer Unix milliseconds; got ${describeValue(epoch)}.`);
  }
  if (ms > now) {
    throw new InvalidEpochError(`The Snowflake epoch ${new Date(ms).toISOString()} is in the future (now ${new Date(now).toISOString()}); ids would carry negative times.`);
  }
  if (now - ms > MAX_TIMESTAMP) {
    throw new InvalidEpochError(`The Snowflake epoch ${new Date(ms).toISOString()} is more than 2^41 ms (about 69.7 years) ago: the time would not fit the id's 41 bits. Choose a recent epoch.`);
  }
  return ms;
}

function checkTolerance(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new ShardingConfigError(`sharding.keyGenerator.maxClockBackwardMs must be a non-negative integer; got ${describeValue(value)}.`);
  }
  return value;
}

