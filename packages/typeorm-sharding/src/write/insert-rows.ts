import { lexedOf, MemoKey, memoOf, TokenKind } from '../parameterize/index.js';
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

const ROWS: Record<SqlDialect, MemoKey<InsertRows>> = { mysql: new MemoKey('insert rows mysql'), sqlite: new MemoKey('insert rows sqlite') };


/** Cuts the VALUES part of an INSERT into rows and items (once per text). */
export function insertRowsOf(p: ParameterizedSql, dialect: SqlDialect): InsertRows {
  return memoOf(p).get(ROWS[dialect], () => cutRows(p, dialect));
}

function cutRows(p: ParameterizedSql, dialect: SqlDialect): InsertRows {
  const tokens = lexedOf(p, dialect);
  const count = tokens.count;
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
