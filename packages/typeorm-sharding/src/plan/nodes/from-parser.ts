/**
 * The one place that reads node-sql-parser's output: parses the parser text of a statement
 * with the MySQL grammar and converts it into the planner's typed nodes (`sql-node.ts`).
 * Nothing outside this file knows the parser's field names.
 *
 * The conversion is total and closed-world. Every node kind the grammar produces for a
 * SELECT, UPDATE or DELETE has a case in {@link EXPRESSION_KINDS} (the compiler checks the
 * table against {@link ParserExpressionKind}), and every raw object is checked against the
 * fields its case knows: a kind, field or clause the converter does not model (a user
 * variable, `SELECT … INTO`, a parenthesised join, a field a later parser version adds) raises
 * {@link UnsupportedConstructError} naming it, which `analyze` turns into
 * `UnsupportedShardingError`. Nothing is dropped on the way.
 */
import nsp from 'node-sql-parser/build/mysql.js';
import { stripNullsOrdering } from './nulls-ordering.js';
import type {
  AggregateNode,
  CommonTableExpression,
  DeleteNode,
  FrameBound,
  FromItem,
  LimitClause,
  NamedWindow,
  OrderItem,
  SelectItem,
  SelectNode,
  SqlNode,
  StatementNode,
  TableSource,
  UpdateNode,
  WindowFrame,
  WindowSpec,
  WithClause,
} from './sql-node.js';

/** A node of node-sql-parser's tree, read field by field with the accessors below. */
type Raw = { readonly [key: string]: unknown };

const parser = new nsp.Parser();

/** node-sql-parser rejected the text (its message is kept). */
export class ParserSyntaxError extends Error {
  /** Offset in the parser text where the grammar stopped, when it says. */
  readonly offset: number | undefined;

  constructor(message: string, offset: number | undefined) {
    super(message);
    this.offset = offset;
  }
}

/**
 * The statement holds a construct the planner does not model. `construct` names it in SQL's
 * words (`a user variable (@v)`, `SELECT … INTO`), for the refusal the user reads.
 */
export class UnsupportedConstructError extends Error {
  constructor(readonly construct: string) {
    super(`unsupported: ${construct}`);
  }
}

function refuse(construct: string): never {
  throw new UnsupportedConstructError(construct);
}

/**
 * The deepest nesting of expressions (and of parentheses in the text) the planner follows: its
 * walks recurse per level, and so does the parser. An AND / OR chain of a WHERE or ON condition
 * is not nesting (TypeORM's `findBy()` of thousands of keys): it is converted and walked link by
 * link. Anywhere else a chain counts one level per link.
 */
export const MAX_NESTING = 1000;

const TOO_DEEP = `expressions nested more than ${MAX_NESTING} levels deep (write the statement flatter: an IN list instead of nested ORs, fewer parentheses)`;

/** The deepest nesting of parentheses in a parser text (quoted names skipped; its values are `:p<n>` slots). */
function parenthesisDepthOf(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 96 /* ` */) {
      const end = text.indexOf('`', i + 1);
      if (end < 0) break;
      i = end;
    } else if (c === 39 /* ' */ || c === 34 /* " */) {
      // A string the parser text still holds: skip it (a doubled quote reads as two strings, which skips the same).
      const end = text.indexOf(text[i]!, i + 1);
      if (end < 0) break;
      i = end;
    } else if (c === 40 /* ( */) {
      if (++depth > max) max = depth;
    } else if (c === 41 /* ) */) {
      depth--;
    }
  }
  return max;
}

/** The parser text being converted (for the few misreadings told apart by the text). */
let parsing = '';

/** Expression levels being converted now (see {@link MAX_NESTING}). */
let nesting = 0;
/** True while the expression converted next is a WHERE / ON condition or a link of its AND / OR chain. */
let conditionChain = false;

/** A WHERE or ON condition: its AND / OR chains are not nesting. */
function conditionOf(value: unknown): SqlNode | undefined {
  if (absent(value)) return undefined;
  conditionChain = true;
  try {
    return exprOf(value);
  } finally {
    conditionChain = false;
  }
}

/** The statement kinds the planner analyses. */
export type ParsedKind = StatementNode['kind'];

/**
 * Parses `parserSql` (MySQL grammar) into typed nodes. Throws `ParserSyntaxError` when the
 * grammar rejects the text, `UnsupportedConstructError` when it holds a construct the planner
 * does not model, and returns undefined for a statement of another kind.
 */
export function parseStatement(parserSql: string): StatementNode | undefined {
  // The grammar recurses once per parenthesis: a text nested deeper is refused before it is read.
  if (parenthesisDepthOf(parserSql) > MAX_NESTING) refuse(TOO_DEEP);
  const { text, nulls } = stripNullsOrdering(parserSql);
  parsing = text;
  let tree: unknown;
  try {
    tree = parser.astify(text, { database: 'MySQL' });
  } catch (error) {
    // Nesting the count above does not see (the grammar's own recursion on other constructs).
    if (error instanceof RangeError) refuse(TOO_DEEP);
    const offset = (error as { location?: { start?: { offset?: unknown } } }).location?.start?.offset;
    throw new ParserSyntaxError((error as Error).message, typeof offset === 'number' ? offset : undefined);
  }
  if (Array.isArray(tree) && tree.length > 1) refuse('several statements in one query');
  const root = (Array.isArray(tree) ? tree[0] : tree) as Raw | undefined;
  switch (root?.type) {
    case 'select': {
      const select = selectOf(root);
      if (nulls.length === 0) return select;
      return { ...select, orderBy: select.orderBy.map((o, i) => (nulls[i] ? { ...o, nulls: nulls[i] } : o)) };
    }
    case 'update':
      return updateOf(root);
    case 'delete':
      return deleteOf(root);
    default:
      return undefined;
  }
}

