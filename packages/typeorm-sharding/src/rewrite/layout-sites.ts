/**
 * Where a statement names tables that have a table-per-shard layout, in every spelling and
 * quoting, read from its tokens (`lexedOf`, once per text): as table references (after FROM,
 * JOIN, INTO, UPDATE, TABLE, REFERENCES, a FROM list's commas, `ON` of CREATE INDEX, …, with or
 * without a database in front) and as qualifiers of columns (`orders.id`, `db.orders.id`), a
 * qualifier only when no alias of the statement has that name. TypeORM's SQLite rebuild copy
 * `temporary_<table>` counts as its table. Each unit's statement writes its own physical table
 * at these sites (`tokens/table-names.ts`).
 */
import type { TableLayout } from '../algorithms/index.js';
import { TokenKind, type LexedText, type SqlDialect } from '../parameterize/index.js';
import { SQL_KEYWORDS } from '../parameterize/keywords.js';

/** One place the statement names a table of a layout. */
export interface LayoutSite {
  readonly start: number;
  readonly end: number;
  /** The name as written, unquoted (its spelling is kept in the physical name). */
  readonly name: string;
  /** The quote it is written in: '', '`' or '"'. */
  readonly quote: string;
  /** `temporary_` for TypeORM's rebuild copy of the table, else ''. */
  readonly prefix: string;
  readonly layout: TableLayout;
}

/** Index, key and constraint names of DDL on a layout's tables: each physical table's get its index as suffix. */
export interface NameSite {
  readonly start: number;
  readonly end: number;
  readonly name: string;
  readonly quote: string;
}

/** Words after which a table name comes. */
const BEFORE_TABLE = new Set(['FROM', 'JOIN', 'STRAIGHT_JOIN', 'INTO', 'UPDATE', 'TABLE', 'REFERENCES', 'TRUNCATE']);
/** Words after which, at the same depth, a FROM list is over. */
const FROM_LIST_END = new Set(['WHERE', 'GROUP', 'HAVING', 'ORDER', 'LIMIT', 'UNION', 'EXCEPT', 'INTERSECT', 'WINDOW', 'FOR', 'LOCK', 'INTO', 'ON', 'USING', 'SET', 'RETURNING']);
/** Words that follow a table reference without being its alias. */
const NOT_ALIAS = new Set([
  ...FROM_LIST_END, 'AS', 'JOIN', 'INNER', 'LEFT', 'RIGHT', 'CROSS', 'NATURAL', 'STRAIGHT_JOIN', 'FULL', 'OUTER', 'VALUES', 'VALUE', 'SELECT',
  'PARTITION', 'USE', 'FORCE', 'IGNORE', 'INDEXED', 'NOT', 'DEFAULT', 'ADD', 'DROP', 'ALTER', 'CHANGE', 'MODIFY', 'RENAME', 'ENGINE', 'LIKE',
  'CHARACTER', 'CHARSET', 'COLLATE', 'COMMENT', 'AUTO_INCREMENT', 'ROW_FORMAT', 'WITHOUT', 'STRICT', 'TO', 'CASCADE', 'RESTRICT', 'DELETE',
  'FORCE', 'LOW_PRIORITY', 'QUICK', 'IF', 'EXISTS', 'DO', 'ORDER', 'CONVERT', 'DISCARD', 'IMPORT', 'OPTIMIZE', 'ANALYZE',
]);

interface Reader {
  readonly sql: string;
  readonly tokens: LexedText;
  word(i: number): string;
  name(i: number): { text: string; quote: string } | undefined;
}

function readerOf(sql: string, tokens: LexedText): Reader {
  return {
    sql,
    tokens,
    word: (i) => (i >= 0 && i < tokens.count && tokens.kinds[i] === TokenKind.Word ? sql.slice(tokens.starts[i], tokens.ends[i]).toUpperCase() : ''),
    name: (i) => {
      if (i < 0 || i >= tokens.count) return undefined;
      const text = sql.slice(tokens.starts[i], tokens.ends[i]);
      if (tokens.kinds[i] === TokenKind.Word) return { text, quote: '' };
      if (tokens.kinds[i] !== TokenKind.QuotedIdent) return undefined;
      const quote = text[0]!;
      return { text: text.slice(1, -1).split(quote + quote).join(quote), quote };
    },
  };
}

