import { describe, expect, it } from 'vitest';
import { ShardingConfigError, ShardingError } from '../errors/index.js';
import { ClockMovedBackwardsError, InvalidEpochError, InvalidWorkerIdError } from './key-errors.js';
import { createSnowflakeGenerator } from './snowflake-generator.js';
import { DEFAULT_EPOCH, MAX_SEQUENCE, MAX_TIMESTAMP, decodeSnowflake } from './snowflake-layout.js';
import { FakeClock } from './testing/fake-clock.js';

const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);

describe('createSnowflakeGenerator', () => {
  it('issues increasing ids that decode to their time, worker and sequence', () => {
    const clock = new FakeClock(T0);
    const gen = createSnowflakeGenerator({ workerId: 37, clock, random: () => 0.25 });
    const a = gen.nextBigInt();
    const b = gen.nextBigInt();
    clock.time += 3;
    const c = gen.nextBigInt();
    expect(a < b && b < c).toBe(true);
    expect(gen.decode(a)).toEqual({ time: T0, workerId: 37, sequence: 1024 });
    expect(gen.decode(b)).toEqual({ time: T0, workerId: 37, sequence: 1025 });
    expect(gen.decode(c)).toEqual({ time: T0 + 3, workerId: 37, sequence: 1024 });
    expect(a).toBe((BigInt(T0 - DEFAULT_EPOCH) << 22n) | (37n << 12n) | 1024n);
  });

  it('returns exact decimal strings: ids beyond 2^53 keep every digit', () => {
    const clock = new FakeClock(T0);
    const gen = createSnowflakeGenerator({ workerId: 1023, clock, random: () => 0.999 });
    const id = gen.nextId();
    expect(id).toMatch(/^[1-9][0-9]{17,18}$/);
    expect(BigInt(id) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
    expect(decodeSnowflake(id)).toEqual({ time: T0, workerId: 1023, sequence: 4091 });
    expect(BigInt(id) < 2n ** 63n).toBe(true);
  });

  it('waits for the next millisecond after 4096 ids in one, never repeating a sequence', () => {
    const clock = new FakeClock(T0);
    const gen = createSnowflakeGenerator({ workerId: 1, clock, random: () => 0 });
    const ids = Array.from({ length: 4096 }, () => gen.nextBigInt());
    expect(clock.sleeps).toEqual([]);
    expect(ids.map((id) => gen.decode(id).sequence)).toEqual(Array.from({ length: 4096 }, (_, i) => i));
    const next = gen.nextBigInt();
    expect(clock.sleeps).toEqual([1]);
    expect(gen.decode(next).time).toBe(T0 + 1);
    expect(next > ids[4095]!).toBe(true);
  });

  it('from a random start, a millisecond ends at sequence 4095 (no wrap inside it: ids stay ordered)', () => {
    const clock = new FakeClock(T0);
    const gen = createSnowflakeGenerator({ workerId: 1, clock, random: () => 0.75 });
    const ids = Array.from({ length: 1025 }, () => gen.nextBigInt());
    expect(gen.decode(ids[0]!).sequence).toBe(3072);
    expect(gen.decode(ids[1023]!)).toMatchObject({ time: T0, sequence: MAX_SEQUENCE });
    expect(gen.decode(ids[1024]!)).toMatchObject({ time: T0 + 1, sequence: 3072 });
    expect(clock.sleeps).toEqual([1]);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
  });

  it('starts each new millisecond at a fresh random sequence', () => {
    const clock = new FakeClock(T0);
    const starts = [0.1, 0.5, 0.9];
    const gen = createSnowflakeGenerator({ workerId: 1, clock, random: () => starts.shift()! });
    const seqs = [0, 1, 2].map(() => {
      clock.time += 1;
      return gen.decode(gen.nextBigInt()).sequence;
    });
    expect(seqs).toEqual([409, 2048, 3686]);
  });

  describe('a clock that moves back', () => {
    it('within the tolerance: waits until the clock is back at the newest id, then continues after it', () => {
      const clock = new FakeClock(T0);
      const gen = createSnowflakeGenerator({ workerId: 2, clock, maxClockBackwardMs: 10, random: () => 0 });
      const before = gen.nextBigInt();
      clock.time = T0 - 10;
      const after = gen.nextBigInt();
      expect(clock.sleeps).toEqual([10]);
      expect(after > before).toBe(true);
      expect(gen.decode(after)).toEqual({ time: T0, workerId: 2, sequence: 1 });
    });

    it('beyond the tolerance: throws ClockMovedBackwardsError, issues nothing, and resumes once the clock caught up', () => {
      const clock = new FakeClock(T0);
      const gen = createSnowflakeGenerator({ workerId: 2, clock, maxClockBackwardMs: 10, random: () => 0 });
      const before = gen.nextBigInt();
      clock.time = T0 - 11;
      const error = (() => {
        try {
          gen.nextBigInt();
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ClockMovedBackwardsError);
      expect(error).toBeInstanceOf(ShardingError);
      expect(error).toMatchObject({ code: 'SHARDING_CLOCK_BACKWARDS', behindMs: 11, stage: 'write' });
      expect((error as Error).message).toMatch(/11 ms behind the newest id of worker 2 .*maxClockBackwardMs \(10\)/);
      expect(clock.sleeps).toEqual([]);
      expect(() => gen.nextBigInt()).toThrow(ClockMovedBackwardsError);
      clock.time = T0;
      const same = gen.nextBigInt();
      expect(gen.decode(same)).toEqual({ time: T0, workerId: 2, sequence: 1 });
      expect(same > before).toBe(true);
    });

    it('with tolerance 0 every step back is an error', () => {
      const clock = new FakeClock(T0);
      const gen = createSnowflakeGenerator({ workerId: 2, clock, maxClockBackwardMs: 0 });
      gen.nextBigInt();
      clock.time -= 1;
      expect(() => gen.nextBigInt()).toThrow(ClockMovedBackwardsError);
    });

    it('never goes below notBefore (the previous holder of a leased worker id)', () => {
      const clock = new FakeClock(T0);
      const gen = createSnowflakeGenerator({ workerId: 3, clock, notBefore: T0 + 4, maxClockBackwardMs: 10, random: () => 0 });
      expect(gen.decode(gen.nextBigInt()).time).toBe(T0 + 4);
      expect(clock.sleeps).toEqual([4]);
      const far = createSnowflakeGenerator({ workerId: 3, clock: new FakeClock(T0), notBefore: T0 + 50 });
      expect(() => far.nextBigInt()).toThrow(/50 ms behind the end of the previous lease of worker id 3/);
    });
  });

  it('asks the guard before each id and issues nothing it refuses', () => {
    const clock = new FakeClock(T0);
    const seen: number[] = [];
    const gen = createSnowflakeGenerator({
      workerId: 4,
      clock,
      random: () => 0,
      guard: (time) => {
        seen.push(time);
        if (time >= T0 + 2) throw new Error('lease expired');
      },
    });
    const first = gen.nextBigInt();
    clock.time += 2;
    expect(() => gen.nextBigInt()).toThrow('lease expired');
    clock.time -= 1;
    expect(gen.decode(gen.nextBigInt())).toMatchObject({ time: T0 + 1 });
    expect(seen).toEqual([T0, T0 + 2, T0 + 1]);
    expect(gen.decode(first).sequence).toBe(0);
  });

  it('refuses worker ids outside 0 … 1023', () => {
    for (const workerId of [-1, 1024, 1.5, Number.NaN, '3', undefined]) {
      expect(() => createSnowflakeGenerator({ workerId: workerId as number }), String(workerId)).toThrow(InvalidWorkerIdError);
    }
    expect(() => createSnowflakeGenerator({ workerId: 1024 })).toThrow(/integer from 0 to 1023; got number 1024.*'lease'/);
    expect(new InvalidWorkerIdError('x')).toMatchObject({ code: 'SHARDING_WORKER_ID', stage: 'config' });
    expect(createSnowflakeGenerator({ workerId: 0 }).workerId).toBe(0);
    expect(createSnowflakeGenerator({ workerId: 1023 }).workerId).toBe(1023);
  });

  it('refuses an epoch in the future, one too old for 41 bits, or no time at all', () => {
    const clock = new FakeClock(T0);
    expect(() => createSnowflakeGenerator({ workerId: 1, clock, epoch: T0 + 1 })).toThrow(InvalidEpochError);
    expect(() => createSnowflakeGenerator({ workerId: 1, clock, epoch: new Date(T0 + 1) })).toThrow(/in the future/);
    expect(() => createSnowflakeGenerator({ workerId: 1, clock, epoch: T0 - MAX_TIMESTAMP - 1 })).toThrow(/69\.7 years/);
    expect(() => createSnowflakeGenerator({ workerId: 1, clock, epoch: new Date('nope') })).toThrow(InvalidEpochError);
    expect(new InvalidEpochError('x').code).toBe('SHARDING_EPOCH');
    const gen = createSnowflakeGenerator({ workerId: 1, clock, epoch: new Date(T0), random: () => 0 });
    expect(gen.epoch).toBe(T0);
    expect(gen.nextBigInt()).toBe(1n << 12n);
  });

  it('stops, issuing nothing, when the time no longer fits 41 bits', () => {
    const clock = new FakeClock(T0);
    const gen = createSnowflakeGenerator({ workerId: 1, clock, epoch: T0 - MAX_TIMESTAMP, random: () => 0 });
    expect(gen.decode(gen.nextBigInt()).time).toBe(T0);
    clock.time += 1;
    expect(() => gen.nextBigInt()).toThrow(/ran out of timestamp bits/);
  });

  it('validates the clock tolerance', () => {
    expect(() => createSnowflakeGenerator({ workerId: 1, maxClockBackwardMs: -1 })).toThrow(ShardingConfigError);
    expect(() => createSnowflakeGenerator({ workerId: 1, maxClockBackwardMs: 2.5 })).toThrow(/non-negative integer/);
  });
});

describe('decodeSnowflake', () => {
  it('takes strings (also zero-padded), bigints and numbers, and refuses what is no id', () => {
    const id = (5n << 22n) | (6n << 12n) | 7n;
    const parts = { time: DEFAULT_EPOCH + 5, workerId: 6, sequence: 7 };
    expect(decodeSnowflake(id)).toEqual(parts);
    expect(decodeSnowflake(id.toString().padStart(19, '0'))).toEqual(parts);
    expect(decodeSnowflake(Number(id))).toEqual(parts);
    expect(decodeSnowflake(id, 0)).toEqual({ ...parts, time: 5 });
    expect(() => decodeSnowflake(-1n)).toThrow(RangeError);
    expect(() => decodeSnowflake(2n ** 63n)).toThrow(RangeError);
  });
});