// --- accessors ----------------------------------------------------------------------------

function isRaw(value: unknown): value is Raw {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Null, undefined or an empty list: the parser's ways of saying a clause is not written. */
function absent(value: unknown): boolean {
  return value === null || value === undefined || (Array.isArray(value) && value.length === 0);
}

/** The items of a list field (a single object counts as a list of one). */
function rawList(value: unknown, what: string): Raw[] {
  if (absent(value)) return [];
  const items = Array.isArray(value) ? value : [value];
  return items.map((item) => (isRaw(item) ? item : refuse(`${what} of an unexpected form`)));
}

/** Fields any node may carry that change nothing: position info and grouping parentheses. */
const NEUTRAL_FIELDS = new Set(['loc', 'parentheses']);

/**
 * Refuses a raw object holding a field its case does not know (position info and grouping
 * parentheses aside): a field the converter would otherwise drop silently.
 */
function expectFields(raw: Raw, known: readonly string[], what: string): void {
  for (const key of Object.keys(raw)) {
    if (NEUTRAL_FIELDS.has(key) || known.includes(key)) continue;
    if (absent(raw[key])) continue;
    refuse(`${what} with a "${key}" part (not modelled by typeorm-sharding)`);
  }
}

/** A field that must not be written (its clause is not modelled). */
function expectAbsent(value: unknown, construct: string): void {
  if (!absent(value)) refuse(construct);
}

/** The text of a name: a string, `{ value }`, `{ expr: { value } }` or `{ name: [{ value }] }`. */
function nameOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!isRaw(value)) return undefined;
  if (typeof value.value === 'string') return value.value;
  if (Array.isArray(value.name)) return value.name.map(nameOf).filter((n) => n !== undefined).join('.');
  if (value.expr !== undefined) return nameOf(value.expr);
  return undefined;
}

function requiredName(value: unknown, what: string): string {
  return nameOf(value) ?? refuse(`${what} of an unexpected form`);
}

// --- statements ---------------------------------------------------------------------------

const SELECT_FIELDS = [
  'type', 'with', 'options', 'distinct', 'columns', 'into', 'from', 'where', 'groupby', 'having', 'orderby', 'limit',
  'locking_read', 'window', 'collate', '_next', 'set_op', 'parentheses_symbol', '_parentheses', 'parentheses',
] as const;

function selectOf(raw: Raw): SelectNode {
  expectFields(raw, SELECT_FIELDS, 'a SELECT');
  // The ORDER BY / LIMIT of a whole parenthesised compound (`(SELECT …) UNION (SELECT …) ORDER BY …`).
  expectAbsent(raw._orderby, 'ORDER BY after a UNION / EXCEPT / INTERSECT inside a subquery or CTE');
  expectAbsent(raw._limit, 'LIMIT after a UNION / EXCEPT / INTERSECT inside a subquery or CTE');
  expectAbsent(raw.collate, 'COLLATE after a SELECT');
  if (isRaw(raw.into) && !absent(raw.into.position)) refuse('SELECT … INTO (a variable or a file)');
  const items: SelectItem[] = raw.columns === '*' ? [{ expr: { kind: 'star', table: undefined }, alias: undefined }] : rawList(raw.columns, 'a select item').map(selectItemOf);
  const next = isRaw(raw._next) ? raw._next : undefined;
  if (raw.distinct !== null && raw.distinct !== undefined && !(typeof raw.distinct === 'string' && raw.distinct.toUpperCase() === 'DISTINCT')) refuse(`SELECT ${String(nameOf(raw.distinct) ?? 'with a DISTINCT form')}`);
  const { groupBy, rollup } = groupByOf(raw.groupby);
  return {
    kind: 'select',
    distinct: typeof raw.distinct === 'string',
    items,
    from: fromOf(raw.from),
    where: conditionOf(raw.where),
    groupBy,
    rollup,
    having: optionalExpr(raw.having),
    orderBy: orderOf(raw.orderby),
    limit: limitOf(raw.limit),
    locking: lockingOf(raw.locking_read),
    with: withOf(raw.with),
    windows: namedWindowsOf(raw.window),
    options: optionsOf(raw.options),
    compound: next ? { op: String(raw.set_op ?? 'union').toUpperCase(), next: selectOf(next) } : undefined,
  };
}

function selectItemOf(raw: Raw): SelectItem {
  expectFields(raw, ['expr', 'as', 'type'], 'a select item');
  // The grammar reads `SELECT BINARY x` as the column BINARY named x: the operator is refused.
  const expr = isRaw(raw.expr) ? raw.expr : undefined;
  if (expr?.type === 'column_ref' && absent(expr.table) && String(expr.column).toUpperCase() === 'BINARY' && !absent(raw.as) && UNQUOTED_BINARY.test(parsing)) {
    refuse('the BINARY operator in a select item (the SQL parser reads `BINARY x` as a column named BINARY; write CAST(x AS BINARY) instead)');
  }
  return { expr: exprOf(raw.expr), alias: nameOf(raw.as) };
}

