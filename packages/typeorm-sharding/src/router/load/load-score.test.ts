import { describe, expect, it } from 'vitest';
import { DEFAULT_LOAD_SCORE } from '../router-options.js';
import { loadFactor, loadScores, MIN_LOAD_FACTOR, type LoadSignals } from './load-score.js';
import { readsPerSecond, readStatusSample } from './status-signals.js';

const idle: LoadSignals = { threadsRunning: 1, threadsConnected: 10, maxConnections: 100, dataReadsPerSecond: 0, heartbeatRttMs: 0.5, inFlight: 0, poolSize: 10 };

describe('load score', () => {
  it('weighs the four terms 0.4 / 0.3 / 0.2 / 0.1, each normalised among the peers', () => {
    const busy: LoadSignals = { threadsRunning: 8, threadsConnected: 50, maxConnections: 100, dataReadsPerSecond: 400, heartbeatRttMs: 2, inFlight: 2, poolSize: 10 };
    const [a, b] = loadScores([idle, busy], DEFAULT_LOAD_SCORE.weights);
    // idle: cpu 1/8, connections 10/100, io 0, latency 0.5/2
    expect(a).toBeCloseTo(0.4 * (1 / 8) + 0.3 * 0.1 + 0 + 0.1 * 0.25);
    // busy: cpu 1, connections max(0.5, 0.2), io 1, latency 1
    expect(b).toBeCloseTo(0.4 + 0.3 * 0.5 + 0.2 + 0.1);
  });

  it('uses the client-side in-flight fraction when it is the larger', () => {
    const [s] = loadScores([{ ...idle, inFlight: 8 }], { cpu: 0, connections: 1, io: 0, latency: 0 });
    expect(s).toBeCloseTo(0.8);
  });

  it('keeps small differences on an idle cluster small (floors)', () => {
    const [a, b] = loadScores([idle, { ...idle, threadsRunning: 2, dataReadsPerSecond: 3 }], DEFAULT_LOAD_SCORE.weights);
    expect(b! - a!).toBeLessThan(0.15);
  });

  it('turns a score into a weight factor, never quite 0', () => {
    expect(loadFactor(undefined)).toBe(1);
    expect(loadFactor(0.25)).toBe(0.75);
    expect(loadFactor(1)).toBe(MIN_LOAD_FACTOR);
    expect(loadScores([undefined, idle], DEFAULT_LOAD_SCORE.weights)[0]).toBeUndefined();
  });

  it('reads the status rows and turns the read counter into a rate', () => {
    const rows = [
      { name: 'THREADS_RUNNING', value: '3' },
      { name: 'Threads_connected', value: '12' },
      { name: 'INNODB_DATA_READS', value: '1000' },
      { name: 'MAX_CONNECTIONS', value: 151 },
    ];
    const first = readStatusSample(rows, 0)!;
    expect(first).toEqual({ at: 0, threadsRunning: 3, threadsConnected: 12, maxConnections: 151, dataReads: 1000 });
    const second = readStatusSample(rows.map((r) => (r.name === 'INNODB_DATA_READS' ? { ...r, value: '1500' } : r)), 5000)!;
    expect(readsPerSecond(first, second)).toBe(100);
    expect(readsPerSecond(undefined, second)).toBe(0);
    expect(readStatusSample(rows.slice(1), 0)).toBeUndefined();
  });
});
