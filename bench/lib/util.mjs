// Small helpers shared by the benchmark cases: seeded randomness, statistics, a statement
// window for the hand-written baselines, and a progress bar on stderr.
import { readdirSync, readFileSync } from 'node:fs';

/** Deterministic PRNG (mulberry32), so every run and every variant draws the same ids. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` lists of `size` distinct ids drawn uniformly from 1..maxId. */
export function idLists(size, count, maxId, seed) {
  const rnd = prng(seed);
  const lists = [];
  for (let l = 0; l < count; l++) {
    const seen = new Set();
    while (seen.size < Math.min(size, maxId)) seen.add(1 + Math.floor(rnd() * maxId));
    lists.push([...seen]);
  }
  return lists;
}

/** Percentile (nearest rank) of an ascending-sorted array. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** p50 / p99 / mean / count of a list of samples. */
export function summarize(samples) {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    mean: sorted.length ? sum / sorted.length : NaN,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
  };
}

/** Runs async tasks with at most `limit` in flight; results in task order. */
export async function runWindow(tasks, limit) {
  if (tasks.length === 1) return [await tasks[0]()];
  const out = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const k = next++;
      out[k] = await tasks[k]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return out;
}

/** Groups ids by shard index (via `shardIndexOf`) and splits each group into batches of `batch`. */
export function groupByShard(ids, shardIndexOf, batch) {
  const groups = new Map();
  for (const id of ids) {
    const s = shardIndexOf(id);
    let g = groups.get(s);
    if (!g) groups.set(s, (g = []));
    g.push(id);
  }
  const units = [];
  for (const [shard, values] of groups) {
    for (let i = 0; i < values.length; i += batch) units.push({ shard, values: values.slice(i, i + batch) });
  }
  return units;
}

/** A one-line progress bar on stderr (redrawn in place on a TTY, every 10 % otherwise). */
export function progressBar(label, total) {
  const tty = process.stderr.isTTY;
  const started = performance.now();
  let done = 0;
  let lastDecile = -1;
  const draw = (final = false) => {
    const frac = total ? Math.min(1, done / total) : 1;
    const width = 30;
    const filled = Math.round(frac * width);
    const secs = (performance.now() - started) / 1000;
    const line = `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(frac * 100).toFixed(0).padStart(3)}% ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} ${secs.toFixed(1)}s`;
    if (tty) process.stderr.write(`\r${line}${final ? '\n' : ''}`);
    else {
      const decile = Math.floor(frac * 10);
      if (decile !== lastDecile || final) {
        lastDecile = decile;
        process.stderr.write(`${line}\n`);
      }
    }
  };
  return {
    tick(n = 1) {
      done += n;
      draw();
    },
    finish() {
      done = total;
      draw(true);
    },
  };
}

/** Log a status line on stderr. */
const T0 = performance.now();
export function log(...parts) {
  process.stderr.write(`${((performance.now() - T0) / 1000).toFixed(1).padStart(6)}s ${parts.join(' ')}\n`);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function gc() {
  if (typeof globalThis.gc === 'function') globalThis.gc();
}

/** Short message of an error, for the report ("failed: <message>"). */
export function errorMessage(error) {
  const m = error?.message ?? String(error);
  return m.split('\n')[0].slice(0, 300);
}

/**
 * PID of the local mariadbd / mysqld, if this machine runs it and /proc is readable: the one
 * started with `--port=<BENCH_MYSQL_PORT>` when several run, else the first found.
 */
let serverPid;
export function findServerPid() {
  if (serverPid !== undefined) return serverPid;
  serverPid = null;
  // Several servers on one machine: BENCH_MYSQL_PID names the benchmark's.
  if (process.env.BENCH_MYSQL_PID) return (serverPid = Number(process.env.BENCH_MYSQL_PID));
  const port = process.env.BENCH_MYSQL_PORT;
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
        if (comm !== 'mariadbd' && comm !== 'mysqld') continue;
        serverPid ??= Number(entry);
        if (port && readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(`--port=${port}`)) {
          serverPid = Number(entry);
          break;
        }
      } catch {
        // process gone
      }
    }
  } catch {
    // no /proc
  }
  return serverPid;
}

/** CPU seconds (user + system) the database server has used so far, or NaN. */
export function serverCpuSeconds() {
  const pid = findServerPid();
  if (!pid) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in USER_HZ (100)
  } catch {
    return NaN;
  }
}

/** CPU seconds (user + system) of this Node process so far. */
export function nodeCpuSeconds() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** Bytes the database server has written to storage so far (/proc/<pid>/io), or NaN. */
function serverWriteBytes() {
  const pid = findServerPid();
  if (!pid) return NaN;
  try {
    const m = /^write_bytes: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

/**
 * Waits until the database server is idle — two 1-second windows in a row with under 5 % of a
 * core and under 1 MiB written — or `maxMs` has passed, and says what it saw: the background
 * work earlier sections leave (purging, dropping databases, flushing) otherwise lands on the
 * next section's measurement. Returns the seconds waited; at once when the server is not local.
 */
export async function settleServer(maxMs) {
  if (!findServerPid()) return 0;
  const started = Date.now();
  let quiet = 0;
  while (quiet < 2 && Date.now() - started < maxMs) {
    const [cpu, written] = [serverCpuSeconds(), serverWriteBytes()];
    await sleep(1000);
    const busy = serverCpuSeconds() - cpu > 0.05 || serverWriteBytes() - written > 2 ** 20;
    quiet = busy ? 0 : quiet + 1;
  }
  return (Date.now() - started) / 1000;
}
