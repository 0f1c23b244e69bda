/**
 * The planner's own view of a parsed statement: a small, readonly, discriminated union.
 *
 * node-sql-parser's output is loosely typed and its field names are private details
 * (`aggr_func`, `expr_list`, `_next`, names as strings or `{ value }`). It is converted once,
 * in `from-parser.ts`, into these nodes; every planner question ("does this item contain an
 * aggregate anywhere?", "which columns does it read?") is then asked of one typed tree, and
 * a new node kind does not compile until every `switch` over `kind` handles it.
 *
 * Values never appear here: the parser text carries slot `n` as `:p<n>` and IN list `k` as
 * `(:l<k>)` (see `parameterize`), so a tree describes every statement of one shape.
 */

/** A column reference: `t.c`, `c` (table undefined), `db.t.c` (the database is dropped). */
export interface ColumnNode {
  readonly kind: 'column';
  readonly table: string | undefined;
  readonly column: string;
  /** `c COLLATE name`, when written. */
  readonly collate: string | undefined;
}

/** `*` or `t.*` (in a select list or in `COUNT(*)`). */
export interface StarNode {
  readonly kind: 'star';
  readonly table: string | undefined;
}

/** Value slot `n` of the statement (a `?` or an inline literal: see `ParameterizedSql.slots`). */
export interface SlotNode {
  readonly kind: 'slot';
  readonly slot: number;
}

/** IN list `k` of the statement, as one node (`x IN (:l0)`). */
export interface InListNode {
  readonly kind: 'in-list';
  readonly list: number;
}

/**
 * A literal the lexer kept as code rather than a value: `ORDER BY 2` (a column position),
 * `COUNT(1)`, `NULL` of `IS NULL`, `TRUE`/`FALSE`, a `SEPARATOR ','` string.
 */
export interface LiteralNode {
  readonly kind: 'literal';
  readonly value: string | number | boolean | null;
}

/** `left op right`; `op` is upper case (`AND`, `=`, `+`, `IS NOT`, `NOT IN`, `BETWEEN` …). */
export interface BinaryNode {
  readonly kind: 'binary';
  readonly op: string;
  readonly left: SqlNode;
  /** For `BETWEEN`: a list of the two bounds; for `IN`: a list, an in-list or a subquery. */
  readonly right: SqlNode;
}

/** `NOT x`, `-x`, `+x`, `~x`, `!x`. */
export interface UnaryNode {
  readonly kind: 'unary';
  readonly op: string;
  readonly operand: SqlNode;
}

/** A scalar function call; `name` upper case. `EXISTS (…)` is a function of one subquery. */
export interface FunctionNode {
  readonly kind: 'function';
  readonly name: string;
  readonly args: readonly SqlNode[];
  /** True for a window function (`… OVER (…)`). */
  readonly window: boolean;
}

/** One ORDER BY item (of a statement, or inside `GROUP_CONCAT`). */
export interface OrderItem {
  readonly expr: SqlNode;
  readonly direction: 'ASC' | 'DESC';
  /** `NULLS FIRST` / `NULLS LAST`, when written (else NULL is the smallest value, as in MySQL and SQLite). */
  readonly nulls?: 'FIRST' | 'LAST';
}

/** An aggregate call: `COUNT(*)`, `SUM(DISTINCT x)`, `GROUP_CONCAT(x ORDER BY y SEPARATOR ',')`. */
export interface AggregateNode {
  readonly kind: 'aggregate';
  /** Upper case: COUNT, SUM, AVG, MIN, MAX, GROUP_CONCAT, BIT_AND, STDDEV_SAMP … */
  readonly name: string;
  readonly distinct: boolean;
  /** The arguments (`COUNT(*)` has one `star`). */
  readonly args: readonly SqlNode[];
  /** `GROUP_CONCAT(… ORDER BY …)`. */
  readonly orderBy: readonly OrderItem[];
  /** `GROUP_CONCAT(… SEPARATOR s)`: the separator text, when written. */
  readonly separator: string | undefined;
  /** True for an aggregate used as a window function (`SUM(x) OVER (…)`). */
  readonly window: boolean;
}

/** `CASE [operand] WHEN … THEN … [ELSE …] END`. */
export interface CaseNode {
  readonly kind: 'case';
  readonly operand: SqlNode | undefined;
  readonly branches: readonly { readonly when: SqlNode; readonly then: SqlNode }[];
  readonly otherwise: SqlNode | undefined;
}

/** `CAST(x AS target)`; `target` upper case, e.g. `SIGNED`, `DECIMAL(10, 2)`, `CHAR`. */
export interface CastNode {
  readonly kind: 'cast';
  readonly operand: SqlNode;
  readonly target: string;
  /** DECIMAL(p, s): the scale, when written. */
  readonly scale: number | undefined;
}

