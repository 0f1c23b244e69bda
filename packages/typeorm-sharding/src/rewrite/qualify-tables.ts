import { lex, TokenBuffer, TokenKind } from '../parameterize/index.js';

const tokens = new TokenBuffer();
const TABLE_INTRODUCERS = new Set(['FROM', 'JOIN']);

/**
 * Writes every table reference that follows FROM or JOIN as `database`.`table` (MySQL
 * spelling), so a statement meant for one shard database can run on any connection of the
 * server. Returns the new text and how many references were qualified; the caller compares
 * that count with the tables the planner saw and does not combine statements when they differ.
 */
export function qualifyTables(sql: string, database: string, isTable: (name: string) => boolean): { sql: string; qualified: number } {
  const count = lex(sql, 'mysql', tokens);
  let out = '';
  let copied = 0;
  let qualified = 0;
  for (let i = 1; i < count; i++) {
    const kind = tokens.kinds[i];
    if (kind !== TokenKind.QuotedIdent && kind !== TokenKind.Word) continue;
    const prev = i - 1;
    if (tokens.kinds[prev] !== TokenKind.Word) continue;
    if (!TABLE_INTRODUCERS.has(sql.slice(tokens.starts[prev], tokens.ends[prev]).toUpperCase())) continue;
    if (i + 1 < count && tokens.kinds[i + 1] === TokenKind.Dot) continue; // already qualified
    const start = tokens.starts[i]!;
    const end = tokens.ends[i]!;
    const text = sql.slice(start, end);
    const name = kind === TokenKind.QuotedIdent ? text.slice(1, -1).replace(/``/g, '`') : text;
    if (!isTable(name)) continue;
    out += `${sql.slice(copied, start)}\`${database.replace(/`/g, '``')}\`.\`${name.replace(/`/g, '``')}\``;
    copied = end;
    qualified++;
  }
  return { sql: out + sql.slice(copied), qualified };
}
