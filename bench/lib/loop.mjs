// Closed-loop load generator and side-by-side alternation of variants.
import { gc, errorMessage, summarize } from './util.mjs';

/**
 * Runs `clients` loops that each call `op(i)` back to back (a closed loop, like the
 * article's client threads). Warm-up lasts `warmupMs` and at least until every client has
 * finished one call (so slow cases reach a steady state); then completions are counted for
 * `durationMs` (extended until `minOps` completed, capped at `maxMs`). With `warmupMs` 0 the
 * window starts at once (quick mode: a smoke test, not a measurement). Calls still in
 * flight at the end are awaited but not counted.
 * Returns { ops, seconds, latencies (ms, completed in the window), error }.
 */
export async function closedLoop(op, { clients, warmupMs, durationMs, minOps = 10, maxMs = durationMs * 4 }) {
  const t0 = performance.now();
  // warmupMs 0 (quick mode): measure from the first call, no steady state.
  let phase = warmupMs > 0 ? 'warm' : 'measure';
  let warmDone = 0;
  let windowStart = t0;
  let windowEnd = 0;
  let next = 0;
  let error;
  const latencies = [];
  const client = async () => {
    while (phase !== 'done') {
      const i = next++;
      const start = performance.now();
      try {
        await op(i);
      } catch (e) {
        error ??= e;
        if (phase !== 'done') windowEnd = performance.now();
        phase = 'done';
        return;
      }
      const end = performance.now();
      if (phase === 'warm') {
        warmDone++;
        if (end - t0 >= warmupMs && warmDone >= clients) {
          phase = 'measure';
          windowStart = end;
        }
      } else if (phase === 'measure') {
        latencies.push(end - start);
        const elapsed = end - windowStart;
        if ((elapsed >= durationMs && latencies.length >= minOps) || elapsed >= maxMs) {
          phase = 'done';
          windowEnd = end;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  return { ops: latencies.length, seconds: Math.max(0, windowEnd - windowStart) / 1000, latencies, error };
}

/**
 * Measures `variants` ({ key, op }) side by side: `reps` repetitions, each running every
 * variant once, in an order rotated per repetition so that no variant always goes first
 * and machine drift cancels out. Returns { [key]: { qps, p50, p99, mean, ops, error } }.
 */
export async function alternate(variants, { reps, clients, warmupMs, durationMs, minOps, onRep }) {
  const acc = new Map(variants.map((v) => [v.key, { ops: 0, seconds: 0, latencies: [], error: undefined }]));
  for (let rep = 0; rep < reps; rep++) {
    const order = variants.map((_, k) => variants[(k + rep) % variants.length]);
    for (const v of order) {
      const a = acc.get(v.key);
      if (a.error) continue;
      gc();
      const r = await closedLoop(v.op, { clients, warmupMs, durationMs, minOps });
      if (r.error) {
        a.error = errorMessage(r.error);
        continue;
      }
      a.ops += r.ops;
      a.seconds += r.seconds;
      for (const l of r.latencies) a.latencies.push(l);
      onRep?.(v.key, rep, r);
    }
  }
  const out = {};
  for (const [key, a] of acc) {
    if (a.error) {
      out[key] = { error: a.error };
      continue;
    }
    const s = summarize(a.latencies);
    out[key] = { qps: a.ops / a.seconds, p50: s.p50, p99: s.p99, mean: s.mean, ops: a.ops };
  }
  return out;
}

/** Calls `op` once and checks the row count, so a broken variant is reported, not timed. */
export async function verify(key, op, expectedRows) {
  try {
    const rows = await op(0);
    const n = Array.isArray(rows) ? rows.length : rows == null ? 0 : 1;
    if (expectedRows !== undefined && n !== expectedRows) return `wrong result: ${n} rows, expected ${expectedRows}`;
    return undefined;
  } catch (e) {
    return errorMessage(e);
  }
}
