import { randomUUID } from 'node:crypto';
import { isFencedError } from './fence.js';
import type { TopologyDocument } from './topology-document.js';
import { TopologyChangedError } from './topology-errors.js';
import type { StoredTopology, TopologyStore } from './topology-store.js';

/** What `ds.topology` shows: the version routed by, and ways to follow it. */
export interface TopologyView {
  /** The version the data source routes by now. */
  readonly version: number;
  /** That version's document (frozen). */
  readonly document: TopologyDocument;
  /** Reads the store now and adopts a newer version if there is one. */
  refresh(): Promise<void>;
  /** Calls `listener` after each adoption of a new version; returns the unsubscribe function. */
  onChange(listener: (document: TopologyDocument) => void): () => void;
}

/** Timings of the refresh loop and of the fence retries (validated by the data source). */
export interface TopologyTimings {
  readonly refreshMs: number;
  readonly fenceRetryMs: number;
}

/** First and largest pause between two attempts of a fenced autocommit write. */
const FIRST_BACKOFF_MS = 5;
const MAX_BACKOFF_MS = 100;

/**
 * Follows the topology store for one data source: polls it every `refreshMs` (an unref'd timer,
 * and at once after a fence refusal), hands each newer version to `adopt` (which swaps the
 * routing state), heartbeats the adopted version into `tsh_topology_clients`, and retries
 * autocommit writes the fence refused.
 */
export class TopologyRuntime implements TopologyView {
  /** This process's row in `tsh_topology_clients`. */
  readonly clientId = randomUUID();
  private stored: StoredTopology;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private readonly listeners = new Set<(document: TopologyDocument) => void>();
  /** Open transactions per topology version they began under (they keep routing by it). */
  private readonly held = new Map<number, number>();

  constructor(
    private readonly store: TopologyStore,
    private readonly timings: TopologyTimings,
    initial: StoredTopology,
    /** Builds and swaps in the routing state of a newer document; throws to refuse it. */
    private readonly adopt: (document: TopologyDocument) => Promise<void>,
    private readonly warn: (message: string) => void,
  ) {
    this.stored = initial;
  }

  get version(): number {
    return this.stored.version;
  }

  get document(): TopologyDocument {
    return this.stored.document;
  }

  /** Heartbeats once and starts polling. */
  async start(): Promise<void> {
    await this.store.heartbeat(this.clientId, this.versionInUse);
    this.timer = setInterval(() => {
      this.refresh().catch((error: unknown) => this.warn(`typeorm-sharding: reading the topology store failed: ${(error as Error)?.message ?? String(error)}`));
    }, Math.min(this.timings.refreshMs, 2_147_483_647));
    this.timer.unref();
  }

  /** Stops polling and removes this process's client row. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.queued?.catch(() => undefined);
    await this.inFlight?.catch(() => undefined);
    await this.store.removeClient(this.clientId);
  }

  /** A transaction began (`+1`) or ended (`-1`) under `version`. */
  hold(version: number, delta: 1 | -1): void {
    const count = (this.held.get(version) ?? 0) + delta;
    if (count > 0) this.held.set(version, count);
    else this.held.delete(version);
  }

  /**
   * The version this process reports in `tsh_topology_clients`: the oldest one still in use — a
   * transaction that began under an older version keeps routing by it until it ends, so a mover
   * waiting for every client to adopt a version also waits for those transactions.
   */
  get versionInUse(): number {
    return Math.min(this.stored.version, ...this.held.keys());
  }

  onChange(listener: (document: TopologyDocument) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /**
   * Reads the store, starting after the call (one read at a time): with a read in flight — which
   * may have begun before what the caller wants seen — one more read follows it, shared by every
   * caller waiting meanwhile.
   */
  refresh(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.inFlight) return this.startRead();
    this.queued = this.inFlight
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.startRead();
      });
    return this.queued;
  }

  private startRead(): Promise<void> {
    const read = this.readStore().finally(() => {
      if (this.inFlight === read) this.inFlight = undefined;
    });
    this.inFlight = read;
    return read;
  }

  private async readStore(): Promise<void> {
    const latest = await this.store.current();
    if (latest !== undefined && latest.version > this.stored.version) {
      await this.adopt(latest.document);
      this.stored = latest;
      for (const listener of this.listeners) {
        try {
          listener(latest.document);
        } catch (error) {
          this.warn(`typeorm-sharding: a topology onChange listener threw: ${(error as Error)?.message ?? String(error)}`);
        }
      }
    }
    await this.store.heartbeat(this.clientId, this.versionInUse);
  }

  /**
   * Runs `attempt` (one logical statement). When the fence refuses it: inside a transaction the
   * statement fails with `TopologyChangedError` (the caller retries the transaction) and a
   * refresh starts; in autocommit (nothing of it was written: a statement over several shards
   * runs atomically) it refreshes and tries again, with a short backoff while the version has not
   * moved, until it passes or `fenceRetryMs` has elapsed (then `TopologyChangedError`).
   */
  async guard<T>(attempt: () => Promise<T>, inTransaction: () => boolean): Promise<T> {
    const deadline = Date.now() + this.timings.fenceRetryMs;
    let backoff = FIRST_BACKOFF_MS;
    for (;;) {
      const before = this.version;
      let fenced: ReturnType<typeof isFencedError>;
      let refusal: unknown;
      try {
        return await attempt();
      } catch (error) {
        fenced = isFencedError(error);
        if (fenced === undefined) throw error;
        refusal = error;
      }
      if (inTransaction()) {
        this.refresh().catch(() => undefined);
        throw new TopologyChangedError(
          `A write of this transaction was refused: bucket ${fenced.bucket} is moving (topology version ${fenced.version}); the transaction was not committed — retry it.`,
          fenced.version,
          fenced.bucket,
          { cause: refusal },
        );
      }
      await this.refresh().catch((error: unknown) => this.warn(`typeorm-sharding: reading the topology store failed: ${(error as Error)?.message ?? String(error)}`));
      if (this.version > before) continue;
      if (Date.now() + backoff > deadline) {
        throw new TopologyChangedError(
          `A write was refused: bucket ${fenced.bucket} is moving (topology version ${fenced.version}) and this process still routes by version ${this.version} after ${this.timings.fenceRetryMs} ms; nothing was written — retry it.`,
          fenced.version,
          fenced.bucket,
          { cause: refusal },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, backoff));
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }
}
