import type { MonitorConnections } from '../monitor-connections.js';
import type { NodeState } from '../node-state.js';
import type { LoadScoreOptions } from '../router-options.js';
import type { ServerState } from '../server-state.js';
import { loadFactor, loadScores, type LoadSignals } from './load-score.js';
import { LOAD_SAMPLE_SQL, readsPerSecond, readStatusSample, type StatusSample } from './status-signals.js';

/**
 * Samples the load signals of a server's read nodes and recomputes their load scores and
 * factors (the article refreshes them every 5 s). Replicas and analytics nodes are scored
 * among their own peers. A node that cannot be sampled keeps its previous signals.
 */
export class LoadSampler {
  private readonly previous = new Map<string, StatusSample>();

  constructor(
    private readonly monitor: MonitorConnections,
    private readonly options: LoadScoreOptions,
    private readonly now: () => number,
  ) {}

  async sample(server: ServerState): Promise<void> {
    for (const group of [server.replicas, server.analytics]) {
      for (const node of group) if (node.health.isUp) await this.sampleNode(node);
      score(group, this.options);
    }
  }

  private async sampleNode(node: NodeState): Promise<void> {
    let rows: unknown[];
    try {
      rows = await this.monitor.query(node.config, LOAD_SAMPLE_SQL);
    } catch {
      return;
    }
    const sample = readStatusSample(rows, this.now());
    if (sample === undefined) return;
    const previous = this.previous.get(node.name);
    this.previous.set(node.name, sample);
    node.loadSignals = signalsOf(node, sample, readsPerSecond(previous, sample));
  }
}

function signalsOf(node: NodeState, sample: StatusSample, dataReadsPerSecond: number): LoadSignals {
  return {
    threadsRunning: sample.threadsRunning,
    threadsConnected: sample.threadsConnected,
    maxConnections: sample.maxConnections,
    dataReadsPerSecond,
    heartbeatRttMs: node.heartbeatRttMs ?? 0,
    inFlight: node.inFlight,
    poolSize: node.config.poolSize,
  };
}

/** Scores a group of peers from their latest signals (exported for tests). */
export function score(group: readonly NodeState[], options: LoadScoreOptions): void {
  const scores = loadScores(
    group.map((n) => (n.health.isUp ? n.loadSignals : undefined)),
    options.weights,
  );
  group.forEach((node, i) => {
    node.loadScore = scores[i];
    node.loadFactor = loadFactor(scores[i]);
  });
}
