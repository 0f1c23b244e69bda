import { lex, TokenBuffer, TokenKind } from '../parameterize/lexer.js';
import type { ParameterizedSql, SqlDialect } from '../parameterize/index.js';

/** One `( … )` row of `INSERT … VALUES`. */
export interface InsertRow {
  /** Offset of `(`. */
  readonly start: number;
  /** Offset one past `)`. */
  readonly end: number;
  /** Spans of the row's items (without surrounding whitespace). */
  readonly items: readonly { readonly start: number; readonly end: number }[];
}

/** The VALUES part of an INSERT, cut into rows. */
export interface InsertRows {
  readonly rows: readonly InsertRow[];
}

/** Column names of `INSERT INTO t (a, b) …` and the table name, from the statement text. */
export interface InsertHead {
  readonly table: string;
  readonly columns: readonly string[] | undefined;
  /** True for `INSERT … SELECT` (no VALUES). */
  readonly fromSelect: boolean;
}

const tokens = new TokenBuffer();

function unquote(text: string): string {
  const q = text[0];
  if (q === '`' || q === '"') return text.slice(1, -1).split(q + q).join(q);
  return text;
}

/** Reads the table and column list of an INSERT / REPLACE. */
export function insertHeadOf(sql: string, dialect: SqlDialect): InsertHead {
  const count = lex(sql, dialect, tokens);
  const text = (i: number) => sql.slice(tokens.starts[i], tokens.ends[i]);
  let i = 1;
  while (i < count && tokens.kinds[i] === TokenKind.Word && /^(IGNORE|INTO|LOW_PRIORITY|DELAYED|HIGH_PRIORITY|OR|REPLACE|ABORT|FAIL|ROLLBACK)$/i.test(text(i))) i++;
  // `db`.`table` or `table`
  let table = unquote(text(i));
  if (tokens.kinds[i + 1] === TokenKind.Dot) {
    i += 2;
    table = unquote(text(i));
  }
  i++;
  let columns: string[] | undefined;
  if (tokens.kinds[i] === TokenKind.Open) {
    columns = [];
    for (i++; i < count && tokens.kinds[i] !== TokenKind.Close; i++) {
      if (tokens.kinds[i] === TokenKind.Comma) continue;
      columns.push(unquote(text(i)));
    }
    i++;
  }
  const fromSelect = !(tokens.kinds[i] === TokenKind.Word && /^VALUES?$/i.test(text(i)));
  return { table, columns, fromSelect };
}

/** Cuts the VALUES part of an INSERT into rows and items. */
export function insertRowsOf(p: ParameterizedSql, dialect: SqlDialect): InsertRows {
  const count = lex(p.sql, dialect, tokens);
  const rows: InsertRow[] = [];
  let depth = 0;
  let inValues = false;
  let rowStart = -1;
  let itemStart = -1;
  let itemEnd = -1;
  let items: { start: number; end: number }[] = [];
  for (let i = 0; i < count; i++) {
    const kind = tokens.kinds[i];
    const s = tokens.starts[i]!;
    const e = tokens.ends[i]!;
    if (!inValues) {
      if (depth === 0 && kind === TokenKind.Word && /^VALUES?$/i.test(p.sql.slice(s, e))) inValues = true;
      else if (kind === TokenKind.Open) depth++;
      else if (kind === TokenKind.Close) depth--;
      continue;
    }
    if (depth === 0) {
      if (kind === TokenKind.Open) {
        depth = 1;
        rowStart = s;
        items = [];
        itemStart = -1;
      } else if (kind !== TokenKind.Comma) {
        break; // ON DUPLICATE KEY UPDATE / RETURNING: the tail
      }
      continue;
    }
    if (depth === 1 && (kind === TokenKind.Comma || kind === TokenKind.Close)) {
      if (itemStart >= 0) items.push({ start: itemStart, end: itemEnd });
      itemStart = -1;
      if (kind === TokenKind.Close) {
        depth = 0;
        rows.push({ start: rowStart, end: e, items });
      }
      continue;
    }
    if (kind === TokenKind.Open) depth++;
    else if (kind === TokenKind.Close) depth--;
    if (itemStart < 0) itemStart = s;
    itemEnd = e;
  }
  return { rows };
}
