// A small hand-written SVG line-chart generator (no chart dependency): categorical x axis,
// linear or log-10 y axis, one polyline per series, legend on the right.

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

/** Short number label: 0.05, 1.5, 12, 1.2k, 3M. */
export function fmtTick(v) {
  const a = Math.abs(v);
  if (a >= 1e6) return `${+(v / 1e6).toPrecision(3)}M`;
  if (a >= 1e3) return `${+(v / 1e3).toPrecision(3)}k`;
  if (a === 0) return '0';
  return `${+v.toPrecision(2)}`;
}

function niceStep(range, target) {
  const raw = range / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/** Y domain covering every finite positive value of `seriesList` (for sharing between charts). */
export function domainOf(seriesList) {
  const vals = seriesList.flatMap((s) => s.values).filter((v) => Number.isFinite(v) && v > 0);
  if (vals.length === 0) return [1, 10];
  return [Math.min(...vals), Math.max(...vals)];
}

/**
 * lineChart({ title, xLabel, yLabel, xs, series: [{ name, values, color?, dash? }], log?, domain? })
 * Missing values (null / NaN) break the line.
 */
export function lineChart({ title, xLabel, yLabel, xs, series, log = false, domain }) {
  const W = 680;
  const H = 400;
  const m = { l: 70, r: 190, t: 44, b: 56 };
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b;
  let [lo, hi] = domain ?? domainOf(series);
  let ticks;
  let y;
  if (log) {
    lo = 10 ** Math.floor(Math.log10(lo));
    hi = 10 ** Math.ceil(Math.log10(hi));
    if (hi <= lo) hi = lo * 10;
    const l0 = Math.log10(lo);
    const l1 = Math.log10(hi);
    y = (v) => m.t + ph - ((Math.log10(v) - l0) / (l1 - l0)) * ph;
    ticks = [];
    for (let e = l0; e <= l1; e++) {
      for (const k of l1 - l0 <= 2 ? [1, 2, 5] : [1]) {
        const v = k * 10 ** e;
        if (v >= lo && v <= hi) ticks.push(v);
      }
    }
  } else {
    lo = 0;
    const step = niceStep(hi || 1, 5);
    hi = Math.ceil((hi || 1) / step) * step;
    y = (v) => m.t + ph - (v / hi) * ph;
    ticks = [];
    for (let v = 0; v <= hi + step / 2; v += step) ticks.push(v);
  }
  const x = (i) => m.l + (xs.length === 1 ? pw / 2 : (i / (xs.length - 1)) * pw);
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`);
  out.push(`<title>${esc(title)}</title>`);
  out.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
  out.push(`<text x="${m.l + pw / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>`);
  for (const t of ticks) {
    const yy = y(t).toFixed(1);
    out.push(`<line x1="${m.l}" y1="${yy}" x2="${m.l + pw}" y2="${yy}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${m.l - 8}" y="${yy}" text-anchor="end" dominant-baseline="middle">${esc(fmtTick(t))}</text>`);
  }
  xs.forEach((v, i) => {
    const xx = x(i).toFixed(1);
    out.push(`<line x1="${xx}" y1="${m.t}" x2="${xx}" y2="${m.t + ph}" stroke="#f0f0f0"/>`);
    out.push(`<text x="${xx}" y="${m.t + ph + 18}" text-anchor="middle">${esc(v)}</text>`);
  });
  out.push(`<rect x="${m.l}" y="${m.t}" width="${pw}" height="${ph}" fill="none" stroke="#888"/>`);
  out.push(`<text x="${m.l + pw / 2}" y="${H - 14}" text-anchor="middle">${esc(xLabel)}</text>`);
  out.push(`<text transform="translate(18 ${m.t + ph / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}${log ? ' (log scale)' : ''}</text>`);
  series.forEach((s, k) => {
    const color = s.color ?? COLORS[k % COLORS.length];
    const dash = s.dash ? ` stroke-dasharray="6 4"` : '';
    let run = [];
    const flush = () => {
      if (run.length > 1) out.push(`<polyline fill="none" stroke="${color}" stroke-width="2"${dash} points="${run.join(' ')}"/>`);
      run = [];
    };
    s.values.forEach((v, i) => {
      if (!Number.isFinite(v) || (log && v <= 0)) return flush();
      const px = x(i).toFixed(1);
      const py = y(Math.min(Math.max(v, log ? lo : 0), hi)).toFixed(1);
      run.push(`${px},${py}`);
      out.push(`<circle cx="${px}" cy="${py}" r="3.5" fill="${s.dash ? '#ffffff' : color}" stroke="${color}" stroke-width="1.5"><title>${esc(`${s.name}: ${fmtTick(v)} at ${xs[i]}`)}</title></circle>`);
    });
    flush();
    const ly = m.t + 10 + k * 20;
    out.push(`<line x1="${m.l + pw + 16}" y1="${ly}" x2="${m.l + pw + 44}" y2="${ly}" stroke="${color}" stroke-width="2"${dash}/>`);
    out.push(`<text x="${m.l + pw + 50}" y="${ly}" dominant-baseline="middle">${esc(s.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
