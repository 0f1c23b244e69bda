import { describe, expect, it } from 'vitest';
import { ShardingError } from '../errors/index.js';
import { WorkerLeaseError } from './key-errors.js';
import { createSnowflakeGenerator } from './snowflake-generator.js';
import { FakeClock, seededRandom } from './testing/fake-clock.js';
import { MemoryLeaseStore } from './testing/memory-lease-store.js';
import { WorkerLease } from './worker-lease.js';

const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);
const D = 60_000;

/** Fills the table with live leases of other processes on every worker id but `except`. */
function fill(store: MemoryLeaseStore, expiresAt: (id: number) => number, except: readonly number[] = []): void {
  for (let id = 0; id < 1024; id++) if (!except.includes(id)) store.rows.set(id, { workerId: id, owner: `other-${id}`, expiresAt: expiresAt(id) });
}

function leasedGenerator(lease: WorkerLease, clock: FakeClock) {
  return createSnowflakeGenerator({ workerId: lease.workerId, clock, notBefore: lease.notBefore, guard: (t) => lease.check(t), random: () => 0 });
}

describe('WorkerLease', () => {
  it('claims a free worker id with a row that ends one lease length from now', async () => {
    const store = new MemoryLeaseStore();
    const lease = await WorkerLease.claim({ store, clock: new FakeClock(T0), owner: 'me', random: () => 0.5 });
    expect(lease.workerId).toBe(512);
    expect(lease.notBefore).toBe(-Infinity);
    expect(store.rows.get(512)).toEqual({ workerId: 512, owner: 'me', expiresAt: T0 + D });
  });

  it('gives concurrent processes different worker ids, also when one loses the race for an id', async () => {
    const store = new MemoryLeaseStore();
    const clock = new FakeClock(T0);
    const first = await WorkerLease.claim({ store, clock, owner: 'a', random: () => 0 });
    // Another process inserts the id this one picked between its read and its insert.
    store.beforeInsert = (row) => {
      store.beforeInsert = undefined;
      store.rows.set(row.workerId, { workerId: row.workerId, owner: 'rival', expiresAt: T0 + D });
    };
    const second = await WorkerLease.claim({ store, clock, owner: 'b', random: () => 0 });
    expect(first.workerId).toBe(0);
    expect(second.workerId).toBe(2);
    expect(store.calls).toEqual(['insert 0', 'insert 1', 'insert 2']);
    expect(new Set([...store.rows.values()].map((r) => r.owner))).toEqual(new Set(['a', 'rival', 'b']));
  });

  it('refuses with WorkerLeaseError when all 1024 worker ids are held by live leases', async () => {
    const store = new MemoryLeaseStore();
    fill(store, () => T0 + 1);
    const error = await WorkerLease.claim({ store, clock: new FakeClock(T0) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkerLeaseError);
    expect(error).toBeInstanceOf(ShardingError);
    expect(error).toMatchObject({ code: 'SHARDING_WORKER_LEASE', stage: 'init' });
    expect((error as Error).message).toMatch(/All 1024 Snowflake worker ids are leased .* fixed worker ids/);
  });

  it('when none is free, takes over the lease that expired longest ago and starts its ids where it ended', async () => {
    const store = new MemoryLeaseStore();
    fill(store, (id) => (id === 700 ? T0 - 5000 : id === 9 ? T0 - 10 : T0 + 1));
    const lease = await WorkerLease.claim({ store, clock: new FakeClock(T0), owner: 'me' });
    expect(lease.workerId).toBe(700);
    expect(lease.notBefore).toBe(T0 - 5000);
    expect(store.rows.get(700)).toEqual({ workerId: 700, owner: 'me', expiresAt: T0 + D });
  });

  it('keeps ids of two holders of one worker id apart even when their clocks disagree', async () => {
    const store = new MemoryLeaseStore();
    const clockA = new FakeClock(T0);
    const a = await WorkerLease.claim({ store, clock: clockA, owner: 'a', durationMs: 1000 });
    fill(store, () => T0 + 10 * D, [a.workerId]);
    const genA = leasedGenerator(a, clockA);
    const idsA = [genA.nextBigInt()];
    clockA.time = T0 + 999;
    idsA.push(genA.nextBigInt());
    // A cannot renew (the database is unreachable): past its lease it refuses to issue ids.
    store.failWith = new Error('connect ECONNREFUSED');
    await a.renew();
    clockA.time = T0 + 1000;
    expect(() => genA.nextBigInt()).toThrow(/expired at .* could not be renewed: connect ECONNREFUSED/);
    store.failWith = undefined;
    // B's clock is 300 ms behind A's: it sees the lease expired only later, and then starts at its end.
    const clockB = new FakeClock(T0 + 1000 - 300);
    await expect(WorkerLease.claim({ store, clock: clockB, owner: 'early' })).rejects.toThrow(/All 1024/);
    clockB.time = T0 + 1000;
    const b = await WorkerLease.claim({ store, clock: clockB, owner: 'b' });
    expect(b.workerId).toBe(a.workerId);
    const genB = leasedGenerator(b, clockB);
    const idB = genB.nextBigInt();
    expect(genB.decode(idB).time).toBe(T0 + 1000);
    expect(idsA.every((id) => id < idB)).toBe(true);
    // A learns it lost the worker id at its next renewal and never issues again.
    await a.renew();
    clockA.time = T0 + 1200;
    expect(() => genA.nextBigInt()).toThrow(/taken over by another process/);
  });

  it('renews: the end moves on, a failed renewal keeps it, and a later success resumes ids', async () => {
    const store = new MemoryLeaseStore();
    const clock = new FakeClock(T0);
    const lease = await WorkerLease.claim({ store, clock, owner: 'me', durationMs: 1000 });
    const gen = leasedGenerator(lease, clock);
    clock.time = T0 + 400;
    await lease.renew();
    expect(store.rows.get(lease.workerId)!.expiresAt).toBe(T0 + 1400);
    clock.time = T0 + 1399;
    gen.nextBigInt();
    store.failWith = new Error('gone');
    await lease.renew();
    clock.time = T0 + 1400;
    expect(() => gen.nextBigInt()).toThrow(WorkerLeaseError);
    // Nobody took the worker id over: renewing again is safe and ids resume.
    store.failWith = undefined;
    await lease.renew();
    expect(gen.decode(gen.nextBigInt()).time).toBe(T0 + 1400);
  });

  it('does not renew inside a transaction of the same connection (SQLite), and retries later', async () => {
    const store = new MemoryLeaseStore();
    const clock = new FakeClock(T0);
    const lease = await WorkerLease.claim({ store, clock, owner: 'me' });
    store.calls.length = 0;
    store.writable = false;
    await lease.renew();
    expect(store.calls).toEqual([]);
    store.writable = true;
    await lease.renew();
    expect(store.calls).toEqual([`extend ${lease.workerId} ${T0 + D + 1}`]);
  });

  it('releases the lease right after the newest id, where the next holder starts', async () => {
    const store = new MemoryLeaseStore();
    const clock = new FakeClock(T0);
    const lease = await WorkerLease.claim({ store, clock, owner: 'me', random: seededRandom(3) });
    fill(store, () => T0 + 10 * D, [lease.workerId]);
    const gen = leasedGenerator(lease, clock);
    clock.time = T0 + 250;
    const last = gen.nextBigInt();
    clock.time = T0 + 400;
    await lease.release();
    expect(store.rows.get(lease.workerId)!.expiresAt).toBe(T0 + 251);
    expect(() => gen.nextBigInt()).toThrow(/was released/);
    const next = await WorkerLease.claim({ store, clock, owner: 'next' });
    expect(next.workerId).toBe(lease.workerId);
    expect(next.notBefore).toBe(T0 + 251);
    expect(leasedGenerator(next, clock).nextBigInt() > last).toBe(true);
  });

  it('renews on a timer every third of the lease, stopped by release', async () => {
    const store = new MemoryLeaseStore();
    const clock = new FakeClock(T0);
    const lease = await WorkerLease.claim({ store, clock, owner: 'me', durationMs: 30 });
    store.calls.length = 0;
    lease.startRenewing();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(store.calls.filter((c) => c.startsWith('extend')).length).toBeGreaterThan(0);
    await lease.release();
    const count = store.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(store.calls.length).toBe(count);
  });
});
