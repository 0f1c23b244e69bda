import type { ShapeCase, Typed } from './ast.js';

// Comparing the sharded answer with the plain one, column by column as the generator typed
// them: numbers by value (mysql2 returns DECIMAL and BIGINT as strings, a merge may return
// numbers), text exactly or (for values one database may show in any case) case-
// insensitively, floating-point aggregates within a relative tolerance, everything else
// by a canonical text (dates as ISO text, buffers as hex, JSON as JSON).

/**
 * Relative tolerance for floating-point aggregates only (SUM/AVG/STDDEV/VARIANCE of DOUBLE,
 * and of DECIMAL on SQLite, which stores it as REAL): adding the same doubles in another
 * order (per shard, then across shards) may change the last bits. 1e-9 is far above that
 * rounding (~1e-15 per addition over a few hundred rows) and far below any real error.
 */
export const FLOAT_TOLERANCE = 1e-9;

/** Relative tolerance of `serverRounded` values (see `Typed.serverRounded`). */
export const SERVER_ROUNDED_TOLERANCE = 5e-3;

export type CompareMode = 'number' | 'float' | 'rounded' | 'text' | 'anyCase' | 'bit' | 'other';

export function modeOf(t: Typed | undefined): CompareMode {
  if (t === undefined) return 'other';
  if (t.serverRounded) return 'rounded';
  if (t.type === 'bit') return 'bit';
  if (t.type === 'int' || t.type === 'bigint' || t.type === 'decimal' || t.type === 'double' || t.type === 'year' || t.type === 'bool') return t.exact ? 'number' : 'float';
  if (t.type === 'text') return t.anyCase ? 'anyCase' : 'text';
  return 'other';
}

/** `1.50`, `'1.5'`, `1.5` and `1.5e0` → `1.5`; undefined when `v` is not a number or numeric text. */
export function decimalText(v: unknown): string | undefined {
  let s: string;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return String(v);
    s = String(v);
  } else if (typeof v === 'bigint') s = v.toString();
  else if (typeof v === 'string' && /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(v.trim())) s = v.trim();
  else return undefined;
  const m = /^([+-]?)(\d*)\.?(\d*)(?:e([+-]?\d+))?$/i.exec(s);
  if (!m) return undefined;
  const [, sign, intPart, fracPart, exp] = m;
  let digits = (intPart ?? '') + (fracPart ?? '');
  let point = (intPart ?? '').length + Number(exp ?? 0);
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  const whole = digits.slice(0, point).replace(/^0+/, '') || '0';
  const frac = digits.slice(point).replace(/0+$/, '');
  const text = frac ? `${whole}.${frac}` : whole;
  return sign === '-' && text !== '0' ? `-${text}` : text;
}

/** A canonical text of any value (dates, buffers, JSON values, numbers). */
export function canonical(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (v instanceof Date) return `date:${Number.isNaN(v.getTime()) ? 'invalid' : v.toISOString()}`;
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return `hex:${Buffer.from(v).toString('hex')}`;
  if (typeof v === 'object') return `json:${JSON.stringify(v)}`;
  return decimalText(v) ?? String(v);
}

/** Whether two values of one output column agree under `mode`. */
export function sameValue(a: unknown, b: unknown, mode: CompareMode): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return (a === null) === (b === null) && (a === undefined) === (b === undefined);
  switch (mode) {
    case 'number': {
      const x = decimalText(a);
      const y = decimalText(b);
      return x !== undefined && y !== undefined ? x === y : canonical(a) === canonical(b);
    }
    case 'float':
    case 'rounded': {
      const x = Number(a);
      const y = Number(b);
      if (!Number.isFinite(x) || !Number.isFinite(y)) return canonical(a) === canonical(b);
      return Math.abs(x - y) <= (mode === 'float' ? FLOAT_TOLERANCE : SERVER_ROUNDED_TOLERANCE) * Math.max(1, Math.abs(x), Math.abs(y));
    }
    case 'text':
      return typeof a === 'string' && typeof b === 'string' ? a === b : canonical(a) === canonical(b);
    case 'anyCase':
      return String(a).toLowerCase() === String(b).toLowerCase();
    case 'bit':
      return bitValue(a) === bitValue(b);
    case 'other':
      return canonical(a) === canonical(b);
  }
}

/**
 * A BIT value as its integer. MariaDB itself sends a BIT column as BIT (a Buffer in mysql2) or,
 * when a DISTINCT … ORDER BY sorts it through a temporary table, as an integer: which one
 * depends on the plan (a one-row const read keeps BIT), so a shard's plan may differ from one
 * database's. The value must agree; the JS type is counted as type drift.
 */
function bitValue(v: unknown): string {
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return BigInt(`0x${Buffer.from(v).toString('hex') || '0'}`).toString();
  return decimalText(v) ?? canonical(v);
}

type Row = Record<string, unknown>;

/** A sort key of a row for multiset comparison (floats rounded, any-case text lowered). */
function rowKey(row: Row, columns: readonly string[], modes: readonly CompareMode[]): string {
  return JSON.stringify(
    columns.map((k, i) => {
      const v = row[k];
      if (v === null || v === undefined) return null;
      switch (modes[i]) {
        case 'float':
          return Number.isFinite(Number(v)) ? Number(v).toPrecision(8) : canonical(v);
        case 'rounded':
          return Number.isFinite(Number(v)) ? Number(v).toPrecision(2) : canonical(v);
        case 'anyCase':
          return String(v).toLowerCase();
        case 'text':
          return String(v);
        case 'bit':
          return bitValue(v);
        default:
          return canonical(v);
      }
    }),
  );
}

