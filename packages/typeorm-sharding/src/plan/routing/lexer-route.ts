/**
 * Routing by the lexer alone, for a statement node-sql-parser cannot read (issue 14): it is
 * still answered exactly when the lexer shows that all of it runs on one shard, chosen by its
 * shard key, so that nothing needs merging and the shard answers as one database would.
 *
 * Only a narrow shape qualifies, every part checked on the tokens: one SELECT, UPDATE or DELETE
 * of one sharded table (no JOIN, no second table, no subquery, no set operation, no CTE, no
 * user variable, no table layout, no global index to maintain), whose WHERE holds a top-level
 * conjunct `key = value` (parentheses and ANDs around it are followed; OR, XOR, `||`, `&&` and
 * BETWEEN at that level are not), and an UPDATE that does not assign the key. Anything else is
 * left to the caller, which refuses it.
 */
import { lexedOf, TokenKind, type ParameterizedSql, type SqlDialect } from '../../parameterize/index.js';
import type { ShardingRules } from '../../rules/index.js';
import type { KeyCondition, SelectPlan, WritePlan } from '../plan.js';

interface Token {
  readonly kind: number;
  /** Upper-case text for words, the name for quoted identifiers, the text otherwise. */
  readonly text: string;
  readonly start: number;
  readonly depth: number;
}

/** Words that end the FROM item or start a clause after it. */
const CLAUSE_WORDS = new Set(['WHERE', 'GROUP', 'HAVING', 'ORDER', 'LIMIT', 'WINDOW', 'FOR', 'LOCK', 'INTO', 'RETURNING', 'SET', 'JOIN', 'INNER', 'LEFT', 'RIGHT', 'CROSS', 'NATURAL', 'STRAIGHT_JOIN', 'USE', 'FORCE', 'IGNORE', 'PARTITION', 'ON', 'USING']);
/** Words that end a WHERE clause at its own level. */
const AFTER_WHERE = new Set(['GROUP', 'HAVING', 'ORDER', 'LIMIT', 'WINDOW', 'FOR', 'LOCK', 'INTO', 'RETURNING', 'UNION', 'EXCEPT', 'INTERSECT']);
/** Words that make the statement more than one read of one table. */
const REFUSED_WORDS = new Set(['UNION', 'EXCEPT', 'INTERSECT', 'WITH', 'JOIN', 'STRAIGHT_JOIN', 'LATERAL', 'VALUES', 'TABLE']);

/** The plan of a statement the lexer routes to one shard, or undefined when it cannot. */
export function lexerRoutedPlan(p: ParameterizedSql, rules: ShardingRules, dialect: SqlDialect): SelectPlan | WritePlan | undefined {
  const verb = p.verb;
  if (verb !== 'SELECT' && verb !== 'UPDATE' && verb !== 'DELETE') return undefined;
  const tokens = tokensOf(p, dialect);
  if (tokens.some((t) => t.kind === TokenKind.Semicolon || (t.kind === TokenKind.Opaque && p.sql[t.start] === '@'))) return undefined;
  const words = tokens.filter((t) => t.kind === TokenKind.Word);
  if (words.some((t) => REFUSED_WORDS.has(t.text)) || words.filter((t) => t.text === 'SELECT').length !== (verb === 'SELECT' ? 1 : 0)) return undefined;
  const from = tableOf(tokens, verb);
  if (!from) return undefined;
  const rule = rules.ruleOf(from.table);
  const key = rule?.shardKey;
  if (!rule || rule.distribution !== 'sharded' || !key || key.layout) return undefined;
  if (verb !== 'SELECT' && rules.globalIndexesOf(rule.tableName).length > 0) return undefined;
  // One table only: any other identifier naming a distributed table may be a second reference.
  for (const t of tokens) {
    if ((t.kind === TokenKind.Word || t.kind === TokenKind.QuotedIdent) && t.text.toLowerCase() !== from.table.toLowerCase() && rules.distributionOf(t.kind === TokenKind.Word ? t.text.toLowerCase() : t.text) !== 'unsharded') return undefined;
  }
  const where = tokens.findIndex((t) => t.depth === 0 && t.kind === TokenKind.Word && t.text === 'WHERE');
  if (where < 0) return undefined;
  let end = where + 1;
  while (end < tokens.length && !(tokens[end]!.depth === 0 && tokens[end]!.kind === TokenKind.Word && AFTER_WHERE.has(tokens[end]!.text))) end++;
  if (verb === 'UPDATE' && assignsKey(tokens.slice(0, where), key.columnName)) return undefined;
  const isKey = (i: number, j: number) => keyTerm(tokens, i, j, key.columnName, [from.table, from.alias], p, dialect);
  const slots = keySlotsOf(tokens, where + 1, end, isKey, dialect);
  if (slots.length === 0) return undefined;
  const values: KeyCondition[] = slots.map((slot) => ({ kind: 'values', refs: [{ kind: 'slot', slot }] }));
  const condition: KeyCondition = values.length === 1 ? values[0]! : { kind: 'and', terms: values };
  if (verb !== 'SELECT') return { kind: 'write', table: rule.tableName, condition, prunableLists: [], limited: true, keyAssignment: undefined };
  return {
    kind: 'select',
    table: rule.tableName,
    condition,
    prunableLists: [],
    limit: undefined,
    pushLimit: false,
    merge: undefined,
    having: undefined,
    computed: [],
    extraGroupBy: [],
    itemAliases: [],
    exactIntegers: false,
    listedOrder: undefined,
    cutHaving: false,
    shardHaving: undefined,
    checkOriginal: false,
    unionSafe: false,
    // Routed nowhere (`key = NULL`), it still runs once: an aggregate the lexer cannot see answers a row.
    globalAggregate: true,
    tableReferences: undefined,
    derivedColumns: [],
    unmergeable: 'its SQL parser cannot read it, so it runs only where its shard-key condition sends it: one shard',
  };
}

