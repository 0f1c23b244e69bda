import { expect } from 'vitest';
import type { PhysicalQueryEvent } from '../../packages/typeorm-sharding/src/index.js';

// Helpers of the differential oracle tests: reading the IN list a physical statement carried,
// checking the pruning invariants, and normalising rows so that a sharded answer and the
// plain answer can be compared.

/** A small deterministic PRNG (mulberry32), so that generated data is the same on every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Positions of the `?` placeholders of `sql` (outside quoted strings and identifiers). */
function placeholderPositions(sql: string): number[] {
  const out: number[] = [];
  let quote: string | undefined;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (quote !== undefined) {
      if (c === '\\' && quote === "'") i++;
      else if (c === quote) {
        if (sql[i + 1] === quote) i++;
        else quote = undefined;
      }
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '?') out.push(i);
  }
  return out;
}

/** Splits the text between the parentheses of an IN list into its items, honouring quotes. */
function splitItems(sql: string, open: number): { items: { text: string; at: number }[]; close: number } {
  const items: { text: string; at: number }[] = [];
  let quote: string | undefined;
  let start = open + 1;
  let depth = 0;
  for (let i = open + 1; i < sql.length; i++) {
    const c = sql[i]!;
    if (quote !== undefined) {
      if (c === '\\' && quote === "'") i++;
      else if (c === quote) {
        if (sql[i + 1] === quote) i++;
        else quote = undefined;
      }
      continue;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '(') depth++;
    else if (c === ')' && depth > 0) depth--;
    else if ((c === ',' || c === ')') && depth === 0) {
      const raw = sql.slice(start, i);
      const text = raw.trim();
      if (text !== '') items.push({ text, at: start + raw.indexOf(text) });
      if (c === ')') return { items, close: i };
      start = i + 1;
    }
  }
  throw new Error(`unterminated IN list in ${sql}`);
}

