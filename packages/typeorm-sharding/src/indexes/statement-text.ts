import { firstParameterFrom, lexedOf, parameterStarts, TokenKind, type ParameterizedSql, type SqlDialect } from '../parameterize/index.js';

/** The clauses of a one-table UPDATE / DELETE, as offsets into its text (depth 0 only). */
export interface WriteClauses {
  /** Offset of `SET` (UPDATE) or `FROM` (DELETE). */
  readonly head: number;
  /** UPDATE: the end of the table part (`UPDATE users u` ends where `SET` starts); DELETE: `head`. */
  readonly tableEnd: number;
  /** Offset of `WHERE`, or `end` when there is none. */
  readonly where: number;
  /** End of the part a locking read repeats: before `RETURNING`, `ORDER BY`, `LIMIT` or `;`. */
  readonly end: number;
  /** UPDATE: its assignments (`col = item`), the column as written without quotes or table. */
  readonly assignments: readonly Assignment[];
}

/** One `col = value` of an UPDATE's SET. */
export interface Assignment {
  readonly column: string;
  /** The value's span. */
  readonly start: number;
  readonly end: number;
}

/** Reads the clauses of an UPDATE / DELETE of one table with the lexer. */
export function writeClausesOf(p: ParameterizedSql, dialect: SqlDialect): WriteClauses {
  const t = lexedOf(p, dialect);
  const word = (i: number) => (t.kinds[i] === TokenKind.Word ? p.sql.slice(t.starts[i], t.ends[i]).toUpperCase() : '');
  const isUpdate = p.verb === 'UPDATE';
  let depth = 0;
  let head = -1;
  let headToken = -1;
  let where = -1;
  let whereToken = -1;
  let end = p.sql.length;
  let endToken = t.count;
  for (let i = 1; i < t.count; i++) {
    const kind = t.kinds[i];
    if (kind === TokenKind.Open) depth++;
    else if (kind === TokenKind.Close) depth--;
    if (depth !== 0 || kind === TokenKind.Close) continue;
    const w = word(i);
    if (head < 0) {
      if (w === (isUpdate ? 'SET' : 'FROM')) [head, headToken] = [t.starts[i]!, i];
    } else if (where < 0 && w === 'WHERE') {
      [where, whereToken] = [t.starts[i]!, i];
    } else if (w === 'RETURNING' || w === 'ORDER' || w === 'LIMIT' || kind === TokenKind.Semicolon) {
      [end, endToken] = [t.starts[i]!, i];
      break;
    }
  }
  const assignments: Assignment[] = [];
  if (isUpdate && headToken >= 0) {
    // `col = value, …` between SET and WHERE, split at commas outside parentheses.
    const last = whereToken >= 0 ? whereToken : endToken;
    let segment = headToken + 1;
    depth = 0;
    for (let i = headToken + 1; i <= last; i++) {
      const kind = i < last ? t.kinds[i] : TokenKind.Comma;
      if (kind === TokenKind.Open) depth++;
      else if (kind === TokenKind.Close) depth--;
      if (depth !== 0 || kind !== TokenKind.Comma) continue;
      let eq = segment;
      while (eq < i && !(t.kinds[eq] === TokenKind.Operator && p.sql.slice(t.starts[eq], t.ends[eq]) === '=')) eq++;
      if (eq > segment && eq + 1 < i) {
        assignments.push({ column: unquote(p.sql.slice(t.starts[eq - 1], t.ends[eq - 1])), start: t.starts[eq + 1]!, end: t.ends[i - 1]! });
      }
      segment = i + 1;
    }
  }
  if (where < 0) where = end;
  return { head, tableEnd: head, where, end, assignments };
}

/** The parameters of the text between `from` and `to`. */
export function parametersBetween(p: ParameterizedSql, from: number, to: number): unknown[] {
  const starts = parameterStarts(p);
  return p.parameters.slice(firstParameterFrom(starts, from), firstParameterFrom(starts, to));
}

/** An identifier quoted for the dialect. */
export function quoted(name: string, dialect: SqlDialect): string {
  return dialect === 'mysql' ? `\`${name.replace(/`/g, '``')}\`` : `"${name.replace(/"/g, '""')}"`;
}

function unquote(text: string): string {
  const q = text[0];
  return q === '`' || q === '"' ? text.slice(1, -1).split(q + q).join(q) : text;
}
