/**
 * Where a statement names its tables, read from its tokens (`lexedOf`, once per text): the
 * references of its FROM lists, and the one target of a single-table write. Qualification
 * (`tokens/qualify.ts`) writes the shard's database in front of each.
 */
import { TokenKind, type LexedText } from '../parameterize/index.js';

/** Words after which, at the same depth, the FROM list is over. */
const FROM_LIST_END = new Set(['WHERE', 'GROUP', 'HAVING', 'ORDER', 'LIMIT', 'UNION', 'WINDOW', 'FOR', 'LOCK', 'INTO', 'ON', 'USING']);

/** Where the tables of a statement's FROM lists are (offsets of their names), and whether it has a WITH clause. */
export interface TablePositions {
  readonly positions: readonly number[];
  readonly hasWith: boolean;
}

/** The name a token stands for: a quoted identifier unquoted, a word as written. */
function nameAt(sql: string, tokens: LexedText, i: number): string {
  const text = sql.slice(tokens.starts[i], tokens.ends[i]);
  return tokens.kinds[i] === TokenKind.QuotedIdent ? text.slice(1, -1).replace(/``/g, '`') : text;
}

/**
 * Every table reference of a FROM list — after FROM, after JOIN, and after the commas of a
 * comma join (`FROM orders o, order_items i`) — that names a table `isTable` knows and is not
 * qualified already. The caller compares their number with the tables the planner saw.
 */
export function tablePositions(sql: string, tokens: LexedText, isTable: (name: string) => boolean): TablePositions {
  const count = tokens.count;
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
      // `JOIN (b INNER JOIN c ON …)`: a parenthesised join is a FROM list of its own (a derived
      // table's parenthesis opens a SELECT, whose FROM opens its list).
      const group: boolean = expectTable && inFromList && !opensQuery(sql, tokens, i + 1);
      if (group) fromDepths.push(depth);
      expectTable = group;
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
    if (isTable(nameAt(sql, tokens, i))) positions.push(tokens.starts[i]!);
  }
  return { positions, hasWith };
}

/** True when the token at `i` begins a query (`SELECT`, `WITH`, `VALUES`, `TABLE`, or another parenthesis). */
function opensQuery(sql: string, tokens: LexedText, i: number): boolean {
  if (i >= tokens.count) return false;
  if (tokens.kinds[i] === TokenKind.Open) return true;
  if (tokens.kinds[i] !== TokenKind.Word) return false;
  const word = sql.slice(tokens.starts[i], tokens.ends[i]).toUpperCase();
  return word === 'SELECT' || word === 'WITH' || word === 'VALUES' || word === 'TABLE';
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
export function singleWriteTarget(sql: string, tokens: LexedText, isTable: (name: string) => boolean): TablePositions | undefined {
  const count = tokens.count;
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
  if (!isTable(nameAt(sql, tokens, at))) return undefined;
  // `DELETE FROM t` counts its own FROM once; any other FROM / JOIN / SELECT brings tables.
  for (let j = at + 1; j < count; j++) if (MORE_TABLES.has(word(j))) return undefined;
  if (verb === 'UPDATE' && tokens.kinds[at + 1] === TokenKind.Comma) return undefined;
  return { positions: [tokens.starts[at]!], hasWith: false };
}