/** A parenthesised list of expressions (`IN (a, b)`, `BETWEEN`'s bounds, a row). */
export interface ListNode {
  readonly kind: 'list';
  readonly items: readonly SqlNode[];
}

/** A subquery used as an expression: `(SELECT …)`, `IN (SELECT …)`, `EXISTS (SELECT …)`. */
export interface SubqueryNode {
  readonly kind: 'subquery';
  readonly query: SelectNode;
}

/** `INTERVAL n unit`. */
export interface IntervalNode {
  readonly kind: 'interval';
  readonly value: SqlNode;
  readonly unit: string;
}

/**
 * A construct the planner does not model (EXTRACT, CONVERT … USING, JSON operators, …).
 * Its expression children are kept so that whole-tree questions (aggregates, columns,
 * subqueries) still see them; it cannot be evaluated or printed.
 */
export interface OpaqueNode {
  readonly kind: 'opaque';
  /** node-sql-parser's type name, for messages. */
  readonly what: string;
  readonly children: readonly SqlNode[];
}

/** Every expression node. */
export type SqlNode =
  | ColumnNode
  | StarNode
  | SlotNode
  | InListNode
  | LiteralNode
  | BinaryNode
  | UnaryNode
  | FunctionNode
  | AggregateNode
  | CaseNode
  | CastNode
  | ListNode
  | SubqueryNode
  | IntervalNode
  | OpaqueNode;

/** One item of a select list; `SELECT *` is one item whose expression is a `star`. */
export interface SelectItem {
  readonly expr: SqlNode;
  readonly alias: string | undefined;
}

/** A table in FROM / JOIN (or the target of UPDATE / DELETE). */
export interface TableSource {
  readonly kind: 'table';
  readonly table: string;
  readonly alias: string | undefined;
  /** `LEFT JOIN`, `INNER JOIN`, …; undefined for the first item or a comma join. */
  readonly join: string | undefined;
  readonly on: SqlNode | undefined;
  readonly using: readonly string[];
}

/** A derived table: `(SELECT …) alias`. */
export interface DerivedSource {
  readonly kind: 'derived';
  readonly query: SelectNode;
  readonly alias: string | undefined;
  readonly join: string | undefined;
  readonly on: SqlNode | undefined;
  readonly using: readonly string[];
}

/** Anything else in FROM (a table function, `VALUES`, …). */
export interface OpaqueSource {
  readonly kind: 'opaque-source';
  readonly what: string;
  readonly alias: string | undefined;
}

export type FromItem = TableSource | DerivedSource | OpaqueSource;

/** `LIMIT count [OFFSET offset]`. */
export interface LimitClause {
  readonly count: SqlNode;
  readonly offset: SqlNode | undefined;
}

/** A SELECT. */
export interface SelectNode {
  readonly kind: 'select';
  readonly distinct: boolean;
  readonly items: readonly SelectItem[];
  readonly from: readonly FromItem[];
  readonly where: SqlNode | undefined;
  readonly groupBy: readonly SqlNode[];
  /** `GROUP BY … WITH ROLLUP`. */
  readonly rollup: boolean;
  readonly having: SqlNode | undefined;
  readonly orderBy: readonly OrderItem[];
  readonly limit: LimitClause | undefined;
  /** `FOR UPDATE`, `LOCK IN SHARE MODE`, … when written. */
  readonly locking: string | undefined;
  /** True when the statement has `WITH` (common table expressions). */
  readonly hasWith: boolean;
  /** The next SELECT of a UNION / EXCEPT / INTERSECT, and the operator joining it. */
  readonly compound: { readonly op: string; readonly next: SelectNode } | undefined;
}

/** One `SET column = value` of an UPDATE. */
export interface Assignment {
  readonly table: string | undefined;
  readonly column: string;
  readonly value: SqlNode;
}

/** An UPDATE. */
export interface UpdateNode {
  readonly kind: 'update';
  readonly tables: readonly FromItem[];
  readonly set: readonly Assignment[];
  readonly where: SqlNode | undefined;
  readonly orderBy: readonly OrderItem[];
  readonly limit: LimitClause | undefined;
}

/** A DELETE (`targets` are the tables rows are deleted from; `from` the tables read). */
export interface DeleteNode {
  readonly kind: 'delete';
  readonly targets: readonly FromItem[];
  readonly from: readonly FromItem[];
  readonly where: SqlNode | undefined;
  readonly orderBy: readonly OrderItem[];
  readonly limit: LimitClause | undefined;
}

/** A parsed statement the planner analyses. */
export type StatementNode = SelectNode | UpdateNode | DeleteNode;
