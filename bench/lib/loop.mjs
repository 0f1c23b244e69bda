// Closed-loop load generator and side-by-side alternation of variants.
import { gc, errorMessage, summarize, nodeCpuSeconds, serverCpuSeconds } from './util.mjs';

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
  let cpu0 = phase === 'measure' ? [nodeCpuSeconds(), serverCpuSeconds()] : undefined;
  let cpu1;
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
          cpu0 = [nodeCpuSeconds(), serverCpuSeconds()];
        }
      } else if (phase === 'measure') {
        latencies.push(end - start);
        const elapsed = end - windowStart;
        if ((elapsed >= durationMs && latencies.length >= minOps) || elapsed >= maxMs) {
          phase = 'done';
          windowEnd = end;
          cpu1 = [nodeCpuSeconds(), serverCpuSeconds()];
        }
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  const nodeCpu = cpu0 && cpu1 ? cpu1[0] - cpu0[0] : NaN;
  const serverCpu = cpu0 && cpu1 ? cpu1[1] - cpu0[1] : NaN;
  return { ops: latencies.length, seconds: Math.max(0, windowEnd - windowStart) / 1000, latencies, nodeCpu, serverCpu, error };
}

/**
 * Measures `variants` ({ key, op }) side by side: `reps` repetitions, each running every
 * variant once, in an order rotated per repetition so that no variant always goes first
 * and machine drift cancels out. Returns { [key]: { qps, p50, p99, mean, ops, error } }.
 */
export async function alternate(variants, { reps, clients, warmupMs, durationMs, minOps, onRep }) {
  const acc = new Map(variants.map((v) => [v.key, { ops: 0, seconds: 0, nodeCpu: 0, serverCpu: 0, latencies: [], repQps: [], error: undefined }]));
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
      a.nodeCpu += r.nodeCpu;
      a.serverCpu += r.serverCpu;
      a.repQps[rep] = r.ops / r.seconds;
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
    // CPU per call (µs): Node's own, and the database server's (all its clients: other load on
    // the server counts too). More stable than wall time on a shared machine.
    out[key] = { qps: a.ops / a.seconds, p50: s.p50, p99: s.p99, mean: s.mean, ops: a.ops, nodeCpuUs: (a.nodeCpu / a.ops) * 1e6, serverCpuUs: (a.serverCpu / a.ops) * 1e6, repQps: a.repQps };
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

/**
 * Ratio num.qps / den.qps as the median over repetitions of the per-repetition ratios
 * (paired: both ran back to back in the same repetition, so drift of a shared machine
 * cancels), with the spread. Falls back to the pooled ratio without per-repetition data.
 */
export function pairedRatio(num, den) {
  if (!num || !den || num.error || den.error) return { value: NaN };
  const ratios = [];
  const reps = Math.min(num.repQps?.length ?? 0, den.repQps?.length ?? 0);
  for (let i = 0; i < reps; i++) {
    const r = num.repQps[i] / den.repQps[i];
    if (Number.isFinite(r)) ratios.push(r);
  }
  if (ratios.length === 0) return { value: num.qps / den.qps };
  ratios.sort((x, y) => x - y);
  const mid = ratios.length >> 1;
  const value = ratios.length % 2 ? ratios[mid] : (ratios[mid - 1] + ratios[mid]) / 2;
  return { value, min: ratios[0], max: ratios[ratios.length - 1], n: ratios.length };
}
