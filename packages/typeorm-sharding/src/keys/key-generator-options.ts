import { describeValue } from '../algorithms/index.js';
import { ShardingConfigError } from '../errors/index.js';
import { InvalidWorkerIdError } from './key-errors.js';
import { createSnowflakeGenerator } from './snowflake-generator.js';
import { MAX_WORKER_ID } from './snowflake-layout.js';

/**
 * `sharding.keyGenerator`: the Snowflake generator behind `@Snowflake()` columns and
 * `dataSource.keyGenerator`. One per data source; every process writing the same tables needs
 * its own worker id.
 */
export interface KeyGeneratorOptions {
  /**
   * This process's worker id, 0 … 1023 (from your deployment: a StatefulSet ordinal, a
   * configuration value), or `'lease'` to lease a free one from a table on the default shard at
   * `initialize()` (see `leaseTable`). Two live processes with one worker id would issue equal
   * ids: do not mix fixed ids with leased ones on the same tables.
   */
  readonly workerId: number | 'lease';
  /**
   * The time ids count from (a Date or Unix milliseconds). Fixed for the life of the data: a later
   * epoch makes new ids repeat old ones.
   * @default 2024-01-01T00:00:00.000Z (ids fit their 41 bits until 2093)
   */
  readonly epoch?: Date | number;
  /**
   * How far (ms) the clock may step back behind the newest id: such a step is waited out (the
   * call blocks that long); a larger one throws `ClockMovedBackwardsError`.
   * @default 10
   */
  readonly maxClockBackwardMs?: number;
  /**
   * With `workerId: 'lease'`: the table on the default shard holding one row per worker id
   * (created when missing; never put it in `entities`).
   * @default 'typeorm_sharding_workers'
   */
  readonly leaseTable?: string;
  /**
   * With `workerId: 'lease'`: how long a lease lasts without renewal (ms); it is renewed every
   * third of it. After a process dies its worker id is free again this long after its last
   * renewal; a process that cannot renew stops issuing ids when its lease ends.
   * @default 60000
   */
  readonly leaseMs?: number;
}

const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Validates `sharding.keyGenerator` eagerly (the constructor calls it), so that a typo fails at once. */
export function checkKeyGeneratorOptions(options: KeyGeneratorOptions | undefined): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null) {
    throw new ShardingConfigError(`sharding.keyGenerator must be an object such as { workerId: 'lease' }; got ${describeValue(options)}.`);
  }
  const { workerId, leaseTable, leaseMs } = options;
  if (workerId !== 'lease' && (typeof workerId !== 'number' || !Number.isInteger(workerId) || workerId < 0 || workerId > MAX_WORKER_ID)) {
    throw new InvalidWorkerIdError(`sharding.keyGenerator.workerId must be an integer from 0 to ${MAX_WORKER_ID} or 'lease'; got ${describeValue(workerId)}.`);
  }
  if (workerId !== 'lease' && (leaseTable !== undefined || leaseMs !== undefined)) {
    throw new ShardingConfigError(`sharding.keyGenerator.leaseTable and leaseMs apply only to workerId: 'lease'; workerId is ${workerId}.`);
  }
  if (leaseTable !== undefined && (typeof leaseTable !== 'string' || !TABLE_NAME.test(leaseTable))) {
    throw new ShardingConfigError(`sharding.keyGenerator.leaseTable must be a plain table name (letters, digits, _); got ${describeValue(leaseTable)}.`);
  }
  if (leaseMs !== undefined && (typeof leaseMs !== 'number' || !Number.isInteger(leaseMs) || leaseMs < 1000)) {
    throw new ShardingConfigError(`sharding.keyGenerator.leaseMs must be an integer of at least 1000 (ms); got ${describeValue(leaseMs)}.`);
  }
  // The epoch and the tolerance are checked by the generator itself.
  createSnowflakeGenerator({ workerId: 0, epoch: options.epoch, maxClockBackwardMs: options.maxClockBackwardMs });
}