/**
 * The sites of `layoutOf`'s tables in a statement (empty when it names none). `layoutOf`
 * answers the layout of a table name (any case), or undefined.
 */
export function layoutSitesOf(sql: string, tokens: LexedText, _dialect: SqlDialect, layoutOf: (name: string) => TableLayout | undefined): LayoutSite[] {
  const r = readerOf(sql, tokens);
  const count = tokens.count;
  const verb = r.word(0);
  const ddl = verb === 'CREATE' || verb === 'DROP' || verb === 'ALTER' || verb === 'RENAME';
  const tablePosition = tablePositionsOf(r, verb, ddl);
  const aliases = new Set<string>();
  const found: { site: LayoutSite; qualifier: boolean }[] = [];
  for (let i = 0; i < count; i++) {
    const written = r.name(i);
    if (!written) continue;
    const match = matchLayout(written.text, layoutOf);
    const prevDot = tokens.kinds[i - 1] === TokenKind.Dot;
    const nextDot = tokens.kinds[i + 1] === TokenKind.Dot;
    const atTable = prevDot ? tablePosition.has(i - 2) : tablePosition.has(i);
    if (atTable && !nextDot) {
      const alias = aliasAfter(r, i);
      if (alias !== undefined) aliases.add(alias.toLowerCase());
    }
    if (!match) continue;
    // `t.col` and `db.t.col`: a qualifier; `db.t` in a table position: the table; `t.x` there: a database.
    const isTable = prevDot ? nextDot || atTable : nextDot ? !atTable : atTable;
    if (!isTable) continue;
    const site: LayoutSite = { start: tokens.starts[i]!, end: tokens.ends[i]!, name: match.name, quote: written.quote, prefix: match.prefix, layout: match.layout };
    found.push({ site, qualifier: nextDot && !atTable });
  }
  // A qualifier names an alias when one of the statement's aliases is so named: then it stays.
  return found.filter((f) => !f.qualifier || !aliases.has((f.site.prefix + f.site.name).toLowerCase())).map((f) => f.site);
}

function matchLayout(text: string, layoutOf: (name: string) => TableLayout | undefined): { name: string; prefix: string; layout: TableLayout } | undefined {
  const own = layoutOf(text);
  if (own) return { name: text, prefix: '', layout: own };
  const prefix = 'temporary_';
  if (text.length > prefix.length && text.slice(0, prefix.length).toLowerCase() === prefix) {
    const copied = layoutOf(text.slice(prefix.length));
    if (copied) return { name: text.slice(prefix.length), prefix: text.slice(0, prefix.length), layout: copied };
  }
  return undefined;
}

/** Indexes of the tokens that stand where a table name does (the name itself, or the database before `.table`). */
function tablePositionsOf(r: Reader, verb: string, ddl: boolean): Set<number> {
  const { tokens } = r;
  const out = new Set<number>();
  let depth = 0;
  const fromDepths: number[] = [];
  let inTableList = false;
  for (let i = 0; i < tokens.count; i++) {
    const kind = tokens.kinds[i];
    if (kind === TokenKind.Open) {
      // `JOIN (b INNER JOIN c ON …)`: the parenthesised join's first table (its others follow a JOIN).
      const next = r.word(i - 1) === 'JOIN' ? nextNameToken(r, i) : undefined;
      if (next !== undefined && !QUERY_WORDS.has(r.word(next))) out.add(next);
      depth++;
      continue;
    }
    if (kind === TokenKind.Close) {
      if (fromDepths[fromDepths.length - 1] === depth) fromDepths.pop();
      depth--;
      continue;
    }
    const word = r.word(i);
    const inFromList = fromDepths[fromDepths.length - 1] === depth;
    if (word === 'FROM' && !inFromList) fromDepths.push(depth);
    // A join's ON / USING does not end the FROM list: a comma join may follow it.
    else if (inFromList && FROM_LIST_END.has(word) && word !== 'ON' && word !== 'USING') fromDepths.pop();
    if (depth === 0 && (verb === 'DROP' || verb === 'RENAME') && (word === 'TABLE' || word === 'TABLES')) inTableList = true;
    const next = nextNameToken(r, i);
    if (next === undefined) continue;
    const introduces =
      BEFORE_TABLE.has(word) ||
      (kind === TokenKind.Comma && (inFromList || (inTableList && depth === 0))) ||
      (word === 'EXISTS' && (r.word(i - 1) === 'IF' || r.word(i - 1) === 'NOT')) ||
      (ddl && word === 'ON' && depth === 0) ||
      (ddl && word === 'LIKE' && depth === 0) ||
      ((word === 'TO' || word === 'AS') && (r.word(i - 1) === 'RENAME' || (verb === 'RENAME' && depth === 0))) ||
      (verb === 'UPDATE' && (word === 'LOW_PRIORITY' || word === 'IGNORE'));
    if (introduces) out.add(next);
  }
  return out;
}

