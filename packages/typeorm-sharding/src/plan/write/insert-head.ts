import { lex, TokenBuffer, TokenKind } from '../../parameterize/index.js';
import type { SqlDialect } from '../../parameterize/index.js';

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