/** Number of entries of the ascending array `sorted` below `x` (binary search). */
function countBelow(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The value an IN item stands for: a parameter, a quoted string or a literal. */
function itemValue(text: string, at: number, placeholders: readonly number[], parameters: readonly unknown[]): string {
  if (text === '?') {
    const index = countBelow(placeholders, at);
    if (index >= parameters.length) throw new Error(`placeholder #${index} has no parameter`);
    return String(parameters[index]);
  }
  if (text.startsWith("'") && text.endsWith("'")) return text.slice(1, -1).replace(/''/g, "'").replace(/\\(.)/g, '$1');
  return text;
}

/**
 * The values of the IN list on column `column` in a physical statement (as text), or
 * undefined when the statement has no such list. A lone equality `column = value` (what
 * TypeORM writes for `whereInIds` of one id) counts as a list of one value.
 */
export function inListOf(event: Pick<PhysicalQueryEvent, 'sql' | 'parameters'>, column = 'id'): string[] | undefined {
  const placeholders = placeholderPositions(event.sql);
  const name = `(?:^|[\\s(.])["\`]?${column}["\`]?`;
  const match = new RegExp(`${name}\\s+[Ii][Nn]\\s*\\(`).exec(event.sql);
  if (match) {
    const open = match.index + match[0].length - 1;
    const { items } = splitItems(event.sql, open);
    return items.map((i) => itemValue(i.text, i.at, placeholders, event.parameters));
  }
  const eq = new RegExp(`${name}\\s*=\\s*(\\?|'(?:[^']|'')*'|-?\\d+)`).exec(event.sql);
  if (!eq) return undefined;
  const text = eq[1]!;
  return [itemValue(text, eq.index + eq[0].length - text.length, placeholders, event.parameters)];
}

/** The physical statements as readable lines, for assertion messages. */
export function describeEvents(events: readonly PhysicalQueryEvent[]): string {
  return events.map((e) => `  ${e.shard}: ${e.sql} ${JSON.stringify(e.parameters)} -> ${e.rowCount}`).join('\n');
}

/** Distinct values in first-seen order. */
export function distinct(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/**
 * The pruning invariants of one logical statement whose shard-key IN list held `values`:
 * - an empty list sends no statement;
 * - every value is sent in exactly one statement, to the shard `shardOf` names;
 * - no statement goes to a shard that holds none of the values, and no statement carries
 *   a value that is not in the list;
 * - each shard gets ceil(n / max) statements of at most `max` values.
 * Values are compared after `canon` (e.g. `'005'` and `5` are one integer key).
 */
export function expectPruned(
  events: readonly PhysicalQueryEvent[],
  values: readonly string[],
  shardOf: (value: string) => string,
  max: number,
  label: string,
  canon: (value: string) => string = (v) => v,
  /** Where a statement ran, in the terms of `shardOf` (a shard, or a shard's table under a layout). */
  placeOf: (event: PhysicalQueryEvent) => string = (e) => e.shard,
): void {
  const problems: string[] = [];
  const wanted = distinct(values.map(canon));
  if (wanted.length === 0 && events.length > 0) problems.push('an empty IN list must send no statement');
  const seen = new Map<string, number>();
  const statementsPerShard = new Map<string, number>();
  for (const event of events) {
    const e = { ...event, shard: placeOf(event) };
    statementsPerShard.set(e.shard, (statementsPerShard.get(e.shard) ?? 0) + 1);
    const list = inListOf(e);
    if (list === undefined) {
      problems.push(`a statement on ${e.shard} carries no IN list on the key`);
      continue;
    }
    if (list.length > max) problems.push(`a statement on ${e.shard} carries ${list.length} values, more than ${max}`);
    if (list.length === 0) problems.push(`a statement on ${e.shard} carries an empty IN list`);
    for (const spelled of list) {
      const v = canon(spelled);
      const home = shardOf(v);
      if (home !== e.shard) problems.push(`value ${v} was sent to ${e.shard}; it lives on ${home}`);
      seen.set(v, (seen.get(v) ?? 0) + 1);
    }
  }
  const wantedSet = new Set(wanted);
  for (const v of wanted) if (seen.get(v) !== 1) problems.push(`value ${v} was sent ${seen.get(v) ?? 0} times, not once`);
  for (const v of seen.keys()) if (!wantedSet.has(v)) problems.push(`value ${v} is not in the IN list but was sent`);
  const valuesPerShard = new Map<string, number>();
  for (const v of wanted) valuesPerShard.set(shardOf(v), (valuesPerShard.get(shardOf(v)) ?? 0) + 1);
  for (const shard of statementsPerShard.keys()) if (!valuesPerShard.has(shard)) problems.push(`shard ${shard} holds no value but got a statement`);
  for (const [shard, n] of valuesPerShard) {
    const got = statementsPerShard.get(shard) ?? 0;
    if (got !== Math.ceil(n / max)) problems.push(`shard ${shard} holds ${n} values and got ${got} statements, not ceil(${n}/${max}) = ${Math.ceil(n / max)}`);
  }
  if (problems.length > 0) {
    const shown = problems.length > 20 ? [...problems.slice(0, 20), `… ${problems.length - 20} more`] : problems;
    expect.fail(`${label}: pruning invariants broken:\n  ${shown.join('\n  ')}\nIN values: ${JSON.stringify(values).slice(0, 2000)}\nphysical:\n${describeEvents(events.slice(0, 40))}`);
  }
}

/** With pruning off: every shard gets one statement with the whole list (none for an empty list). */
export function expectBroadcast(
  events: readonly PhysicalQueryEvent[],
  values: readonly string[],
  shardNames: readonly string[],
  label: string,
  canon: (value: string) => string = (v) => v,
): void {
  const problems: string[] = [];
  const wanted = distinct(values.map(canon)).sort();
  if (values.length === 0) {
    if (events.length > 0) problems.push('an empty IN list must send no statement');
  } else {
    const shards = events.map((e) => e.shard).sort();
    if (JSON.stringify(shards) !== JSON.stringify([...shardNames].sort())) problems.push(`expected one statement per shard, got ${JSON.stringify(shards)}`);
    for (const e of events) {
      const sent = distinct((inListOf(e) ?? []).map(canon)).sort();
      if (JSON.stringify(sent) !== JSON.stringify(wanted)) problems.push(`the statement on ${e.shard} does not carry the whole list`);
    }
  }
  if (problems.length > 0) {
    expect.fail(`${label}: broadcast invariants broken:\n  ${problems.join('\n  ')}\nIN values: ${JSON.stringify(values).slice(0, 2000)}\nphysical:\n${describeEvents(events.slice(0, 40))}`);
  }
}

/** True for the column names that hold an id (`id`, `Order_id`, `o_id`): compared as text. */
function isIdColumn(key: string): boolean {
  return key === 'id' || key.endsWith('_id');
}

/** A row with its id columns as text (SQLite returns BIGINT as a number, mysql2 as a string). */
export function normalizeRow(row: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row as Record<string, unknown>)) out[k] = isIdColumn(k) && v !== null && v !== undefined ? String(v) : v;
  return out;
}

/** Rows normalised and in the order they came (for queries with ORDER BY). */
export function inOrder(rows: readonly unknown[]): Record<string, unknown>[] {
  return rows.map(normalizeRow);
}

/** Rows normalised and sorted by id text (for queries without ORDER BY: compares sets). */
export function asSet(rows: readonly unknown[]): Record<string, unknown>[] {
  const idOf = (r: Record<string, unknown>) => String(Object.entries(r).find(([k]) => isIdColumn(k))?.[1] ?? JSON.stringify(r));
  return rows.map(normalizeRow).sort((a, b) => (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0));
}
