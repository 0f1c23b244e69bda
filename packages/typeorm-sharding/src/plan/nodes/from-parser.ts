/**
 * The one place that reads node-sql-parser's output: parses the parser text of a statement
 * with the MySQL grammar and converts it into the planner's typed nodes (`sql-node.ts`).
 * Nothing outside this file knows the parser's field names.
 */
import nsp from 'node-sql-parser/build/mysql.js';
import { stripNullsOrdering } from './nulls-ordering.js';
import type {
  AggregateNode,
  DeleteNode,
  FromItem,
  LimitClause,
  OrderItem,
  SelectItem,
  SelectNode,
  SqlNode,
  StatementNode,
  UpdateNode,
} from './sql-node.js';

/** A node of node-sql-parser's tree, read field by field with the accessors below. */
type Raw = { readonly [key: string]: unknown };

const parser = new nsp.Parser();

/** node-sql-parser rejected the text (its message is kept). */
export class ParserSyntaxError extends Error {}

/** The statement kinds the planner analyses. */
export type ParsedKind = StatementNode['kind'];

/**
 * Parses `parserSql` (MySQL grammar) into typed nodes. Throws `ParserSyntaxError` when the
 * grammar rejects the text, and returns undefined for a statement of another kind.
 */
export function parseStatement(parserSql: string): StatementNode | undefined {
  const { text, nulls } = stripNullsOrdering(parserSql);
  let tree: unknown;
  try {
    tree = parser.astify(text, { database: 'MySQL' });
  } catch (error) {
    throw new ParserSyntaxError((error as Error).message);
  }
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

function rawList(value: unknown): Raw[] {
  if (Array.isArray(value)) return value.filter(isRaw);
  return isRaw(value) ? [value] : [];
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

// --- statements ---------------------------------------------------------------------------

function selectOf(raw: Raw): SelectNode {
  const items: SelectItem[] =
    raw.columns === '*' ? [{ expr: { kind: 'star', table: undefined }, alias: undefined }] : rawList(raw.columns).map((c) => ({ expr: exprOf(c.expr), alias: nameOf(c.as) }));
  const groupby = isRaw(raw.groupby) ? raw.groupby : undefined;
  const modifiers = groupby ? rawList(groupby.modifiers) : [];
  const next = isRaw(raw._next) ? raw._next : undefined;
  return {
    kind: 'select',
    distinct: typeof raw.distinct === 'string' && raw.distinct.toUpperCase() === 'DISTINCT',
    items,
    from: fromOf(raw.from),
    where: optionalExpr(raw.where),
    groupBy: groupby ? rawList(groupby.columns).map(exprOf) : [],
    rollup: modifiers.some((m) => /rollup/i.test(nameOf(m) ?? '')),
    having: optionalExpr(raw.having),
    orderBy: orderOf(raw.orderby),
    limit: limitOf(raw.limit),
    locking: typeof raw.locking_read === 'string' ? raw.locking_read : isRaw(raw.locking_read) ? 'LOCK' : undefined,
    hasWith: Array.isArray(raw.with) && raw.with.length > 0,
    compound: next ? { op: String(raw.set_op ?? 'union').toUpperCase(), next: selectOf(next) } : undefined,
  };
}

function updateOf(raw: Raw): UpdateNode {
  return {
    kind: 'update',
    tables: fromOf(raw.table),
    set: rawList(raw.set).map((s) => ({ table: nameOf(s.table), column: nameOf(s.column) ?? '', value: exprOf(s.value) })),
    where: optionalExpr(raw.where),
    orderBy: orderOf(raw.orderby),
    limit: limitOf(raw.limit),
  };
}

function deleteOf(raw: Raw): DeleteNode {
  return {
    kind: 'delete',
    targets: fromOf(raw.table),
    from: fromOf(raw.from),
    where: optionalExpr(raw.where),
    orderBy: orderOf(raw.orderby),
    limit: limitOf(raw.limit),
  };
}

function fromOf(value: unknown): FromItem[] {
  return rawList(value).map((item): FromItem => {
    const alias = nameOf(item.as);
    const join = typeof item.join === 'string' ? item.join.toUpperCase() : undefined;
    const on = optionalExpr(item.on);
    const using = Array.isArray(item.using) ? item.using.map(nameOf).filter((u): u is string => u !== undefined) : [];
    if (typeof item.table === 'string') return { kind: 'table', table: item.table, alias: alias ?? undefined, join, on, using };
    const sub = isRaw(item.expr) && isRaw(item.expr.ast) ? item.expr.ast : undefined;
    if (sub?.type === 'select') return { kind: 'derived', query: selectOf(sub), alias, join, on, using };
    return { kind: 'opaque-source', what: String(item.type ?? 'from item'), alias };
  });
}

function orderOf(value: unknown): OrderItem[] {
  return rawList(value).map((o) => ({ expr: exprOf(o.expr), direction: String(o.type ?? 'ASC').toUpperCase() === 'DESC' ? 'DESC' : 'ASC' }));
}

function limitOf(value: unknown): LimitClause | undefined {
  if (!isRaw(value)) return undefined;
  const parts = rawList(value.value).map(exprOf);
  if (parts.length === 0) return undefined;
  if (parts.length === 1) return { count: parts[0]!, offset: undefined };
  // `LIMIT count OFFSET offset` or `LIMIT offset, count`.
  return value.seperator === 'offset' ? { count: parts[0]!, offset: parts[1] } : { count: parts[1]!, offset: parts[0] };
}

// --- expressions --------------------------------------------------------------------------

function optionalExpr(value: unknown): SqlNode | undefined {
  return isRaw(value) ? exprOf(value) : undefined;
}

const SLOT = /^p(\d+)$/;
const LIST = /^l(\d+)$/;

/** Converts one expression node. */
export function exprOf(value: unknown): SqlNode {
  if (!isRaw(value)) return { kind: 'opaque', what: 'missing expression', children: [] };
  const raw = value;
  if (isRaw(raw.ast)) {
    const query = raw.ast;
    return query.type === 'select' ? { kind: 'subquery', query: selectOf(query) } : opaque('subquery', raw);
  }
  switch (raw.type) {
    case 'column_ref': {
      const column = nameOf(raw.column) ?? '';
      const table = nameOf(raw.table) ?? undefined;
      if (column === '*') return { kind: 'star', table };
      const collate = isRaw(raw.collate) && isRaw(raw.collate.collate) ? nameOf(raw.collate.collate.name) : undefined;
      return { kind: 'column', table, column, collate };
    }
    case 'star':
      return { kind: 'star', table: undefined };
    case 'param': {
      const name = String(raw.value);
      const slot = SLOT.exec(name);
      if (slot) return { kind: 'slot', slot: Number(slot[1]) };
      const list = LIST.exec(name);
      if (list) return { kind: 'in-list', list: Number(list[1]) };
      return opaque('param', raw);
    }
    case 'number':
      return { kind: 'literal', value: typeof raw.value === 'number' ? raw.value : Number(raw.value) };
    case 'single_quote_string':
    case 'double_quote_string':
    case 'string':
    case 'natural_string':
      return { kind: 'literal', value: String(raw.value) };
    case 'bool':
      return { kind: 'literal', value: raw.value === true };
    case 'null':
      return { kind: 'literal', value: null };
    case 'binary_expr':
      return { kind: 'binary', op: String(raw.operator).toUpperCase(), left: exprOf(raw.left), right: exprOf(raw.right) };
    case 'unary_expr':
      return { kind: 'unary', op: String(raw.operator).toUpperCase(), operand: exprOf(raw.expr) };
    case 'expr_list': {
      const items = rawList(raw.value).map(exprOf);
      if (items.length === 1 && items[0]!.kind === 'in-list') return items[0]!;
      return { kind: 'list', items };
    }
    case 'function':
      return functionOf(raw);
    case 'aggr_func':
      return aggregateOf(raw);
    case 'case': {
      const args = rawList(raw.args);
      return {
        kind: 'case',
        operand: optionalExpr(raw.expr),
        branches: args.filter((a) => a.type === 'when').map((a) => ({ when: exprOf(a.cond), then: exprOf(a.result) })),
        otherwise: args.filter((a) => a.type === 'else').map((a) => exprOf(a.result))[0],
      };
    }
    case 'cast': {
      const target = rawList(raw.target)[0];
      const type = String(target?.dataType ?? '').toUpperCase();
      const scale = typeof target?.scale === 'number' ? target.scale : undefined;
      const length = typeof target?.length === 'number' ? target.length : undefined;
      const text = length === undefined ? type : `${type}(${length}${scale === undefined ? '' : `, ${scale}`})`;
      return { kind: 'cast', operand: exprOf(raw.expr), target: text, scale };
    }
    case 'interval':
      return { kind: 'interval', value: exprOf(raw.expr), unit: String(raw.unit ?? '').toUpperCase() };
    default:
      return opaque(String(raw.type ?? 'expression'), raw);
  }
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

function functionOf(raw: Raw): SqlNode {
  const name = (nameOf(raw.name) ?? '').toUpperCase();
  const args = isRaw(raw.args) ? rawList(raw.args.value).map(exprOf) : [];
  if (AGGREGATE_FUNCTIONS.has(name)) {
    return { kind: 'aggregate', name, distinct: false, args, orderBy: [], separator: undefined, window: isRaw(raw.over) };
  }
  // node-sql-parser writes `NOT (a OR b)` as a function call.
  if (name === 'NOT' && args.length === 1) return { kind: 'unary', op: 'NOT', operand: args[0]! };
  // CONVERT(x USING cs), TRIM(LEADING …), and the like carry syntax the node does not model.
  if (isRaw(raw.args) && rawList(raw.args.value).some((a) => a.suffix !== undefined && a.suffix !== null)) return opaque(name, raw);
  return { kind: 'function', name, args, window: isRaw(raw.over) };
}

function aggregateOf(raw: Raw): AggregateNode {
  const args = isRaw(raw.args) ? raw.args : {};
  const separator = isRaw(args.separator) ? nameOf(args.separator.value) : undefined;
  let operands = isRaw(args.expr) ? (args.expr.type === 'expr_list' ? rawList(args.expr.value).map(exprOf) : [exprOf(args.expr)]) : [];
  let distinct = typeof args.distinct === 'string';
  const only = operands[0];
  if (operands.length === 1 && only?.kind === 'function' && only.name === DISTINCT_MARKER) {
    distinct = true;
    operands = [...only.args];
  }
  return {
    kind: 'aggregate',
    name: String(raw.name).toUpperCase(),
    distinct,
    args: operands,
    orderBy: orderOf(args.orderby),
    separator,
    window: isRaw(raw.over),
  };
}

/** An unmodelled construct, with every expression found inside it converted. */
function opaque(what: string, raw: Raw): SqlNode {
  const children: SqlNode[] = [];
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(collect);
      return;
    }
    if (!isRaw(value)) return;
    if (typeof value.type === 'string' || isRaw(value.ast)) {
      children.push(exprOf(value));
      return;
    }
    for (const key in value) if (key !== 'loc') collect(value[key]);
  };
  for (const key in raw) if (key !== 'type' && key !== 'loc') collect(raw[key]);
  return { kind: 'opaque', what, children };
}
