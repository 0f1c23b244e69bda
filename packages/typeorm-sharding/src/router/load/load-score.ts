import type { LoadScoreOptions } from '../router-options.js';

/**
 * The signals of one node at a refresh. A client sees no server CPU, disk or network
 * directly; each term of the article's score is stood for by what a client can measure:
 *
 * | article term | signal | normalised to [0, 1] |
 * |---|---|---|
 * | CPU (0.4) | `Threads_running` (statements executing on the server, from any client) | ÷ the largest among the peers, at least 4 |
 * | connections (0.3) | `Threads_connected / max_connections` and this router's in-flight statements / pool size | the larger of the two fractions |
 * | disk I/O (0.2) | `Innodb_data_reads` per second (physical reads: a cold buffer pool or a scan) | ÷ the largest among the peers, at least 50/s |
 * | network latency (0.1) | moving average of the heartbeat's `SELECT 1` round trip | ÷ the largest among the peers, at least 1 ms |
 *
 * CPU, I/O and latency are compared among the peers (the replicas of one server), because
 * only the difference between them decides where reads go, and servers differ in size; the
 * floors keep noise on an idle cluster (1 thread against 2) from looking like a 2× load.
 * The heartbeat round trip stands for latency rather than the statements' own times, which
 * depend on which statements the balancer sent where.
 */
export interface LoadSignals {
  readonly threadsRunning: number;
  readonly threadsConnected: number;
  readonly maxConnections: number;
  readonly dataReadsPerSecond: number;
  readonly heartbeatRttMs: number;
  readonly inFlight: number;
  readonly poolSize: number;
}

const CPU_FLOOR = 4;
const IO_FLOOR = 50;
const LATENCY_FLOOR_MS = 1;
/** A loaded node keeps a trickle of reads, so that its latency stays measured and it is not starved to 0. */
export const MIN_LOAD_FACTOR = 0.05;

/** Scores in [0, 1] (higher = busier) for peers; undefined for a node without signals yet. */
export function loadScores(peers: readonly (LoadSignals | undefined)[], weights: LoadScoreOptions['weights']): (number | undefined)[] {
  let maxRunning = CPU_FLOOR;
  let maxReads = IO_FLOOR;
  let maxRtt = LATENCY_FLOOR_MS;
  for (const s of peers) {
    if (s === undefined) continue;
    maxRunning = Math.max(maxRunning, s.threadsRunning);
    maxReads = Math.max(maxReads, s.dataReadsPerSecond);
    maxRtt = Math.max(maxRtt, s.heartbeatRttMs);
  }
  return peers.map((s) => {
    if (s === undefined) return undefined;
    const cpu = s.threadsRunning / maxRunning;
    const connections = Math.min(1, Math.max(s.maxConnections > 0 ? s.threadsConnected / s.maxConnections : 0, s.poolSize > 0 ? s.inFlight / s.poolSize : 0));
    const io = s.dataReadsPerSecond / maxReads;
    const latency = s.heartbeatRttMs / maxRtt;
    return weights.cpu * cpu + weights.connections * connections + weights.io * io + weights.latency * latency;
  });
}

/** The weight multiplier of a score: 1 − score, at least `MIN_LOAD_FACTOR`; 1 when unknown. */
export function loadFactor(score: number | undefined): number {
  return score === undefined ? 1 : Math.max(MIN_LOAD_FACTOR, 1 - score);
}