/** The keyword BINARY outside quotes (the parser text quotes every name in backticks). */
const UNQUOTED_BINARY = /(^|[^`\w])BINARY\s+[`:(\w]/i;

function groupByOf(value: unknown): { groupBy: SqlNode[]; rollup: boolean } {
  if (absent(value)) return { groupBy: [], rollup: false };
  const raw = isRaw(value) ? value : refuse('GROUP BY of an unexpected form');
  expectFields(raw, ['columns', 'modifiers'], 'GROUP BY');
  let rollup = false;
  for (const modifier of Array.isArray(raw.modifiers) ? raw.modifiers : []) {
    if (absent(modifier)) continue;
    if (isRaw(modifier) && modifier.type === 'origin' && String(modifier.value).toLowerCase() === 'with rollup') rollup = true;
    else refuse(`GROUP BY … ${String(nameOf(modifier) ?? 'with a modifier')}`);
  }
  return { groupBy: rawList(raw.columns, 'a GROUP BY item').map(exprOf), rollup };
}

function lockingOf(value: unknown): string | undefined {
  if (absent(value)) return undefined;
  if (typeof value === 'string') return value.toUpperCase();
  return refuse('a locking clause of an unexpected form');
}

function optionsOf(value: unknown): string[] {
  if (absent(value)) return [];
  if (!Array.isArray(value)) return refuse('select options of an unexpected form');
  return value.map((o) => (typeof o === 'string' ? o.toUpperCase() : (nameOf(o)?.toUpperCase() ?? refuse('a select option of an unexpected form'))));
}

function withOf(value: unknown): WithClause | undefined {
  const ctes = rawList(value, 'a common table expression');
  if (ctes.length === 0) return undefined;
  return { recursive: ctes.some((c) => c.recursive === true), ctes: ctes.map(cteOf) };
}

function cteOf(raw: Raw): CommonTableExpression {
  expectFields(raw, ['name', 'stmt', 'columns', 'recursive'], 'a common table expression');
  const stmt = isRaw(raw.stmt) ? raw.stmt : refuse('a common table expression without a query');
  expectFields(stmt, ['tableList', 'columnList', 'ast', 'parentheses', '_parentheses'], 'a common table expression');
  const ast = isRaw(stmt.ast) && stmt.ast.type === 'select' ? stmt.ast : refuse('a common table expression that is not a SELECT');
  const columns = rawList(raw.columns, 'a CTE column').map((c) => requiredName(c.column ?? c, 'a CTE column'));
  return { name: requiredName(raw.name, 'a CTE name'), columns, query: selectOf(ast) };
}

function namedWindowsOf(value: unknown): NamedWindow[] {
  if (absent(value)) return [];
  const raw = isRaw(value) ? value : refuse('a WINDOW clause of an unexpected form');
  expectFields(raw, ['keyword', 'type', 'expr'], 'a WINDOW clause');
  return rawList(raw.expr, 'a named window').map((w) => {
    expectFields(w, ['name', 'as_window_specification'], 'a named window');
    return { name: requiredName(w.name, 'a window name'), spec: windowSpecOf(w.as_window_specification) };
  });
}

const WRITE_FIELDS = ['type', 'with', 'table', 'set', 'from', 'where', 'orderby', 'limit', 'db'] as const;

function updateOf(raw: Raw): UpdateNode {
  expectFields(raw, WRITE_FIELDS, 'an UPDATE');
  expectAbsent(raw.from, 'UPDATE … FROM');
  return {
    kind: 'update',
    with: withOf(raw.with),
    tables: fromOf(raw.table),
    set: rawList(raw.set, 'a SET item').map((s) => {
      expectFields(s, ['column', 'value', 'table'], 'a SET item');
      return { table: nameOf(s.table), column: requiredName(s.column, 'a SET column'), value: exprOf(s.value) };
    }),
    where: conditionOf(raw.where),
    orderBy: orderOf(raw.orderby),
    limit: limitOf(raw.limit),
  };
}

function deleteOf(raw: Raw): DeleteNode {
  expectFields(raw, WRITE_FIELDS, 'a DELETE');
  expectAbsent(raw.set, 'DELETE … SET');
  return {
    kind: 'delete',
    with: withOf(raw.with),
    targets: fromOf(raw.table),
    from: fromOf(raw.from),
    where: conditionOf(raw.where),
    orderBy: orderOf(raw.orderby),
    limit: limitOf(raw.limit),
  };
}

const JOIN_FIELDS = ['as', 'join', 'on', 'using', 'parentheses'] as const;

function fromOf(value: unknown): FromItem[] {
  if (absent(value)) return [];
  // `FROM (a JOIN b)`: the parser keeps the parenthesised group as one object of its own.
  if (!Array.isArray(value)) refuse('a parenthesised join in FROM (write the joins without the parentheses)');
  return rawList(value, 'a FROM item').flatMap((item, index): FromItem[] => {
    if (Array.isArray(item.expr)) return joinGroupOf(item, index);
    if (item.type === 'dual') {
      expectFields(item, ['type'], 'FROM DUAL');
      return [];
    }
    if (item.type === 'var') refuse('a user variable in FROM');
    const alias = nameOf(item.as);
    const join = typeof item.join === 'string' ? item.join.toUpperCase() : absent(item.join) ? undefined : refuse('a join of an unexpected form');
    const on = conditionOf(item.on);
    const using = (absent(item.using) ? [] : Array.isArray(item.using) ? item.using : [item.using]).map((u: unknown) => requiredName(u, 'a USING column'));
    if (typeof item.table === 'string') {
      // `addition`: the parser's mark on the target it copies from `DELETE FROM t`.
      expectFields(item, ['db', 'table', 'schema', 'addition', ...JOIN_FIELDS], `table "${item.table}" in FROM`);
      expectAbsent(item.schema, `a schema-qualified table "${item.table}"`);
      return [{ kind: 'table', table: item.table, alias: alias ?? undefined, join, on, using }];
    }
    expectFields(item, ['expr', 'prefix', ...JOIN_FIELDS], 'a FROM item');
    if (!absent(item.prefix)) refuse(`a ${String(item.prefix).toUpperCase()} derived table`);
    const expr = isRaw(item.expr) ? item.expr : refuse('a FROM item of an unexpected form');
    if (expr.type === 'values') {
      expectFields(expr, ['type', 'values', 'prefix', 'parentheses'], 'VALUES in FROM');
      const rows = rawList(expr.values, 'a VALUES row').map((row) => {
        expectFields(row, ['type', 'value', 'prefix', 'parentheses'], 'a VALUES row');
        return rawList(row.value, 'a VALUES value').map(exprOf);
      });
      return [{ kind: 'values', rows, alias, join, on, using }];
    }
    expectFields(expr, ['tableList', 'columnList', 'ast', 'parentheses', '_parentheses'], 'a derived table');
    const sub = isRaw(expr.ast) && expr.ast.type === 'select' ? expr.ast : refuse(`a table expression (${String(expr.type ?? 'unknown')}) in FROM`);
    return [{ kind: 'derived', query: selectOf(sub), alias, join, on, using }];
  });
}

const GROUP_JOINS = new Set(['JOIN', 'INNER JOIN', 'LEFT JOIN', 'LEFT OUTER JOIN']);

/**
 * `… LEFT JOIN (b INNER JOIN c ON …) ON …`: a parenthesised join joined to the tables before it,
 * which TypeORM writes for `leftJoinAndSelect(a.bs)` followed by `innerJoinAndSelect(b.cs)`. The
 * SQL text keeps the parentheses (the rewriter edits tokens, not the tree); the planner sees the
 * group's tables as joins of the FROM list: the first takes the group's join and its ON, and the
 * others, when the group is LEFT-joined, are LEFT joins too — every row of the group may be
 * missing from a result row, whatever joins them inside it. That view has the same tables,
 * aliases and ON conditions, and never claims a table's row is present where the statement may
 * leave it NULL, which is what the co-location and repeated-row checks need. Only tables joined
 * by INNER / LEFT joins are modelled inside a group, and the group only after the first item.
 */
function joinGroupOf(item: Raw, index: number): FromItem[] {
  expectFields(item, ['expr', 'joins', 'parentheses', 'join', 'on', 'using', 'as'], 'a parenthesised join');
  if (index === 0) refuse('a parenthesised join in FROM (write the joins without the parentheses)');
  const join = typeof item.join === 'string' ? item.join.toUpperCase() : refuse('a parenthesised join of an unexpected form');
  if (!GROUP_JOINS.has(join)) refuse(`a parenthesised join joined by ${join}`);
  if (!absent(item.as)) refuse('an alias of a parenthesised join');
  if (!absent(item.using)) refuse('a parenthesised join joined with USING');
  if (!absent(item.joins)) refuse('a parenthesised join of an unexpected form');
  const raws = rawList(item.expr, 'a table of a parenthesised join');
  if (raws.some((r) => Array.isArray(r.expr))) refuse('a parenthesised join inside a parenthesised join');
  const members = fromOf(raws);
  if (members.length < 2 || members.length !== raws.length || members.some((m) => m.kind !== 'table')) refuse('a parenthesised join of other than tables');
  const outerJoin = join.startsWith('LEFT');
  return (members as TableSource[]).map((m, k): TableSource => {
    if (k === 0) return { ...m, join, on: conditionOf(item.on), parenthesised: true };
    if (m.join === undefined || !GROUP_JOINS.has(m.join)) refuse(`${m.join ?? 'a comma join'} inside a parenthesised join`);
    return { ...m, ...(outerJoin ? { join: 'LEFT JOIN' } : {}), parenthesised: true };
  });
}

function orderOf(value: unknown): OrderItem[] {
  return rawList(value, 'an ORDER BY item').map((o) => {
    expectFields(o, ['expr', 'type'], 'an ORDER BY item');
    const type = String(o.type ?? 'ASC').toUpperCase();
    if (type !== 'ASC' && type !== 'DESC') refuse(`ORDER BY … ${type}`);
    return { expr: exprOf(o.expr), direction: type === 'DESC' ? 'DESC' : 'ASC' };
  });
}

function limitOf(value: unknown): LimitClause | undefined {
  if (absent(value)) return undefined;
  const raw = isRaw(value) ? value : refuse('LIMIT of an unexpected form');
  expectFields(raw, ['seperator', 'value'], 'LIMIT');
  const parts = rawList(raw.value, 'a LIMIT value').map(exprOf);
  if (parts.length === 0) return undefined;
  if (parts.length === 1) return { count: parts[0]!, offset: undefined };
  // `LIMIT count OFFSET offset` or `LIMIT offset, count`.
  return raw.seperator === 'offset' ? { count: parts[0]!, offset: parts[1] } : { count: parts[1]!, offset: parts[0] };
}

// --- windows ------------------------------------------------------------------------------

/** `OVER name`, `OVER (…)`: the raw `over` field of a function or aggregate. */
function overOf(value: unknown): WindowSpec | undefined {
  if (absent(value)) return undefined;
  const raw = isRaw(value) ? value : refuse('OVER of an unexpected form');
  expectFields(raw, ['type', 'as_window_specification'], 'OVER');
  if (raw.type !== 'window') refuse(`OVER of kind ${String(raw.type)}`);
  return windowSpecOf(raw.as_window_specification);
}

function windowSpecOf(value: unknown): WindowSpec {
  if (typeof value === 'string') return { base: value, partitionBy: [], orderBy: [], frame: undefined };
  const raw = isRaw(value) ? value : refuse('a window of an unexpected form');
  expectFields(raw, ['window_specification', 'parentheses'], 'a window');
  const spec = isRaw(raw.window_specification) ? raw.window_specification : {};
  expectFields(spec, ['name', 'partitionby', 'orderby', 'window_frame_clause'], 'a window');
  const partitionBy = rawList(spec.partitionby, 'a PARTITION BY item').map((p) => {
    expectFields(p, ['expr', 'as', 'type'], 'a PARTITION BY item');
    return exprOf(p.expr);
  });
  return { base: nameOf(spec.name), partitionBy, orderBy: orderOf(spec.orderby), frame: frameOf(spec.window_frame_clause) };
}

function frameOf(value: unknown): WindowFrame | undefined {
  if (absent(value)) return undefined;
  const raw = isRaw(value) ? value : refuse('a window frame of an unexpected form');
  // `ROWS bound`: { type: 'rows', expr: bound }; `ROWS BETWEEN a AND b`: a BETWEEN whose left is 'rows'.
  if (raw.type === 'rows') {
    expectFields(raw, ['type', 'expr'], 'a window frame');
    return { units: 'ROWS', start: frameBoundOf(raw.expr), end: undefined };
  }
  if (raw.type === 'binary_expr' && String(raw.operator).toUpperCase() === 'BETWEEN' && isRaw(raw.left) && raw.left.type === 'origin') {
    const units = String(raw.left.value).toUpperCase();
    const bounds = isRaw(raw.right) ? rawList(raw.right.value, 'a frame bound') : [];
    if ((units !== 'ROWS' && units !== 'RANGE') || bounds.length !== 2) refuse('a window frame of an unexpected form');
    return { units, start: frameBoundOf(bounds[0]), end: frameBoundOf(bounds[1]) };
  }
  return refuse('a window frame of an unexpected form');
}

function frameBoundOf(value: unknown): FrameBound {
  const raw = isRaw(value) ? value : refuse('a window frame bound of an unexpected form');
  const text = String(raw.value ?? '').toUpperCase().trim();
  if (text === 'UNBOUNDED PRECEDING') return { kind: 'unbounded-preceding', offset: undefined };
  if (text === 'UNBOUNDED FOLLOWING') return { kind: 'unbounded-following', offset: undefined };
  if (text === 'CURRENT ROW') return { kind: 'current-row', offset: undefined };
  return refuse(`the window frame bound ${text || 'of an unexpected form'}`);
}

// --- expressions --------------------------------------------------------------------------

function optionalExpr(value: unknown): SqlNode | undefined {
  return absent(value) ? undefined : exprOf(value);
}

const SLOT = /^p(\d+)$/;
const LIST = /^l(\d+)$/;

/**
 * Every `type` node-sql-parser's MySQL grammar gives an expression node (read from its
 * generated grammar and `exprToSQL`'s dispatch table), so that the table below has a case for
 * each. A subquery has no `type` of its own (`{ ast }`): it is handled before the dispatch.
 */
export const PARSER_EXPRESSION_KINDS = [
  'column_ref', 'star', 'param', 'number', 'bigint', 'single_quote_string', 'double_quote_string', 'string', 'natural_string',
  'backticks_quote_string', 'hex_string', 'full_hex_string', 'bit_string', 'bool', 'null', 'binary_expr', 'unary_expr',
  'expr_list', 'function', 'aggr_func', 'case', 'cast', 'interval', 'extract', 'fulltext_search', 'var', 'assign',
  'origin', 'datatype', 'date', 'time', 'timestamp', 'datetime', 'default', 'not null', 'collate', 'array', 'json',
  'window_func', 'any_value', 'select',
] as const;

/** A `type` of node-sql-parser's expression nodes. */
export type ParserExpressionKind = (typeof PARSER_EXPRESSION_KINDS)[number];

type Converter = (raw: Raw) => SqlNode;

const literalString: Converter = (raw) => {
  expectFields(raw, ['type', 'value'], 'a string literal');
  return { kind: 'literal', value: String(raw.value) };
};

const hexLiteral: Converter = (raw) => {
  expectFields(raw, ['type', 'value', 'prefix'], 'a hexadecimal or bit literal');
  expectAbsent(raw.prefix, 'a character-set introducer before a literal');
  const text = raw.type === 'bit_string' ? `b'${String(raw.value)}'` : raw.type === 'hex_string' ? `X'${String(raw.value)}'` : `0x${String(raw.value)}`;
  return { kind: 'shard-evaluated', what: `the literal ${text}`, children: [] };
};

const typedLiteral: Converter = (raw) => {
  expectFields(raw, ['type', 'value'], 'a typed literal');
  // `DATE '2024-01-01'` is `CAST('2024-01-01' AS DATE)`.
  return { kind: 'cast', operand: { kind: 'literal', value: String(raw.value) }, target: String(raw.type).toUpperCase(), scale: undefined };
};

/** Kinds that are refused wherever they occur: their value depends on more than the row. */
const refused = (construct: (raw: Raw) => string): Converter => (raw) => refuse(construct(raw));

/** The conversion of each parser kind; `satisfies` makes the compiler check that none is missing. */
const EXPRESSION_KINDS = {
  column_ref: (raw) => columnOf(raw),
  star: (raw) => {
    expectFields(raw, ['type', 'value'], '*');
    return { kind: 'star', table: undefined };
  },
  param: (raw) => {
    expectFields(raw, ['type', 'value'], 'a parameter');
    const name = String(raw.value);
    const slot = SLOT.exec(name);
    if (slot) return { kind: 'slot', slot: Number(slot[1]) };
    const list = LIST.exec(name);
    if (list) return { kind: 'in-list', list: Number(list[1]) };
    return refuse(`the named parameter :${name}`);
  },
  number: (raw) => {
    expectFields(raw, ['type', 'value'], 'a number');
    return { kind: 'literal', value: typeof raw.value === 'number' ? raw.value : Number(raw.value) };
  },
  bigint: (raw) => {
    expectFields(raw, ['type', 'value'], 'a number');
    const value = Number(raw.value);
    if (!Number.isSafeInteger(value)) refuse(`the number literal ${String(raw.value)} (beyond 2^53; pass it as a parameter)`);
    return { kind: 'literal', value };
  },
  single_quote_string: literalString,
  double_quote_string: literalString,
  string: literalString,
  natural_string: literalString,
  backticks_quote_string: refused((raw) => `the quoted name \`${String(raw.value)}\` where a value belongs`),
  hex_string: hexLiteral,
  full_hex_string: hexLiteral,
  bit_string: hexLiteral,
  bool: (raw) => {
    expectFields(raw, ['type', 'value'], 'a boolean');
    return { kind: 'literal', value: raw.value === true };
  },
  null: (raw) => {
    expectFields(raw, ['type', 'value'], 'NULL');
    return { kind: 'literal', value: null };
  },
  binary_expr: (raw) => binaryOf(raw),
  unary_expr: (raw) => {
    expectFields(raw, ['type', 'operator', 'expr', 'parentheses'], `the operator ${String(raw.operator)}`);
    return { kind: 'unary', op: String(raw.operator).toUpperCase(), operand: exprOf(raw.expr) };
  },
  expr_list: (raw) => {
    expectFields(raw, ['type', 'value', 'parentheses', 'separator', 'prefix'], 'a list');
    if (!absent(raw.separator) && raw.separator !== ',') refuse(`a list separated by ${String(raw.separator)}`);
    const items = rawList(raw.value, 'a list item').map(exprOf);
    if (items.length === 1 && items[0]!.kind === 'in-list') return items[0]!;
    return { kind: 'list', items };
  },
  function: (raw) => functionOf(raw),
  aggr_func: (raw) => aggregateOf(raw),
  case: (raw) => {
    expectFields(raw, ['type', 'expr', 'args', 'parentheses'], 'CASE');
    const args = rawList(raw.args, 'a CASE branch');
    for (const a of args) expectFields(a, a.type === 'when' ? ['type', 'cond', 'result'] : ['type', 'result'], 'a CASE branch');
    if (args.some((a) => a.type !== 'when' && a.type !== 'else')) refuse('a CASE branch of an unexpected form');
    return {
      kind: 'case',
      operand: optionalExpr(raw.expr),
      branches: args.filter((a) => a.type === 'when').map((a) => ({ when: exprOf(a.cond), then: exprOf(a.result) })),
      otherwise: args.filter((a) => a.type === 'else').map((a) => exprOf(a.result))[0],
    };
  },
  cast: (raw) => castOf(raw),
  interval: (raw) => {
    expectFields(raw, ['type', 'expr', 'unit'], 'INTERVAL');
    return { kind: 'interval', value: exprOf(raw.expr), unit: String(raw.unit ?? '').toUpperCase() };
  },
  extract: (raw) => {
    expectFields(raw, ['type', 'args'], 'EXTRACT');
    const args = isRaw(raw.args) ? raw.args : refuse('EXTRACT of an unexpected form');
    expectFields(args, ['field', 'source', 'cast_type'], 'EXTRACT');
    expectAbsent(args.cast_type, 'EXTRACT with a cast type');
    return { kind: 'shard-evaluated', what: `EXTRACT(${String(args.field).toUpperCase()} FROM …)`, children: [exprOf(args.source)] };
  },
  fulltext_search: (raw) => {
    expectFields(raw, ['type', 'against', 'columns', 'expr', 'match', 'mode', 'as'], 'MATCH … AGAINST');
    return { kind: 'shard-evaluated', what: 'MATCH … AGAINST', children: [...rawList(raw.columns, 'a MATCH column').map(exprOf), exprOf(raw.expr)] };
  },
  var: refused((raw) => `the user variable @${String(raw.name ?? '')} (it is state of one connection of one shard)`),
  assign: refused(() => 'an assignment to a user variable (@v := …), which each shard would make on its own rows'),
  origin: refused((raw) => `the keyword ${String(raw.value).toUpperCase()} where a value belongs`),
  datatype: refused((raw) => `the type ${String(raw.dataType)} where a value belongs`),
  date: typedLiteral,
  time: typedLiteral,
  timestamp: typedLiteral,
  datetime: typedLiteral,
  default: refused((raw) => `the name ${String(raw.value)} where a value belongs`),
  'not null': refused(() => 'NOT NULL where a value belongs'),
  collate: refused(() => 'a COLLATE clause of an unexpected form'),
  array: refused(() => 'an array expression'),
  json: refused(() => 'a JSON expression'),
  window_func: refused((raw) => `the window function ${String(nameOf(raw.name) ?? '')}`),
  any_value: refused(() => 'ANY_VALUE'),
  select: (raw) => ({ kind: 'subquery', query: selectOf(raw) }),
} as const satisfies Record<ParserExpressionKind, Converter>;

function isParserExpressionKind(type: unknown): type is ParserExpressionKind {
  return typeof type === 'string' && Object.hasOwn(EXPRESSION_KINDS, type);
}

/** Converts one expression node, one level deeper (see {@link MAX_NESTING}). */
export function exprOf(value: unknown): SqlNode {
  const chain = conditionChain;
  conditionChain = false;
  if (nesting >= MAX_NESTING) refuse(TOO_DEEP);
  nesting++;
  try {
    return isRaw(value) && value.type === 'binary_expr' && chain ? binaryOf(value, true) : expressionOf(value);
  } finally {
    nesting = Math.max(0, nesting - 1);
  }
}

function expressionOf(value: unknown): SqlNode {
  if (!isRaw(value)) return refuse('an expression of an unexpected form');
  const raw = value;
  if (raw.ast !== undefined) {
    expectFields(raw, ['tableList', 'columnList', 'ast', 'parentheses', '_parentheses'], 'a subquery');
    const query = isRaw(raw.ast) ? raw.ast : refuse('a subquery of an unexpected form');
    if (query.type !== 'select') refuse(`a subquery of kind ${String(query.type)}`);
    return { kind: 'subquery', query: selectOf(query) };
  }
  if (!isParserExpressionKind(raw.type)) return refuse(`an expression of kind "${String(raw.type)}" (not modelled by typeorm-sharding)`);
  return EXPRESSION_KINDS[raw.type](raw);
}

function columnOf(raw: Raw): SqlNode {
  expectFields(raw, ['type', 'db', 'table', 'column', 'collate', 'schema'], 'a column reference');
  expectAbsent(raw.schema, 'a schema-qualified column');
  const column = requiredName(raw.column, 'a column name');
  const table = nameOf(raw.table) ?? undefined;
  if (column === '*') {
    expectAbsent(raw.collate, '* COLLATE');
    return { kind: 'star', table };
  }
  return { kind: 'column', table, column, collate: collationOf(raw.collate) };
}

function collationOf(value: unknown): string | undefined {
  if (absent(value)) return undefined;
  const raw = isRaw(value) ? value : refuse('COLLATE of an unexpected form');
  const inner = isRaw(raw.collate) ? raw.collate : refuse('COLLATE of an unexpected form');
  return requiredName(inner.name, 'a collation');
}

function binaryOf(raw: Raw, inCondition = false): SqlNode {
  const op = String(raw.operator).toUpperCase();
  if (op === 'AND' || op === 'OR') return chainOf(raw, op, inCondition);
  expectFields(raw, ['type', 'operator', 'left', 'right', 'parentheses'], `the operator ${op}`);
  const right = isRaw(raw.right) ? raw.right : undefined;
  // `x LIKE y ESCAPE 'c'`: the grammar hangs the escape on the pattern.
  if (right && !absent(right.escape)) {
    const escape = isRaw(right.escape) ? right.escape : refuse('ESCAPE of an unexpected form');
    expectFields(escape, ['type', 'value'], 'ESCAPE');
    const { escape: _escape, ...pattern } = right;
    return { kind: 'shard-evaluated', what: `${op} … ESCAPE`, children: [exprOf(raw.left), exprOf(pattern), exprOf(escape.value)] };
  }
  return { kind: 'binary', op, left: exprOf(raw.left), right: exprOf(raw.right) };
}

/**
 * A left-deep chain `a OR b OR c …` of one operator (TypeORM writes `where: [{…}, …]` of
 * thousands of rows so), converted link by link without recursing once per link: the stack
 * would overflow long before the database's own limits.
 */
function chainOf(top: Raw, op: 'AND' | 'OR', inCondition: boolean): SqlNode {
  const rights: unknown[] = [];
  let link: unknown = top;
  while (isRaw(link) && link.type === 'binary_expr' && String(link.operator).toUpperCase() === op) {
    expectFields(link, ['type', 'operator', 'left', 'right', 'parentheses'], `the operator ${op}`);
    rights.push(link.right);
    link = link.left;
  }
  // Outside a condition the chain is as deep as it is long for every walk after this one.
  if (!inCondition && nesting + rights.length > MAX_NESTING) refuse(TOO_DEEP);
  const operand = (raw: unknown): SqlNode => {
    conditionChain = inCondition;
    return exprOf(raw);
  };
  const levels = inCondition ? 0 : rights.length;
  nesting += levels;
  try {
    let node = operand(link);
    for (let i = rights.length - 1; i >= 0; i--) node = { kind: 'binary', op, left: node, right: operand(rights[i]) };
    return node;
  } finally {
    nesting = Math.max(0, nesting - levels);
  }
}

function castOf(raw: Raw): SqlNode {
  expectFields(raw, ['type', 'keyword', 'expr', 'symbol', 'target', 'parentheses'], 'CAST');
  const targets = rawList(raw.target, 'a CAST type');
  if (targets.length !== 1) refuse('CAST to several types');
  const target = targets[0]!;
  expectFields(target, ['dataType', 'length', 'scale', 'parentheses', 'suffix', 'quoted'], 'a CAST type');
  const type = String(target.dataType ?? '').toUpperCase();
  const scale = typeof target.scale === 'number' ? target.scale : undefined;
  const length = typeof target.length === 'number' ? target.length : undefined;
  const suffix = (Array.isArray(target.suffix) ? target.suffix : []).map((s) => String(typeof s === 'string' ? s : (nameOf(s) ?? refuse('a CAST type suffix of an unexpected form'))).toUpperCase());
  const text = [length === undefined ? type : `${type}(${length}${scale === undefined ? '' : `, ${scale}`})`, ...suffix].join(' ');
  return { kind: 'cast', operand: exprOf(raw.expr), target: text, scale };
}

/**
 * Aggregate functions node-sql-parser reads as ordinary functions (it knows COUNT, SUM, AVG,
 * MIN, MAX and GROUP_CONCAT). Missing one would merge its partial results as if they were
 * rows, so every aggregate of MySQL and SQLite is listed.
 */
const AGGREGATE_FUNCTIONS = new Set([
  'BIT_AND', 'BIT_OR', 'BIT_XOR', 'STD', 'STDDEV', 'STDDEV_POP', 'STDDEV_SAMP', 'VARIANCE', 'VAR_POP', 'VAR_SAMP',
  'JSON_ARRAYAGG', 'JSON_OBJECTAGG', 'TOTAL', 'STRING_AGG', 'JSON_GROUP_ARRAY', 'JSON_GROUP_OBJECT', 'ANY_VALUE', 'MEDIAN', 'PERCENTILE_CONT', 'PERCENTILE_DISC',
]);

/** The marker the parser text wraps the argument of `SUM(DISTINCT x)` in (the grammar only knows COUNT(DISTINCT …)); see `parameterize/parser-text.ts`. */
export const DISTINCT_MARKER = '__SHARD_DISTINCT';

/** Functions whose first argument is a unit keyword (`TIMESTAMPDIFF(DAY, a, b)`). */
const UNIT_FIRST = new Set(['TIMESTAMPDIFF', 'TIMESTAMPADD', 'DATE_TRUNC']);

function functionOf(raw: Raw): SqlNode {
  expectFields(raw, ['type', 'name', 'args', 'over', 'parentheses'], 'a function call');
  const name = functionNameOf(raw.name);
  const rawArgs = absent(raw.args) ? [] : isRaw(raw.args) ? rawList(raw.args.value, `an argument of ${name}()`) : refuse(`the arguments of ${name}() of an unexpected form`);
  if (isRaw(raw.args)) expectFields(raw.args, ['type', 'value', 'parentheses', 'separator'], `the arguments of ${name}()`);
  const over = overOf(raw.over);
  // CONVERT(x USING cs): the grammar hangs `USING cs` on x.
  if (name === 'CONVERT' && rawArgs.length === 1 && typeof rawArgs[0]!.suffix === 'string') {
    const { suffix, ...operand } = rawArgs[0]!;
    return { kind: 'shard-evaluated', what: `CONVERT(… ${String(suffix).toUpperCase()})`, children: [exprOf(operand)] };
  }
  // TRIM(LEADING 'x' FROM y): keywords among the arguments.
  if (name === 'TRIM' && rawArgs.some((a) => a.type === 'origin')) {
    return { kind: 'shard-evaluated', what: 'TRIM(… FROM …)', children: rawArgs.filter((a) => a.type !== 'origin').map(exprOf) };
  }
  const args = rawArgs.map((a, i) => {
    if (a.type === 'origin' && i === 0 && UNIT_FIRST.has(name)) return { kind: 'keyword' as const, text: String(a.value).toUpperCase() };
    if (a.type === 'datatype' && name === 'CONVERT' && i === 1) return { kind: 'keyword' as const, text: datatypeText(a) };
    return exprOf(a);
  });
  if (AGGREGATE_FUNCTIONS.has(name)) {
    return { kind: 'aggregate', name, distinct: false, args, orderBy: [], separator: undefined, over };
  }
  // node-sql-parser writes `NOT (a OR b)` as a function call.
  if (name === 'NOT' && args.length === 1 && !over) return { kind: 'unary', op: 'NOT', operand: args[0]! };
  return { kind: 'function', name, args, over };
}

function functionNameOf(value: unknown): string {
  const raw = isRaw(value) ? value : refuse('a function name of an unexpected form');
  expectFields(raw, ['name', 'schema'], 'a function name');
  const name = requiredName({ name: raw.name }, 'a function name').toUpperCase();
  return absent(raw.schema) ? name : `${requiredName(raw.schema, 'a function schema').toUpperCase()}.${name}`;
}

function datatypeText(raw: Raw): string {
  expectFields(raw, ['type', 'dataType', 'length', 'scale', 'parentheses', 'suffix'], 'a type');
  const type = String(raw.dataType).toUpperCase();
  const length = typeof raw.length === 'number' ? `(${raw.length}${typeof raw.scale === 'number' ? `, ${raw.scale}` : ''})` : '';
  return `${type}${length}`;
}

function aggregateOf(raw: Raw): AggregateNode {
  expectFields(raw, ['type', 'name', 'args', 'over'], 'an aggregate');
  const name = String(raw.name).toUpperCase();
  const args = isRaw(raw.args) ? raw.args : {};
  expectFields(args, ['expr', 'distinct', 'orderby', 'separator', 'parentheses'], `${name}()`);
  let separator: string | undefined;
  if (!absent(args.separator)) {
    const sep = isRaw(args.separator) ? args.separator : refuse(`${name}(… SEPARATOR) of an unexpected form`);
    expectFields(sep, ['keyword', 'value'], `${name}(… SEPARATOR)`);
    separator = nameOf(sep.value) ?? refuse(`${name}(… SEPARATOR) of an unexpected form`);
  }
  const expr = isRaw(args.expr) ? args.expr : absent(args.expr) ? undefined : refuse(`${name}() of an unexpected form`);
  let operands = expr ? (expr.type === 'expr_list' ? rawList(expr.value, `an argument of ${name}()`).map(exprOf) : [exprOf(expr)]) : [];
  if (expr?.type === 'expr_list') expectFields(expr, ['type', 'value', 'parentheses'], `the arguments of ${name}()`);
  if (!absent(args.distinct) && args.distinct !== 'DISTINCT') refuse(`${name}(${String(args.distinct)} …)`);
  let distinct = args.distinct === 'DISTINCT';
  const only = operands[0];
  if (operands.length === 1 && only?.kind === 'function' && only.name === DISTINCT_MARKER) {
    distinct = true;
    operands = [...only.args];
  }
  return { kind: 'aggregate', name, distinct, args: operands, orderBy: orderOf(args.orderby), separator, over: overOf(raw.over) };
}
