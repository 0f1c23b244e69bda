import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock } from './clock.js';
import { WorkerLeaseError } from './key-errors.js';
import type { LeaseStore } from './lease-store.js';
import { MAX_WORKER_ID } from './snowflake-layout.js';

/** Default length of a lease; it is renewed every third of it. */
export const DEFAULT_LEASE_MS = 60_000;

/** Rounds of "read the table, try to take one worker id" before giving up under contention. */
const CLAIM_ATTEMPTS = 8;

/** Options of {@link WorkerLease.claim}. */
export interface WorkerLeaseOptions {
  readonly store: LeaseStore;
  /** Length of a lease (ms). @default 60000 */
  readonly durationMs?: number;
  /** @default host:pid:random */
  readonly owner?: string;
  /** Only `now()` is used. */
  readonly clock: Clock;
  /** Picks among free worker ids, so that processes starting together rarely race for one. @default Math.random */
  readonly random?: () => number;
}

/**
 * A worker id leased from a table on the default shard: the way to give every process a
 * worker id of its own without configuring one per process.
 *
 * Why a lease rather than an id derived from the host and pid: 10 bits leave 1024 values, and by
 * the birthday bound ten processes hashed into them collide with a probability of about 4 %, which
 * would mean repeated ids. A lease is unique by construction: a process claims a worker id with one
 * conditional INSERT (a free id) or UPDATE (an expired lease), renews it every third of its length,
 * and issues ids only while it holds a valid lease.
 *
 * Uniqueness does not depend on the processes' clocks agreeing: the holder issues ids only with
 * times before the `expiresAt` it wrote (by its own clock), and a later holder starts its ids at
 * that `expiresAt` (`notBefore`), so the two holders' ids fall in disjoint time ranges even if
 * their clocks differ. What it does assume: a holder's clock does not step back further than the
 * generator's tolerance (the generator checks that), and nobody edits the table by hand.
 */
export class WorkerLease {
  private newest = -Infinity;
  private lost: string | undefined;
  private released = false;
  private lastError: unknown;
  private timer: ReturnType<typeof setInterval> | undefined;
  private renewing: Promise<void> | undefined;

  private constructor(
    private readonly options: Required<Pick<WorkerLeaseOptions, 'store' | 'durationMs' | 'owner' | 'clock'>>,
    /** The leased worker id. */
    readonly workerId: number,
    /** The earliest time this holder's ids may carry: where the previous holder's lease ended. */
    readonly notBefore: number,
    private readonly claimedAt: number,
    /** Ids must carry earlier times than this (the `expiresAt` last written successfully). */
    private validUntil: number,
  ) {}

  /**
   * Creates the lease table if needed and claims a worker id: a random free one, else the one
   * whose lease expired longest ago. Throws `WorkerLeaseError` when all 1024 are held by live
   * leases or when other processes won every attempt.
   */
  static async claim(options: WorkerLeaseOptions): Promise<WorkerLease> {
    const durationMs = options.durationMs ?? DEFAULT_LEASE_MS;
    const owner = (options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`).slice(0, 120);
    const random = options.random ?? Math.random;
    const { store, clock } = options;
    await store.prepare();
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const rows = await store.list();
      const now = clock.now();
      const expiresAt = now + durationMs;
      const held = new Set(rows.map((r) => r.workerId));
      const free: number[] = [];
      for (let id = 0; id <= MAX_WORKER_ID; id++) if (!held.has(id)) free.push(id);
      const settings = { store, durationMs, owner, clock };
      if (free.length > 0) {
        const workerId = free[Math.floor(random() * free.length) % free.length]!;
        if (await store.insert({ workerId, owner, expiresAt })) return new WorkerLease(settings, workerId, -Infinity, now, expiresAt);
        continue;
      }
      const expired = rows.filter((r) => r.expiresAt <= now).sort((a, b) => a.expiresAt - b.expiresAt)[0];
      if (!expired) {
        const soonest = Math.min(...rows.map((r) => r.expiresAt));
        throw new WorkerLeaseError(
          `All ${MAX_WORKER_ID + 1} Snowflake worker ids are leased by live processes (the first lease ends at ${new Date(soonest).toISOString()}); ` +
            'stop some, or give processes fixed worker ids instead.',
          { stage: 'init' },
        );
      }
      if (await store.takeOver(expired, owner, expiresAt)) return new WorkerLease(settings, expired.workerId, expired.expiresAt, now, expiresAt);
    }
    throw new WorkerLeaseError(`Could not lease a Snowflake worker id: other processes took each candidate first, ${CLAIM_ATTEMPTS} times; try again.`, { stage: 'init' });
  }

  /**
   * The generator's guard: throws `WorkerLeaseError` unless an id with this time may be issued
   * (the lease is held, not released, and `time` is before its end). Records the newest time.
   */
  check(time: number): void {
    if (this.lost !== undefined) throw new WorkerLeaseError(this.lost);
    if (this.released) throw new WorkerLeaseError(`The lease on Snowflake worker id ${this.workerId} was released (the data source was destroyed); no more ids are issued.`);
    if (time >= this.validUntil) {
      const cause = this.lastError instanceof Error ? `: ${this.lastError.message}` : this.lastError === undefined ? '' : `: ${String(this.lastError)}`;
      throw new WorkerLeaseError(
        `The lease on Snowflake worker id ${this.workerId} expired at ${new Date(this.validUntil).toISOString()} because it could not be renewed${cause}; ` +
          'no id is issued until a renewal succeeds, since another process may take the worker id over.',
        { cause: this.lastError },
      );
    }
    if (time > this.newest) this.newest = time;
  }

  /**
   * Extends the lease (the timer calls this every third of its length). A failed renewal keeps
   * the current end and is retried; a row held by someone else marks the lease lost for good.
   */
  renew(): Promise<void> {
    this.renewing ??= this.extend().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  /** Starts renewing on a timer that does not keep the process alive. */
  startRenewing(): void {
    this.timer ??= setInterval(() => void this.renew(), Math.max(1, Math.floor(this.options.durationMs / 3)));
    this.timer.unref?.();
  }

  /**
   * Stops renewing and ends the lease right after the newest id issued, so that the next holder
   * may start there at once; ids are refused from now on.
   */
  async release(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.renewing;
    if (this.released || this.lost !== undefined) return;
    this.released = true;
    const end = Math.min(this.validUntil, Math.max(this.claimedAt, this.notBefore, this.newest + 1));
    const { store, owner } = this.options;
    if (!store.canWriteNow()) return; // the row keeps its later end: the worker id is only blocked longer
    await store.extend(this.workerId, owner, end).catch(() => undefined);
  }

  private async extend(): Promise<void> {
    const { store, owner, clock, durationMs } = this.options;
    if (this.lost !== undefined || this.released || !store.canWriteNow()) return;
    // Strictly later than the current end, so that the row always changes (MySQL counts changed rows).
    const expiresAt = Math.max(clock.now() + durationMs, this.validUntil + 1);
    try {
      if (await store.extend(this.workerId, owner, expiresAt)) {
        if (!this.released) this.validUntil = expiresAt;
        this.lastError = undefined;
      } else {
        this.lost = `Snowflake worker id ${this.workerId} was taken over by another process after this process's lease expired (it could not be renewed in time); this data source issues no more ids. Destroy and initialize it again to lease a new worker id.`;
      }
    } catch (error) {
      this.lastError = error;
    }
  }
}

