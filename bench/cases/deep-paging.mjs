// Deep paging: ORDER BY createdAt DESC, id DESC with OFFSET 0 / 1,000 / 10,000 and a page
// of 20 over 16 shards, against the same query on the unsharded table. Time per query and
// the peak of (heapUsed + external) above a gc'd baseline, sampled every millisecond and
// after every physical statement.
import { gc, errorMessage, log, summarize, sleep } from '../lib/util.mjs';
import { Page } from '../lib/setup.mjs';

export const PAGE = 20;
export const OFFSETS = [0, 1000, 10000];

function memNow() {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

/** Runs `fn` once, returning { ms, peakBytes, rows }. */
async function measured(fn, probe) {
  gc();
  await sleep(5);
  gc();
  const base = memNow();
  let peak = base;
  probe.sample = () => {
    const v = memNow();
    if (v > peak) peak = v;
  };
  const timer = setInterval(probe.sample, 1);
  const t = performance.now();
  let rows;
  try {
    rows = await fn();
    probe.sample();
  } finally {
    clearInterval(timer);
    probe.sample = () => {};
  }
  const ms = performance.now() - t;
  return { ms, peakBytes: Math.max(0, peak - base), rows: rows.length, first: rows[0]?.id };
}

export async function runDeepPaging(ctx) {
  const { ds16, plain, cfg, probe, fetched } = ctx;
  const variants = {
    sharded: (offset) => ds16.getRepository(Page).find({ order: { createdAt: 'DESC', id: 'DESC' }, skip: offset, take: PAGE }),
    unsharded: (offset) => plain.getRepository(Page).find({ order: { createdAt: 'DESC', id: 'DESC' }, skip: offset, take: PAGE }),
  };
  const out = { shards: ds16.shardNames.length, page: PAGE, totalRows: ctx.totalPages, offsets: [] };
  for (const offset of OFFSETS) {
    const cell = { offset };
    const acc = { sharded: [], unsharded: [] };
    const errors = {};
    let firstIds = {};
    for (let rep = 0; rep < cfg.pagingReps; rep++) {
      const order = rep % 2 === 0 ? ['sharded', 'unsharded'] : ['unsharded', 'sharded'];
      for (const key of order) {
        if (errors[key]) continue;
        try {
          fetched.rows = 0;
          const r = await measured(() => variants[key](offset), probe);
          r.fetchedRows = key === 'sharded' ? fetched.rows : undefined;
          acc[key].push(r);
          firstIds[key] = r.first;
        } catch (e) {
          errors[key] = errorMessage(e);
        }
      }
    }
    for (const key of ['sharded', 'unsharded']) {
      if (errors[key]) {
        cell[key] = { error: /not supported|unsupported/i.test(errors[key]) ? `not supported yet (${errors[key]})` : errors[key] };
        continue;
      }
      const t = summarize(acc[key].map((r) => r.ms));
      const m = summarize(acc[key].map((r) => r.peakBytes));
      cell[key] = { ms: t.p50, msMax: t.max, peakBytes: m.p50, peakBytesMax: m.max, rows: acc[key][0].rows, fetchedRows: acc[key][0].fetchedRows };
    }
    if (!cell.sharded.error && !cell.unsharded.error && String(firstIds.sharded) !== String(firstIds.unsharded)) {
      cell.sharded = { ...cell.sharded, mismatch: `first row id ${firstIds.sharded} ≠ unsharded ${firstIds.unsharded}` };
    }
    out.offsets.push(cell);
    log(`[deep-paging] OFFSET ${offset}: ` + ['sharded', 'unsharded'].map((k) => `${k}=${cell[k].error ? 'failed' : cell[k].ms.toFixed(1) + 'ms peak ' + (cell[k].peakBytes / 1048576).toFixed(1) + 'MiB'}`).join(' '));
  }
  return out;
}