function tokensOf(p: ParameterizedSql, dialect: SqlDialect): Token[] {
  const lexed = lexedOf(p, dialect);
  const out: Token[] = [];
  let depth = 0;
  for (let i = 0; i < lexed.count; i++) {
    const kind = lexed.kinds[i]!;
    const start = lexed.starts[i]!;
    const raw = p.sql.slice(start, lexed.ends[i]);
    if (kind === TokenKind.Close) depth--;
    const text = kind === TokenKind.Word ? raw.toUpperCase() : kind === TokenKind.QuotedIdent ? raw.slice(1, -1).replace(/``|""/g, (q) => q[0]!) : raw;
    out.push({ kind, text, start, depth });
    if (kind === TokenKind.Open) depth++;
  }
  return out;
}

/** The one table the statement reads or writes, and its alias: `FROM t [AS] a WHERE`, `UPDATE t [a] SET`, `DELETE FROM t [a] WHERE`. */
function tableOf(tokens: readonly Token[], verb: string): { table: string; alias: string | undefined } | undefined {
  let i: number;
  if (verb === 'UPDATE') {
    i = 1;
    while (tokens[i]?.kind === TokenKind.Word && (tokens[i]!.text === 'LOW_PRIORITY' || tokens[i]!.text === 'IGNORE')) i++;
  } else {
    const from = tokens.findIndex((t) => t.depth === 0 && t.kind === TokenKind.Word && t.text === 'FROM');
    if (from < 0) return undefined;
    if (verb === 'DELETE' && tokens.slice(1, from).some((t) => !(t.kind === TokenKind.Word && ['LOW_PRIORITY', 'QUICK', 'IGNORE'].includes(t.text)))) return undefined;
    i = from + 1;
  }
  const name = tokens[i];
  if (!name || (name.kind !== TokenKind.Word && name.kind !== TokenKind.QuotedIdent) || tokens[i + 1]?.kind === TokenKind.Dot) return undefined;
  const table = name.kind === TokenKind.Word ? name.text.toLowerCase() : name.text;
  let next = i + 1;
  if (tokens[next]?.kind === TokenKind.Word && tokens[next]!.text === 'AS') next++;
  let alias: string | undefined;
  const candidate = tokens[next];
  if (candidate && (candidate.kind === TokenKind.QuotedIdent || (candidate.kind === TokenKind.Word && !CLAUSE_WORDS.has(candidate.text)))) {
    alias = candidate.kind === TokenKind.Word ? candidate.text.toLowerCase() : candidate.text;
    next++;
  }
  // Right after the table: its WHERE (SELECT, DELETE) or SET (UPDATE); a comma, a JOIN or a hint is another shape.
  const after = tokens[next];
  if (!after || after.depth !== 0 || after.kind !== TokenKind.Word || after.text !== (verb === 'UPDATE' ? 'SET' : 'WHERE')) return undefined;
  return { table, alias };
}

