/**
 * Database-qualified table names (`shard_3`.`orders`) let a shard's statement run on any
 * connection of its server and share one round trip with the statements of the server's
 * other shards (see `coalesce.ts`, `qualified-template.ts`). A statement is qualified only when
 * every table it reads is known to be written so; any other statement runs on a connection
 * whose default database is the shard's (`servers/server-pool.ts`).
 */
import { lex, TokenBuffer, TokenKind } from '../parameterize/index.js';
import { databasePrefix, type TablePositions } from './qualify-tables.js';

const tokens = new TokenBuffer();

/**
 * The text as the shard's own database would have been sent it: the database prefixes
 * qualification wrote removed (they keep each table's spelling), for errors that quote the
 * statement as one database would.
 */
export function withoutDatabase(text: string, database: string): string {
  return text.split(databasePrefix(database)).join('');
}

/** Words a single-table write may not contain elsewhere: they would bring more tables. */
const MORE_TABLES = new Set(['FROM', 'JOIN', 'SELECT', 'USING', 'WITH']);
/** Modifiers between the verb and the table. */
const MODIFIERS = new Set(['LOW_PRIORITY', 'DELAYED', 'HIGH_PRIORITY', 'IGNORE', 'QUICK']);

/**
 * The position of the one table of `INSERT [IGNORE] INTO t …`, `REPLACE INTO t …`, `UPDATE
 * [IGNORE] t SET …`, `DELETE FROM t …`; undefined for any other form (several tables,
 * subqueries, INSERT … SELECT, a table the plugin does not know).
 */
export function singleWriteTarget(sql: string, isTable: (name: string) => boolean): TablePositions | undefined {
  const count = lex(sql, 'mysql', tokens);
  const word = (i: number) => (i < count && tokens.kinds[i] === TokenKind.Word ? sql.slice(tokens.starts[i], tokens.ends[i]).toUpperCase() : '');
  let i = 0;
  const verb = word(i++);
  while (MODIFIERS.has(word(i))) i++;
  if (verb === 'INSERT' || verb === 'REPLACE') {
    if (word(i) !== 'INTO') return undefined;
    i++;
  } else if (verb === 'DELETE') {
    if (word(i) !== 'FROM') return undefined;
    i++;
  } else if (verb !== 'UPDATE') {
    return undefined;
  }
  const at = i;
  const kind = tokens.kinds[at];
  if (at >= count || (kind !== TokenKind.Word && kind !== TokenKind.QuotedIdent) || tokens.kinds[at + 1] === TokenKind.Dot) return undefined;
  const text = sql.slice(tokens.starts[at], tokens.ends[at]);
  if (!isTable(kind === TokenKind.QuotedIdent ? text.slice(1, -1).replace(/``/g, '`') : text)) return undefined;
  // `DELETE FROM t` counts its own FROM once; any other FROM / JOIN / SELECT brings tables.
  for (let j = at + 1; j < count; j++) if (MORE_TABLES.has(word(j))) return undefined;
  if (verb === 'UPDATE' && tokens.kinds[at + 1] === TokenKind.Comma) return undefined;
  return { positions: [tokens.starts[at]!], hasWith: false };
}