/** Words that open a query in parentheses (a derived table), not a table name. */
const QUERY_WORDS = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE']);

/** Words between a table-introducing word and the name: they introduce the name themselves. */
const BEFORE_NAME = new Set(['IF', 'ONLY', 'LOW_PRIORITY', 'IGNORE', 'QUICK', 'DELAYED', 'HIGH_PRIORITY']);

/** The token after `i` when it is a name (not a modifier or `IF [NOT] EXISTS`, which introduce one themselves). */
function nextNameToken(r: Reader, i: number): number | undefined {
  const j = i + 1;
  return r.name(j) && !(r.tokens.kinds[j] === TokenKind.Word && BEFORE_NAME.has(r.word(j))) ? j : undefined;
}

/** The alias after a table reference at token `i`, if it has one. */
function aliasAfter(r: Reader, i: number): string | undefined {
  let j = i + 1;
  if (r.word(j) === 'AS') j++;
  const name = r.name(j);
  if (!name) return undefined;
  if (r.tokens.kinds[j] === TokenKind.Word && NOT_ALIAS.has(name.text.toUpperCase())) return undefined;
  return name.text;
}

/**
 * The index, key and constraint names a DDL statement declares or names (`INDEX i`, `KEY k`,
 * `CONSTRAINT c`, `CREATE INDEX i ON`, `DROP INDEX i`, `DROP FOREIGN KEY f`, `RENAME INDEX a TO b`):
 * on a layout's tables each physical table's get its own suffix, since SQLite names indexes
 * and MySQL foreign keys per database. A primary key's constraint name is left alone.
 */
export function ddlNameSitesOf(sql: string, tokens: LexedText): NameSite[] {
  const r = readerOf(sql, tokens);
  const out: NameSite[] = [];
  const add = (j: number) => {
    const name = r.name(j);
    if (name) out.push({ start: tokens.starts[j]!, end: tokens.ends[j]!, name: name.text, quote: name.quote });
  };
  for (let i = 0; i < tokens.count; i++) {
    const word = r.word(i);
    if (word !== 'INDEX' && word !== 'KEY' && word !== 'CONSTRAINT' && word !== 'CHECK') continue;
    let j = i + 1;
    if (r.word(j) === 'IF') j += r.word(j + 1) === 'NOT' ? 3 : 2;
    if (!r.name(j) || tokens.kinds[j + 1] === TokenKind.Dot) continue;
    // `PRIMARY KEY NOT NULL`, `KEY (cols)`, `INDEX USING …`: a keyword is no name (a name that is one must be quoted).
    if (tokens.kinds[j] === TokenKind.Word && SQL_KEYWORDS.has(r.word(j))) continue;
    if (word === 'KEY' && (r.word(i - 1) === 'PRIMARY' || (r.word(i - 1) === 'FOREIGN' && r.word(i - 2) !== 'DROP'))) continue;
    if (word === 'CHECK' && r.word(i - 1) !== 'DROP') continue;
    if (word === 'CONSTRAINT' && r.word(j + 1) === 'PRIMARY') continue;
    add(j);
    // RENAME INDEX a TO b: b is an index name too.
    if ((word === 'INDEX' || word === 'KEY') && r.word(i - 1) === 'RENAME' && r.word(j + 1) === 'TO') add(j + 2);
  }
  return out;
}
