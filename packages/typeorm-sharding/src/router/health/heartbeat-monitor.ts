import type { NodeConfig } from '../topology.js';
import type { Clock } from './clock.js';

/**
 * One heartbeat of a node: resolves with the round-trip time in milliseconds, rejects (or
 * never settles) when the node does not answer. The monitor applies the timeout.
 */
export type HeartbeatProbe = (node: NodeConfig) => Promise<number>;

/** The outcome of one heartbeat. */
export type HeartbeatResult = { readonly ok: true; readonly rttMs: number } | { readonly ok: false; readonly error: unknown };

/**
 * Runs a heartbeat per node every `intervalMs` (the article: TCP + SQL, once a second) and
 * counts a probe that fails or takes longer than `timeoutMs` as a miss. Beats of one node
 * never overlap: the next one is scheduled one interval after the previous one started, or
 * when it settles if that is later.
 */
export class HeartbeatMonitor {
  private readonly timers = new Map<string, unknown>();
  private running = false;
  private stopped = false;

  constructor(
    private readonly nodes: NodeConfig[],
    private readonly probe: HeartbeatProbe,
    private readonly clock: Clock,
    private readonly options: { readonly intervalMs: number; readonly timeoutMs: number },
    private readonly onResult: (node: NodeConfig, result: HeartbeatResult, at: number) => void,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    for (const node of this.nodes) this.schedule(node, this.options.intervalMs);
  }

  /** Monitors one more node (added at run time). */
  add(node: NodeConfig): void {
    this.nodes.push(node);
    if (this.running) this.schedule(node, this.options.intervalMs);
  }

  stop(): void {
    this.running = false;
    this.stopped = true;
    for (const handle of this.timers.values()) this.clock.clearTimeout(handle);
    this.timers.clear();
  }

  /** Runs one heartbeat of `node` now (also used by tests). */
  async beat(node: NodeConfig): Promise<HeartbeatResult> {
    let timer: unknown;
    const timeout = new Promise<never>((_, reject) => {
      timer = this.clock.setTimeout(() => reject(new Error(`heartbeat timed out after ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
    });
    let result: HeartbeatResult;
    try {
      const rttMs = await Promise.race([Promise.resolve().then(() => this.probe(node)), timeout]);
      result = { ok: true, rttMs };
    } catch (error) {
      result = { ok: false, error };
    } finally {
      this.clock.clearTimeout(timer);
    }
    if (!this.stopped) this.onResult(node, result, this.clock.now());
    return result;
  }

  private schedule(node: NodeConfig, delay: number): void {
    if (!this.running) return;
    this.timers.set(
      node.name,
      this.clock.setTimeout(() => {
        const started = this.clock.now();
        void this.beat(node).then(() => {
          const elapsed = this.clock.now() - started;
          this.schedule(node, Math.max(0, this.options.intervalMs - elapsed));
        });
      }, delay),
    );
  }
}
