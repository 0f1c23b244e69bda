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
  /** The window of a window function (`ROW_NUMBER() OVER (…)`); undefined for a plain call. */
  readonly over: WindowSpec | undefined;
}

/**
 * One bound of a window frame: `UNBOUNDED PRECEDING`, `n PRECEDING`, `CURRENT ROW`,
 * `n FOLLOWING`, `UNBOUNDED FOLLOWING` (`offset` holds `n`).
 */
export interface FrameBound {
  readonly kind: 'unbounded-preceding' | 'preceding' | 'current-row' | 'following' | 'unbounded-following';
  readonly offset: SqlNode | undefined;
}

/** `ROWS | RANGE start` or `ROWS | RANGE BETWEEN start AND end`. */
export interface WindowFrame {
  readonly units: 'ROWS' | 'RANGE';
  readonly start: FrameBound;
  /** Undefined when written without BETWEEN (the end is then the current row). */
  readonly end: FrameBound | undefined;
}

/**
 * A window: `OVER (PARTITION BY … ORDER BY … frame)`, `OVER w` (a named window of the
 * SELECT's `WINDOW` clause, `base` set and nothing else) or `OVER (w ORDER BY …)` (a named
 * window refined). A window's value depends on every row of its partition, so whether it can
 * be computed shard by shard depends on `partitionBy` (see `select/window-locality.ts`).
 */
export interface WindowSpec {
  /** The named window this one refers to or refines. */
  readonly base: string | undefined;
  readonly partitionBy: readonly SqlNode[];
  readonly orderBy: readonly OrderItem[];
  readonly frame: WindowFrame | undefined;
}

/** `WINDOW name AS (…)` of a SELECT. */
export interface NamedWindow {
  readonly name: string;
  readonly spec: WindowSpec;
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
  /** The window of an aggregate used as a window function (`SUM(x) OVER (…)`); undefined for a group aggregate. */
  readonly over: WindowSpec | undefined;
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
 * A keyword argument of a function call: the unit of `TIMESTAMPDIFF(DAY, a, b)`, the type of
 * `CONVERT(x, CHAR)`. Upper case. It has no value of its own; a stage that would evaluate or
 * type it refuses.
 */
export interface KeywordNode {
  readonly kind: 'keyword';
  readonly text: string;
}

/**
 * A construct the shards evaluate as written, which the planner does not evaluate itself:
 * `EXTRACT(unit FROM x)`, `CONVERT(x USING cs)`, `TRIM(LEADING … FROM …)`, `MATCH … AGAINST`,
 * `x LIKE y ESCAPE z`, a hexadecimal or bit literal.
 *
 * The rule for a construct to be one of these (decided in `from-parser.ts`, construct by
 * construct): its value on a row depends on that row alone (no window, no aggregate over
 * rows, no session state such as user variables or `FOUND_ROWS()`), so each shard computes
 * exactly what one database would for the rows it holds. Every expression inside it is
 * converted into `children`, so whole-tree questions (aggregates, columns, subqueries) see
 * them. The merge never evaluates, prints or orders by it: a stage that would need to refuses.
 * A construct whose meaning depends on several rows (windows, CTEs, `FOUND_ROWS()`, user
 * variables) is never one of these: it is modelled by a node of its own, or refused.
 */
export interface ShardEvaluatedNode {
  readonly kind: 'shard-evaluated';
  /** The construct, as SQL spells it, for messages (`EXTRACT`, `CONVERT … USING`). */
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
  | KeywordNode
  | ShardEvaluatedNode;

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
  /** A table of a parenthesised join (`LEFT JOIN (b INNER JOIN c ON …) ON …`, see `joinGroupOf`). */
  readonly parenthesised?: true;
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

/**
 * `(VALUES ROW(…), ROW(…)) alias` in FROM: constant rows, the same on every shard (each shard
 * joins its own rows with all of them, as one database joins all its rows).
 */
export interface ValuesSource {
  readonly kind: 'values';
  readonly rows: readonly (readonly SqlNode[])[];
  readonly alias: string | undefined;
  readonly join: string | undefined;
  readonly on: SqlNode | undefined;
  readonly using: readonly string[];
}

/** One item of a FROM list (`FROM DUAL` is an empty list). */
export type FromItem = TableSource | DerivedSource | ValuesSource;

/**
 * One common table expression of `WITH [RECURSIVE] name [(columns)] AS (query)`. The query
 * keeps its own tree (a recursive CTE's query is a compound whose later SELECTs name `name`).
 */
export interface CommonTableExpression {
  readonly name: string;
  /** The column list, when written. */
  readonly columns: readonly string[];
  readonly query: SelectNode;
}

/** `WITH [RECURSIVE] cte, …` before a statement. */
export interface WithClause {
  /** `WITH RECURSIVE`: every CTE of the list may refer to itself or to a later one. */
  readonly recursive: boolean;
  readonly ctes: readonly CommonTableExpression[];
}

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
  /** `WITH …` written before this SELECT (the statement's, a subquery's or a CTE's own). */
  readonly with: WithClause | undefined;
  /** `WINDOW name AS (…)`, the named windows its `OVER name` refer to. */
  readonly windows: readonly NamedWindow[];
  /**
   * Select options, upper case (`SQL_NO_CACHE`, `SQL_BUFFER_RESULT`, `SQL_CALC_FOUND_ROWS` …).
   * Optimizer comments (`/*+ … *\/`) are not here: the lexer keeps comments out of the parser
   * text, and they reach each shard unchanged in the original text.
   */
  readonly options: readonly string[];
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
  /** `WITH … UPDATE`. */
  readonly with: WithClause | undefined;
  readonly tables: readonly FromItem[];
  readonly set: readonly Assignment[];
  readonly where: SqlNode | undefined;
  readonly orderBy: readonly OrderItem[];
  readonly limit: LimitClause | undefined;
}

/** A DELETE (`targets` are the tables rows are deleted from; `from` the tables read). */
export interface DeleteNode {
  readonly kind: 'delete';
  /** `WITH … DELETE`. */
  readonly with: WithClause | undefined;
  readonly targets: readonly FromItem[];
  readonly from: readonly FromItem[];
  readonly where: SqlNode | undefined;
  readonly orderBy: readonly OrderItem[];
  readonly limit: LimitClause | undefined;
}

/** A parsed statement the planner analyses. */
export type StatementNode = SelectNode | UpdateNode | DeleteNode;
