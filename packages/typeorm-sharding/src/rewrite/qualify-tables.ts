import { lex, TokenBuffer, TokenKind } from '../parameterize/index.js';

const tokens = new TokenBuffer();
/** Words after which, at the same depth, the FROM list is over. */
const FROM_LIST_END = new Set(['WHERE', 'GROUP', 'HAVING', 'ORDER', 'LIMIT', 'UNION', 'WINDOW', 'FOR', 'LOCK', 'INTO', 'ON', 'USING']);

/** Where the tables of a statement's FROM lists are (offsets of their names), and whether it has a WITH clause. */
export interface TablePositions {
  readonly positions: readonly number[];
  readonly hasWith: boolean;
}

/**
 * Every table reference of a FROM list — after FROM, after JOIN, and after the commas of a
 * comma join (`FROM orders o, order_items i`) — that names a table `isTable` knows and is not
 * qualified already. The caller compares their number with the tables the planner saw.
 */
export function tablePositions(sql: string, isTable: (name: string) => boolean): TablePositions {
  const count = lex(sql, 'mysql', tokens);
  const positions: number[] = [];
  let hasWith = false;
  let depth = 0;
  // Depths at which a FROM list is open, and whether a table name is expected next there.
  const fromDepths: number[] = [];
  let expectTable = false;
  for (let i = 0; i < count; i++) {
    const kind = tokens.kinds[i];
    const word = kind === TokenKind.Word ? sql.slice(tokens.starts[i], tokens.ends[i]).toUpperCase() : '';
    if (word === 'WITH') hasWith = true;
    const inFromList = fromDepths[fromDepths.length - 1] === depth;
    if (kind === TokenKind.Open) {
      depth++;
      expectTable = false;
      continue;
    }
    if (kind === TokenKind.Close) {
      if (inFromList) fromDepths.pop();
      depth--;
      continue;
    }
    if (word === 'FROM' || word === 'JOIN') {
      if (word === 'FROM' && !inFromList) fromDepths.push(depth);
      expectTable = true;
      continue;
    }
    if (inFromList && kind === TokenKind.Comma) {
      expectTable = true;
      continue;
    }
    if (inFromList && FROM_LIST_END.has(word)) {
      if (word !== 'ON' && word !== 'USING') fromDepths.pop();
      expectTable = false;
      continue;
    }
    if (!expectTable || (kind !== TokenKind.QuotedIdent && kind !== TokenKind.Word)) continue;
    expectTable = false;
    if (i + 1 < count && tokens.kinds[i + 1] === TokenKind.Dot) continue; // already qualified
    const text = sql.slice(tokens.starts[i], tokens.ends[i]);
    const name = kind === TokenKind.QuotedIdent ? text.slice(1, -1).replace(/``/g, '`') : text;
    if (isTable(name)) positions.push(tokens.starts[i]!);
  }
  return { positions, hasWith };
}

/** What qualification writes before a table name: `` `database`. ``. */
export function databasePrefix(database: string): string {
  return `\`${database.replace(/`/g, '``')}\`.`;
}

/**
 * Writes every table reference of a FROM list (see `tablePositions`) as `database`.table, so a
 * statement meant for one shard database can run on any connection of the server. The table
 * keeps its own spelling: removing the `database`. prefix gives the text back (errors quote it
 * as sent). Returns the new text and how many references were qualified.
 */
export function qualifyTables(sql: string, database: string, isTable: (name: string) => boolean): { sql: string; qualified: number } {
  const { positions } = tablePositions(sql, isTable);
  const prefix = databasePrefix(database);
  let out = '';
  let copied = 0;
  for (const at of positions) {
    out += sql.slice(copied, at) + prefix;
    copied = at;
  }
  return { sql: out + sql.slice(copied), qualified: positions.length };
}
