import { beforeAll, describe, expect, it } from 'vitest';
import { createHashAlgorithm, createModAlgorithm, type ShardingAlgorithm } from '../algorithms/index.js';
import { createSnowflakeGenerator, type KeyGenerator } from './snowflake-generator.js';
import { FakeClock, seededRandom } from './testing/fake-clock.js';

// Issue 11, item 5: 1,000,000 ids from 4 workers — all unique, increasing per worker, spread
// over 64 shards within ±5 % under both `hash` and `mod` — at the rates that defeat a naive
// generator: one id per millisecond (each millisecond's sequence would be 0) and bursts that
// use up whole milliseconds.

const WORKERS = [0, 1, 511, 1023];
const PER_WORKER = 250_000;
const SHARDS = 64;
const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);

/** How time passes per clock read in each phase of the run: a mix of rates. */
const PHASES: readonly { readonly name: string; readonly advance: (random: () => number) => number }[] = [
  { name: 'one id every 1-3 ms', advance: (r) => 1 + Math.floor(r() * 3) },
  { name: 'about one id per ms', advance: () => 1 },
  { name: 'bursts (a ms lasts ~5000 reads)', advance: (r) => (r() < 1 / 5000 ? 1 : 0) },
  { name: 'a few ids per ms', advance: (r) => (r() < 0.3 ? 1 : 0) },
];

interface Run {
  readonly ids: BigUint64Array;
  readonly increasingPerWorker: boolean;
  readonly wrongWorker: number;
  readonly sleeps: number;
}

/** Generates the ids round-robin from the four workers on one shared clock (the worst case for collisions). */
function generate(makeGenerator: (workerId: number, clock: FakeClock) => KeyGenerator): Run {
  const clock = new FakeClock(T0);
  const random = seededRandom(11);
  let phase = PHASES[0]!;
  clock.onRead = (c) => {
    c.time += phase.advance(random);
  };
  const generators = WORKERS.map((w) => makeGenerator(w, clock));
  const last = WORKERS.map(() => -1n);
  const ids = new BigUint64Array(WORKERS.length * PER_WORKER);
  let increasingPerWorker = true;
  let wrongWorker = 0;
  for (let i = 0; i < PER_WORKER; i++) {
    phase = PHASES[Math.floor(i / 10_000) % PHASES.length]!;
    for (let w = 0; w < generators.length; w++) {
      const id = generators[w]!.nextBigInt();
      if (id <= last[w]!) increasingPerWorker = false;
      if (Number((id >> 12n) & 1023n) !== WORKERS[w]) wrongWorker++;
      last[w] = id;
      ids[i * WORKERS.length + w] = id;
    }
  }
  return { ids, increasingPerWorker, wrongWorker, sleeps: clock.sleeps.length };
}

function duplicates(ids: BigUint64Array): number {
  const sorted = ids.slice().sort();
  let count = 0;
  for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) count++;
  return count;
}

/** Largest relative deviation of a shard's count from the mean. */
function spread(ids: BigUint64Array, algorithm: ShardingAlgorithm): number {
  const counts = new Array<number>(SHARDS).fill(0);
  for (const id of ids) counts[algorithm.shardIndexOf(id.toString())]!++;
  const mean = ids.length / SHARDS;
  return Math.max(...counts.map((c) => Math.abs(c - mean) / mean));
}

const shardNames = Array.from({ length: SHARDS }, (_, i) => `s${i}`);
const hash = createHashAlgorithm({ shardNames, keyKind: 'integer' });
const mod = createModAlgorithm(SHARDS);

describe('1,000,000 Snowflake ids from 4 workers', () => {
  let run: Run;
  beforeAll(() => {
    run = generate((workerId, clock) => createSnowflakeGenerator({ workerId, clock, random: seededRandom(workerId + 1) }));
  });

  it('are all unique and strictly increasing per worker, each carrying its worker id', () => {
    expect(run.ids.length).toBe(1_000_000);
    expect(duplicates(run.ids)).toBe(0);
    expect(run.increasingPerWorker).toBe(true);
    expect(run.wrongWorker).toBe(0);
    expect(run.sleeps, 'the bursts must use up whole milliseconds').toBeGreaterThan(0);
  });

  it('spread over 64 shards within ±5 % under mod', () => {
    expect(spread(run.ids, mod)).toBeLessThan(0.05);
  });

  it('spread over 64 shards within ±5 % under hash', () => {
    expect(spread(run.ids, hash)).toBeLessThan(0.05);
  });

  it('a sequence starting at 0 every millisecond (the naive generator) fails the mod spread: the check can fail', () => {
    const naive = generate((workerId, clock) => createSnowflakeGenerator({ workerId, clock, random: () => 0 }));
    expect(duplicates(naive.ids)).toBe(0);
    expect(spread(naive.ids, mod)).toBeGreaterThan(0.5);
  });
});
