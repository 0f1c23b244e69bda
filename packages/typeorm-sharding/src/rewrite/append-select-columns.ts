import { lex, TokenBuffer, TokenKind, type SqlDialect } from '../parameterize/index.js';
import type { PhysicalStatement } from './physical-statement.js';

/** A column to add to a select list: SQL text with `?` placeholders, and their values in order. */
export interface AddedColumn {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  readonly alias: string;
}

const tokens = new TokenBuffer();
/** Words that end the outermost select list. */
const LIST_END = new Set(['FROM', 'WHERE', 'GROUP', 'HAVING', 'WINDOW', 'ORDER', 'LIMIT', 'FOR', 'LOCK', 'INTO', 'UNION', 'EXCEPT', 'INTERSECT']);

/**
 * Appends `columns` to the outermost select list of a physical statement (after any column the
 * rewrite already added there), their `?` values at the matching place of the parameters.
 * Used for the keys a compound SELECT compares its branches' rows by.
 */
export function appendSelectColumns(statement: PhysicalStatement, columns: readonly AddedColumn[], dialect: SqlDialect): PhysicalStatement {
  if (columns.length === 0) return statement;
  const { sql } = statement;
  const count = lex(sql, dialect, tokens);
  let depth = 0;
  let selected = false;
  // Just past the select list's last token: comments and blanks after it stay where they are.
  let at: number | undefined;
  let lastEnd = 0;
  let before = 0;
  for (let i = 0; i < count; i++) {
    const kind = tokens.kinds[i];
    if (kind === TokenKind.Open) depth++;
    else if (kind === TokenKind.Close) depth--;
    else if (depth === 0 && kind === TokenKind.Word) {
      const word = sql.slice(tokens.starts[i], tokens.ends[i]).toUpperCase();
      if (!selected) selected = word === 'SELECT';
      else if (LIST_END.has(word)) {
        at = lastEnd;
        break;
      }
    } else if (depth === 0 && kind === TokenKind.Semicolon) {
      at = lastEnd;
      break;
    }
    if (kind === TokenKind.Param) before++;
    lastEnd = tokens.ends[i]!;
  }
  at ??= lastEnd;
  const quote = (name: string) => (dialect === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const text = columns.map((c) => `, ${c.sql} AS ${quote(c.alias)}`).join('');
  const parameters = [...statement.parameters.slice(0, before), ...columns.flatMap((c) => c.parameters), ...statement.parameters.slice(before)];
  return { ...statement, sql: sql.slice(0, at) + text + sql.slice(at), parameters };
}
