/**
 * Writes a shard's statement with database-qualified table names (`shard_3`.`orders`), so that
 * it runs on any connection of the shard's server and can share one round trip with the
 * statements of the server's other shards (see `coalesce.ts`). A statement is marked
 * `qualified` only when every table it reads is known to be written so; any other statement
 * runs on a connection whose default database is the shard's (`servers/server-pool.ts`).
 */
import { lex, TokenBuffer, TokenKind } from '../parameterize/index.js';
import type { PhysicalStatement } from './physical-statement.js';
import { databasePrefix, qualifyTables } from './qualify-tables.js';

const tokens = new TokenBuffer();

/** What the planner knows of the statement's tables. */
export type TableShape =
  /** A SELECT whose FROM lists name `references` tables in all (subqueries included). */
  | { readonly kind: 'select'; readonly references: number }
  /** `INSERT INTO t`, `UPDATE t SET`, `DELETE FROM t` of one table. */
  | { readonly kind: 'write' }
  | { readonly kind: 'other' };

/**
 * The statement for `database`, qualified when that is provably complete.
 *
 * @param isTable true for the tables the plugin knows (entity tables): only those are qualified
 */
export function addressShard(statement: PhysicalStatement, database: string, shape: TableShape, isTable: (name: string) => boolean): PhysicalStatement {
  if (shape.kind === 'other' || hasWith(statement.sql)) return statement;
  if (shape.kind === 'select') {
    const q = qualifyTables(statement.sql, database, isTable);
    return q.qualified === shape.references ? { ...statement, sql: q.sql, qualified: true } : statement;
  }
  const sql = qualifyWriteTarget(statement.sql, database, isTable);
  return sql === undefined ? statement : { ...statement, sql, qualified: true };
}

/**
 * The text as the shard's own database would have been sent it: the database prefixes
 * qualification wrote removed (they keep each table's spelling), for errors that quote the
 * statement as one database would.
 */
export function withoutDatabase(text: string, database: string): string {
  return text.split(databasePrefix(database)).join('');
}

/** True when the statement has a WITH clause (its CTE names must not be qualified). */
function hasWith(sql: string): boolean {
  const count = lex(sql, 'mysql', tokens);
  for (let i = 0; i < count; i++) if (tokens.kinds[i] === TokenKind.Word && sql.slice(tokens.starts[i], tokens.ends[i]).toUpperCase() === 'WITH') return true;
  return false;
}

/** Words a single-table write may not contain elsewhere: they would bring more tables. */
const MORE_TABLES = new Set(['FROM', 'JOIN', 'SELECT', 'USING']);
/** Modifiers between the verb and the table. */
const MODIFIERS = new Set(['LOW_PRIORITY', 'DELAYED', 'HIGH_PRIORITY', 'IGNORE', 'QUICK']);

/**
 * `INSERT [IGNORE] INTO t …`, `REPLACE INTO t …`, `UPDATE [IGNORE] t SET …`, `DELETE FROM t …`
 * with `t` qualified; undefined for any other form (several tables, subqueries, INSERT … SELECT).
 */
function qualifyWriteTarget(sql: string, database: string, isTable: (name: string) => boolean): string | undefined {
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
  const name = kind === TokenKind.QuotedIdent ? text.slice(1, -1).replace(/``/g, '`') : text;
  if (!isTable(name)) return undefined;
  // `DELETE FROM t` counts its own FROM once; any other FROM / JOIN / SELECT brings tables.
  for (let j = at + 1; j < count; j++) if (MORE_TABLES.has(word(j))) return undefined;
  if (verb === 'UPDATE' && tokens.kinds[at + 1] === TokenKind.Comma) return undefined;
  return `${sql.slice(0, tokens.starts[at])}${databasePrefix(database)}${text}${sql.slice(tokens.ends[at])}`;
}