/**
 * Orders rows for a multiset comparison: by their rounded keys, then, among rows whose keys are
 * equal, by the exact values of their float columns. Without the second step two groups whose
 * sums agree to 8 digits (142860.14285714287 and 142860.14385714286) keep each source's own
 * order and are paired crosswise.
 */
function compareForMultiset(x: Row, y: Row, columns: readonly string[], modes: readonly CompareMode[]): number {
  const kx = rowKey(x, columns, modes);
  const ky = rowKey(y, columns, modes);
  if (kx !== ky) return kx < ky ? -1 : 1;
  for (const [i, k] of columns.entries()) {
    if (modes[i] !== 'float' && modes[i] !== 'rounded') continue;
    const a = Number(x[k]);
    const b = Number(y[k]);
    if (Number.isFinite(a) && Number.isFinite(b) && a !== b) return a - b;
  }
  return 0;
}

/** What differs between the two answers, or undefined when they agree. */
export function differenceOf(plain: readonly Row[], sharded: readonly Row[], c: ShapeCase): string | undefined {
  if (!Array.isArray(sharded)) return `the sharded source returned ${typeof sharded}, not rows`;
  const columns = plain.length > 0 ? Object.keys(plain[0]!) : sharded.length > 0 ? Object.keys(sharded[0]!) : [];
  const modes = columns.map((_, i) => modeOf(c.outputs[i]));
  const wantKeys = [...columns].sort().join(',');
  for (const [i, row] of sharded.entries()) {
    const keys = Object.keys(row).sort().join(',');
    if (keys !== wantKeys) return `row ${i} of the sharded answer has columns [${keys}], the plain answer [${wantKeys}]`;
  }
  if (plain.length !== sharded.length) return `${sharded.length} rows from the sharded source, ${plain.length} from the plain one`;
  let a = plain;
  let b = sharded;
  if (!c.ordered) {
    const sortRows = (rows: readonly Row[]) => [...rows].sort((x, y) => compareForMultiset(x, y, columns, modes));
    a = sortRows(plain);
    b = sortRows(sharded);
  }
  for (let r = 0; r < a.length; r++) {
    for (const [i, k] of columns.entries()) {
      if (!sameValue(a[r]![k], b[r]![k], modes[i]!)) {
        return `${c.ordered ? 'row' : 'row (after sorting both as multisets)'} ${r}, column "${k}" (${modes[i]}): plain ${show(a[r]![k])}, sharded ${show(b[r]![k])}`;
      }
    }
  }
  return undefined;
}

/**
 * Values that differ in JS type but agree in value (e.g. `'12.50'` and `12.5`): counted, not
 * failed. Looks at the first row of answers compared in order (rows of a multiset may differ).
 */
export function typeDrift(plain: readonly Row[], sharded: readonly Row[], c: ShapeCase): string | undefined {
  if (!c.ordered) return undefined;
  const first = plain[0];
  const other = sharded[0];
  if (!first || !other) return undefined;
  for (const k of Object.keys(first)) {
    const x = first[k];
    const y = other[k];
    if (x !== null && y !== null && x !== undefined && y !== undefined && typeof x !== typeof y) return `${k}: ${typeof x} vs ${typeof y}`;
  }
  return undefined;
}

/** A value as it appears in messages. */
export function show(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return `${v}n`;
  return canonical(v);
}

/** Rows as compact text for messages (at most `max` rows). */
export function showRows(rows: unknown, max = 12): string {
  if (!Array.isArray(rows)) return String(rows);
  const lines = rows.slice(0, max).map((r) => `    {${Object.entries(r as Row).map(([k, v]) => `${k}: ${show(v)}`).join(', ')}}`);
  if (rows.length > max) lines.push(`    … ${rows.length - max} more`);
  return `${rows.length} row(s)\n${lines.join('\n')}`;
}

/**
 * Floating-point aggregates that agree only within FLOAT_TOLERANCE, not exactly (compared
 * in order only; a multiset would need the same sorting): counted, not failed.
 */
export function floatDrift(plain: readonly Row[], sharded: readonly Row[], c: ShapeCase): string | undefined {
  if (!c.ordered || plain.length !== sharded.length) return undefined;
  const columns = plain.length > 0 ? Object.keys(plain[0]!) : [];
  for (const [r, row] of plain.entries()) {
    for (const [i, k] of columns.entries()) {
      if (modeOf(c.outputs[i]) !== 'float') continue;
      const a = row[k];
      const b = sharded[r]![k];
      if (a !== null && b !== null && a !== undefined && b !== undefined && Number(a) !== Number(b)) return `${show(a)} vs ${show(b)}`;
    }
  }
  return undefined;
}

/**
 * The rows with each exact duplicate after its first dropped, or undefined when there is none.
 * MariaDB 10.11 returns duplicates for some `SELECT DISTINCT` over a GROUP BY (`SELECT DISTINCT
 * AVG(x), x … GROUP BY d, x`: every group, as if without DISTINCT): such an answer is no
 * reference, the rows made distinct are.
 */
export function distinctRowsOf(rows: readonly Record<string, unknown>[]): Record<string, unknown>[] | undefined {
  const seen = new Set<string>();
  const out = rows.filter((row) => {
    const key = JSON.stringify(Object.values(row).map(canonical));
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return out.length === rows.length ? undefined : out;
}
