import { lexedOf, TokenKind, type ParameterizedSql, type SqlDialect } from '../../parameterize/index.js';
import { insertHeadOf } from '../../plan/write/insert-head.js';
import { insertRowsOf } from '../../write/insert-rows.js';
import { parametersBetween } from '../statement-text.js';

/** A piece of the statement's text with its own `?` parameters, and its value when it is one value slot. */
export interface TextPart {
  readonly text: string;
  readonly parameters: readonly unknown[];
  /** Present when the part is exactly one value (a `?` or a literal): the value. */
  readonly value?: { readonly v: unknown };
}

/** Where an assignment of the update part takes its value from. */
export type AssignedValue =
  /** `VALUES(c)` / `EXCLUDED.c`: the inserted row's value of `c`. */
  | { readonly kind: 'row'; readonly column: string }
  /** `c = c`: the column keeps its value. */
  | { readonly kind: 'keep' }
  /** Anything else (a value, `DEFAULT`, an expression over the existing row), as written. */
  | { readonly kind: 'text'; readonly part: TextPart };

/** An INSERT with conflict handling, cut into what routing it row by row needs (no database). */
export interface UpsertStatement {
  /** The table as the statement names it (unquoted, last part). */
  readonly table: string;
  /** `INSERT INTO <table> (<columns>)` as written, without IGNORE / OR IGNORE. */
  readonly head: TextPart;
  /** The inserted columns, unquoted. */
  readonly columns: readonly string[];
  /** Each VALUES row: one part per column. */
  readonly rows: readonly (readonly TextPart[])[];
  /** `update`: ON DUPLICATE KEY UPDATE / ON CONFLICT DO UPDATE; `ignore`: INSERT IGNORE / OR IGNORE / DO NOTHING. */
  readonly mode: 'update' | 'ignore';
  /** How the statement spells its conflict handling, for messages. */
  readonly clause: string;
  /** ON CONFLICT's columns, or `any-unique-key` (MySQL's ON DUPLICATE KEY / IGNORE, an untargeted ON CONFLICT / OR IGNORE). */
  readonly target: readonly string[] | 'any-unique-key';
  readonly assignments: readonly { readonly column: string; readonly value: AssignedValue }[];
  /** The RETURNING list as written, when there is one. */
  readonly returning?: TextPart;
  /** A construct the row-by-row route cannot repeat exactly (a WHERE of ON CONFLICT, REPLACE, several clauses), for the refusal. */
  readonly unsupported?: string;
}

/**
 * Reads an `INSERT … VALUES` with conflict handling from its tokens: the head, the rows' items,
 * the update part's assignments classified by where their value comes from, and RETURNING.
 * Undefined for a statement without conflict handling.
 */
export function upsertStatementOf(p: ParameterizedSql, dialect: SqlDialect): UpsertStatement | undefined {
  const t = lexedOf(p, dialect);
  const word = (i: number) => (i < t.count && t.kinds[i] === TokenKind.Word ? p.sql.slice(t.starts[i], t.ends[i]).toUpperCase() : '');
  const part = (from: number, to: number): TextPart => partOf(p, from, to);
  let unsupported: string | undefined;
  let mode: 'update' | 'ignore' | undefined;
  let clause = '';
  let target: readonly string[] | 'any-unique-key' = 'any-unique-key';
  if (word(0) === 'REPLACE') return { ...empty(p, dialect), clause: 'REPLACE', unsupported: 'REPLACE (it deletes every row the new one conflicts with)' };
  let i = 1;
  while (['LOW_PRIORITY', 'DELAYED', 'HIGH_PRIORITY'].includes(word(i))) i++;
  if (word(i) === 'IGNORE') {
    [mode, clause] = ['ignore', 'INSERT IGNORE'];
    i++;
  } else if (word(i) === 'OR') {
    if (word(i + 1) === 'IGNORE') [mode, clause] = ['ignore', 'INSERT OR IGNORE'];
    else unsupported = `INSERT OR ${word(i + 1)}`;
    i += 2;
  }
  // `INSERT [IGNORE] [INTO] t (…)`: MySQL lets INTO out.
  const headFrom = word(i) === 'INTO' ? t.ends[i]! : (t.starts[i] ?? p.sql.length);
  const rows = insertRowsOf(p, dialect).rows;
  if (rows.length === 0) return undefined;
  let valuesAt = i;
  while (valuesAt < t.count && !/^VALUES?$/.test(word(valuesAt))) valuesAt++;
  const headPart = part(headFrom, t.starts[valuesAt] ?? p.sql.length);
  const head: TextPart = { text: `INSERT INTO ${headPart.text.trim()}`, parameters: headPart.parameters };
  const last = rows[rows.length - 1]!;
  let k = 0;
  while (k < t.count && t.starts[k]! < last.end) k++;
  const assignments: { column: string; value: AssignedValue }[] = [];
  let returning: TextPart | undefined;
  const note = (what: string) => (unsupported ??= what);
  while (k < t.count) {
    const w = word(k);
    if (t.kinds[k] === TokenKind.Semicolon) break;
    if (w === 'ON' && word(k + 1) === 'DUPLICATE' && word(k + 2) === 'KEY' && word(k + 3) === 'UPDATE') {
      if (mode) note(`${clause} with ON DUPLICATE KEY UPDATE`);
      [mode, clause] = ['update', 'ON DUPLICATE KEY UPDATE'];
      k = assignmentsFrom(p, dialect, k + 4, assignments);
    } else if (w === 'ON' && word(k + 1) === 'CONFLICT') {
      if (mode) note(`${clause} with ON CONFLICT`);
      k += 2;
      if (t.kinds[k] === TokenKind.Open) {
        const columns: string[] = [];
        for (k++; k < t.count && t.kinds[k] !== TokenKind.Close; k++) {
          if (t.kinds[k] === TokenKind.Word || t.kinds[k] === TokenKind.QuotedIdent) columns.push(unquote(p.sql.slice(t.starts[k], t.ends[k])));
          else if (t.kinds[k] !== TokenKind.Comma) note('an ON CONFLICT target with an expression or COLLATE');
        }
        k++;
        target = columns;
      }
      if (word(k) === 'WHERE') note('ON CONFLICT … WHERE (a partial index target)');
      while (k < t.count && word(k) !== 'DO') k++;
      if (word(k + 1) === 'NOTHING') {
        [mode, clause] = ['ignore', 'ON CONFLICT DO NOTHING'];
        k += 2;
      } else {
        [mode, clause] = ['update', 'ON CONFLICT DO UPDATE'];
        k = assignmentsFrom(p, dialect, k + 3, assignments);
        if (word(k) === 'WHERE') note('ON CONFLICT DO UPDATE … WHERE');
      }
    } else if (w === 'RETURNING') {
      let end = k + 1;
      while (end < t.count && t.kinds[end] !== TokenKind.Semicolon) end++;
      returning = part(t.starts[k + 1] ?? p.sql.length, t.ends[end - 1] ?? p.sql.length);
      k = end;
    } else {
      note(`"${p.sql.slice(t.starts[k], t.ends[k])}" after the VALUES rows`);
      k++;
    }
  }
  if (!mode && !unsupported) return undefined;
  const head0 = insertHeadOf(p.sql, dialect);
  return {
    table: head0.table,
    head,
    columns: head0.columns ?? [],
    rows: rows.map((row) => row.items.map((item) => part(item.start, item.end))),
    mode: mode ?? 'update',
    clause: clause || (unsupported ?? ''),
    target,
    assignments,
    ...(returning ? { returning } : {}),
    ...(unsupported ? { unsupported } : {}),
  };
}