/** True when the SET list of an UPDATE assigns a column named like the key (`key = …`, `t.key = …`). */
function assignsKey(tokens: readonly Token[], keyColumn: string): boolean {
  const set = tokens.findIndex((t) => t.depth === 0 && t.kind === TokenKind.Word && t.text === 'SET');
  for (let i = set + 1; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (tokens[i + 1]?.text === '=' && (t.kind === TokenKind.Word || t.kind === TokenKind.QuotedIdent) && t.text.toLowerCase() === keyColumn.toLowerCase()) return true;
  }
  return false;
}

/** The value slots of the top-level `key = value` conjuncts of tokens [i, j). */
function keySlotsOf(tokens: readonly Token[], i: number, j: number, isKey: (i: number, j: number) => number | undefined, dialect: SqlDialect): number[] {
  if (i >= j) return [];
  // Wrapped whole in one pair of parentheses: the same conjunction inside.
  if (tokens[i]!.kind === TokenKind.Open && closingOf(tokens, i) === j - 1) return keySlotsOf(tokens, i + 1, j - 1, isKey, dialect);
  let base = Infinity;
  for (let k = i; k < j; k++) base = Math.min(base, tokens[k]!.depth);
  const cuts: number[] = [];
  for (let k = i; k < j; k++) {
    const t = tokens[k]!;
    if (t.depth !== base) continue;
    if (t.kind === TokenKind.Word && (t.text === 'OR' || t.text === 'XOR' || t.text === 'BETWEEN')) return [];
    if (t.kind === TokenKind.Operator && (t.text === '&&' || (t.text === '||' && dialect === 'mysql'))) return [];
    if (t.kind === TokenKind.Word && t.text === 'AND') cuts.push(k);
  }
  if (cuts.length === 0) {
    const slot = isKey(i, j);
    return slot === undefined ? [] : [slot];
  }
  const out: number[] = [];
  let from = i;
  for (const cut of [...cuts, j]) {
    out.push(...keySlotsOf(tokens, from, cut, isKey, dialect));
    from = cut + 1;
  }
  return out;
}

function closingOf(tokens: readonly Token[], open: number): number {
  const depth = tokens[open]!.depth;
  for (let k = open + 1; k < tokens.length; k++) if (tokens[k]!.kind === TokenKind.Close && tokens[k]!.depth === depth) return k;
  return -1;
}

/** The slot of tokens [i, j) when they are exactly `[q.]key = value` or `value = [q.]key`. */
function keyTerm(tokens: readonly Token[], i: number, j: number, keyColumn: string, names: readonly (string | undefined)[], p: ParameterizedSql, dialect: SqlDialect): number | undefined {
  const part = tokens.slice(i, j);
  const eq = part.findIndex((t) => t.kind === TokenKind.Operator && t.text === '=');
  if (eq < 0) return undefined;
  const left = part.slice(0, eq);
  const right = part.slice(eq + 1);
  const column = (side: readonly Token[]) => isKeyColumn(side, keyColumn, names, dialect);
  const slot = (side: readonly Token[]) => (side.length === 1 ? p.slots.findIndex((s) => s.start === side[0]!.start) : -1);
  if (column(left) && slot(right) >= 0) return slot(right);
  if (column(right) && slot(left) >= 0) return slot(left);
  return undefined;
}

function isKeyColumn(side: readonly Token[], keyColumn: string, names: readonly (string | undefined)[], dialect: SqlDialect): boolean {
  const name = (t: Token | undefined) => (t && (t.kind === TokenKind.Word || t.kind === TokenKind.QuotedIdent) ? (t.kind === TokenKind.Word ? t.text.toLowerCase() : t.text) : undefined);
  const same = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined && (dialect === 'sqlite' ? a.toLowerCase() === b.toLowerCase() : a.toLowerCase() === b.toLowerCase());
  if (side.length === 1) return same(name(side[0]), keyColumn);
  if (side.length === 3 && side[1]!.kind === TokenKind.Dot) return same(name(side[2]), keyColumn) && names.some((n) => same(name(side[0]), n));
  return false;
}
