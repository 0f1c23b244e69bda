import type { DecisionLog } from './decision-log.js';

/** Records removed per statement at most. */
const BATCH = 200;
/** How long removals wait to be batched (off the caller's path). */
const DELAY_MS = 20;

/**
 * Removes the log records of finished transactions in batches, after the commit has returned:
 * a record only matters while some branch of its transaction is still prepared, and one DELETE
 * for many finished transactions costs the coordinator server one round trip instead of one
 * per commit. A removal that fails is harmless: the resolver removes what is left.
 */
export class RecordJanitor {
  private pending = new Map<DecisionLog, string[]>();
  private timer: NodeJS.Timeout | undefined;
  private running = new Set<Promise<void>>();

  forget(log: DecisionLog, xid: string): void {
    const list = this.pending.get(log) ?? [];
    list.push(xid);
    this.pending.set(log, list);
    if (list.length >= BATCH) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), DELAY_MS).unref();
  }

  /** Sends the pending removals now, and waits for those under way. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batches = [...this.pending];
    this.pending = new Map();
    for (const [log, xids] of batches) {
      for (let i = 0; i < xids.length; i += BATCH) {
        const work = log.forget(xids.slice(i, i + BATCH)).catch(() => undefined);
        this.running.add(work);
        void work.finally(() => this.running.delete(work));
      }
    }
    await Promise.all([...this.running]);
  }
}