function empty(p: ParameterizedSql, dialect: SqlDialect): UpsertStatement {
  return { table: insertHeadOf(p.sql, dialect).table, head: { text: '', parameters: [] }, columns: [], rows: [], mode: 'update', clause: '', target: 'any-unique-key', assignments: [] };
}

function partOf(p: ParameterizedSql, from: number, to: number): TextPart {
  const slot = p.slots.find((s) => s.start === from && s.end === to);
  return { text: p.sql.slice(from, to), parameters: parametersBetween(p, from, to), ...(slot ? { value: { v: slot.value } } : {}) };
}

/** `col = expr, …` from token `start`; returns the token after the last assignment. */
function assignmentsFrom(p: ParameterizedSql, dialect: SqlDialect, start: number, out: { column: string; value: AssignedValue }[]): number {
  const t = lexedOf(p, dialect);
  const word = (i: number) => (i < t.count && t.kinds[i] === TokenKind.Word ? p.sql.slice(t.starts[i], t.ends[i]).toUpperCase() : '');
  let i = start;
  while (i < t.count) {
    let column = unquote(p.sql.slice(t.starts[i], t.ends[i]));
    i++;
    while (t.kinds[i] === TokenKind.Dot) {
      column = unquote(p.sql.slice(t.starts[i + 1], t.ends[i + 1]));
      i += 2;
    }
    i++; // =
    const from = i;
    let depth = 0;
    for (; i < t.count; i++) {
      const kind = t.kinds[i];
      if (kind === TokenKind.Open) depth++;
      else if (kind === TokenKind.Close) depth--;
      else if (depth === 0 && (kind === TokenKind.Comma || kind === TokenKind.Semicolon || ['WHERE', 'RETURNING', 'ON'].includes(word(i)))) break;
    }
    const part = partOf(p, t.starts[from]!, t.ends[i - 1]!);
    out.push({ column, value: classify(part, column) });
    if (t.kinds[i] !== TokenKind.Comma) break;
    i++;
  }
  return i;
}

const ROW_VALUE = /^(?:VALUES\s*\(\s*([`"]?)([^`"()]+)\1\s*\)|EXCLUDED\s*\.\s*([`"]?)([^`"]+)\3)$/i;

function classify(part: TextPart, column: string): AssignedValue {
  const text = part.text.trim();
  const row = ROW_VALUE.exec(text);
  if (row) return { kind: 'row', column: row[2] ?? row[4]! };
  // `c = c` or `c = t.c`: an identifier, possibly qualified, naming the column itself.
  const names = /^(?:(?:`[^`]+`|"[^"]+"|\w+)\s*\.\s*)?(`[^`]+`|"[^"]+"|\w+)$/.exec(text);
  if (!part.value && names && unquote(names[1]!).toLowerCase() === column.toLowerCase()) return { kind: 'keep' };
  return { kind: 'text', part };
}

function unquote(text: string): string {
  const q = text[0];
  return q === '`' || q === '"' ? text.slice(1, -1).split(q + q).join(q) : text;
}
