import type { ColumnDef, TableDef, ValueType } from './schema.js';

// The query shapes the generator builds: a small AST of our own (not node-sql-parser's), so
// that the printer can write it for each dialect and the harness can reason about it (which
// order is total, which values are exact). Plain readonly data with a `kind` discriminator.

/** Aggregate functions the generator may use (some only on MariaDB). */
export type AggregateFn =
  | 'COUNT'
  | 'SUM'
  | 'AVG'
  | 'MIN'
  | 'MAX'
  | 'GROUP_CONCAT'
  | 'BIT_AND'
  | 'BIT_OR'
  | 'BIT_XOR'
  | 'STDDEV'
  | 'STDDEV_SAMP'
  | 'VARIANCE'
  | 'VAR_SAMP';

/** Scalar functions; the printer spells them per dialect (`CHAR_LENGTH` is `LENGTH` on SQLite, `CONCAT` is `||`). */
export type ScalarFn = 'COALESCE' | 'IFNULL' | 'NULLIF' | 'ABS' | 'LOWER' | 'UPPER' | 'CHAR_LENGTH' | 'CONCAT' | 'ROUND';

export type Expr =
  | { readonly kind: 'column'; readonly table: string; readonly column: ColumnDef }
  | { readonly kind: 'literal'; readonly value: number | string | null }
  | { readonly kind: 'hex'; readonly hex: string }
  | { readonly kind: 'param'; readonly value: number | string | null }
  | { readonly kind: 'arith'; readonly op: '+' | '-' | '*' | '/' | '%'; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'call'; readonly fn: ScalarFn; readonly args: readonly Expr[] }
  | { readonly kind: 'case'; readonly when: Cond; readonly then: Expr; readonly otherwise: Expr | undefined }
  | { readonly kind: 'truth'; readonly cond: Cond }
  | { readonly kind: 'aggregate'; readonly fn: AggregateFn; readonly arg: Expr | undefined; readonly distinct: boolean }
  | { readonly kind: 'scalar'; readonly query: Select }
  /** A select-list alias used in HAVING (`HAVING n > 2`); `of` is the aliased expression. */
  | { readonly kind: 'alias'; readonly name: string; readonly of: Expr }
  /** A window function: `fn(arg) OVER (…)` or `OVER w` for a window named in the select's WINDOW clause. */
  | { readonly kind: 'window'; readonly fn: WindowFn; readonly arg: Expr | undefined; readonly over: WindowSpec | { readonly name: string } }
  /** A JSON path read: `JSON_EXTRACT(arg, path)`, `JSON_VALUE(arg, path)` (MariaDB), `arg ->> path` (SQLite 3.38+). */
  | { readonly kind: 'json'; readonly form: 'extract' | 'value' | 'unquote' | 'arrow'; readonly arg: Expr; readonly path: string }
  /** A user variable (MariaDB): `@name`, or `(@name := assign)`. */
  | { readonly kind: 'userVar'; readonly name: string; readonly assign: Expr | undefined }
  /** `FOUND_ROWS()` (MariaDB): the rows the connection's last `SQL_CALC_FOUND_ROWS` select would have had without LIMIT. */
  | { readonly kind: 'foundRows' };

/** Window functions: ranking ones and aggregates over a window. */
export type WindowFn = 'ROW_NUMBER' | 'RANK' | 'DENSE_RANK' | 'COUNT' | 'SUM' | 'MIN' | 'MAX' | 'AVG';

/** `PARTITION BY … ORDER BY … frame` of a window. */
export interface WindowSpec {
  readonly partitionBy: readonly Expr[];
  readonly orderBy: readonly OrderKey[];
  /** A frame clause as written (`ROWS BETWEEN 1 PRECEDING AND CURRENT ROW`), or none. */
  readonly frame: string | undefined;
}

export type CompareOp = '=' | '<>' | '<' | '<=' | '>' | '>=';

export type Cond =
  | { readonly kind: 'compare'; readonly op: CompareOp; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'isNull'; readonly arg: Expr; readonly negated: boolean }
  | { readonly kind: 'inList'; readonly arg: Expr; readonly items: readonly Expr[]; readonly negated: boolean }
  | { readonly kind: 'inSelect'; readonly arg: Expr; readonly query: Select; readonly negated: boolean }
  | { readonly kind: 'exists'; readonly query: Select; readonly negated: boolean }
  | { readonly kind: 'between'; readonly arg: Expr; readonly low: Expr; readonly high: Expr }
  | { readonly kind: 'like'; readonly arg: Expr; readonly pattern: Expr; readonly negated: boolean }
  | { readonly kind: 'logic'; readonly op: 'AND' | 'OR'; readonly items: readonly Cond[] }
  | { readonly kind: 'not'; readonly arg: Cond }
  /** A row constructor in a list: `(a, b) [NOT] IN ((1, 2), (3, 4))`. */
  | { readonly kind: 'rowIn'; readonly left: readonly Expr[]; readonly rows: readonly (readonly Expr[])[]; readonly negated: boolean }
  /** Row constructors compared: `(a, b) = (1, 2)`. */
  | { readonly kind: 'rowCompare'; readonly op: '=' | '<>'; readonly left: readonly Expr[]; readonly right: readonly Expr[] }
  /** A row constructor in a subquery: `(a, b) [NOT] IN (SELECT x, y …)`. */
  | { readonly kind: 'rowInSelect'; readonly left: readonly Expr[]; readonly query: Select; readonly negated: boolean };

/** How a value of an output column must be compared between the two answers. */
export interface Typed {
  readonly type: ValueType | 'bool';
  /**
   * False when the value depends on the order in which floating-point numbers were added
   * (SUM/AVG/STDDEV of DOUBLE, and of DECIMAL on SQLite, which stores it as REAL): such a
   * value may differ in its last digits between one database and a merge of shards.
   */
  readonly exact: boolean;
  /**
   * True when one database may itself show any of several case variants ('Apple' or 'apple')
   * for the value: a group or DISTINCT key, MIN/MAX or GROUP_CONCAT of text under MariaDB's
   * case-insensitive collation. Compared case-insensitively.
   */
  readonly anyCase: boolean;
  /**
   * MariaDB only: an expression over AVG or a quotient's MIN/MAX/SUM that the server may
   * compute from the aggregate rounded to its shown scale (it does when a grouped query with a
   * DISTINCT aggregate sorts its groups, or when any grouped query groups through a temporary table: the aggregates are stored there at their shown scale; and a SUM or AVG of a quotient when it groups through a temporary table: each row is rounded first), while
   * the merge computes from the full value. Compared to 5e-3.
   */
  readonly serverRounded?: boolean;
}

/** One select-list item; `alias` undefined means none is written (the column is named by its text). */
export interface SelectItem {
  readonly expr: Expr;
  readonly alias: string | undefined;
}

export type FromItem =
  | { readonly kind: 'table'; readonly table: TableDef; readonly alias: string }
  | { readonly kind: 'derived'; readonly query: Select; readonly alias: string }
  /** A derived table whose body is a compound select (`FROM (a UNION b) u`). */
  | { readonly kind: 'compoundFrom'; readonly query: Compound; readonly alias: string }
  /** A common table expression by name (`FROM c d`), defined in the WITH of this or an outer select. */
  | { readonly kind: 'cte'; readonly name: string; readonly alias: string }
  /** No FROM clause (`SELECT 1`). */
  | { readonly kind: 'none' };

/** One common table expression of a WITH clause; `columns` names its columns (`c(k, d)`), as a recursive one needs. */
export interface Cte {
  readonly name: string;
  readonly columns: readonly string[] | undefined;
  readonly body: Query;
}

export interface Join {
  readonly type: 'INNER' | 'LEFT';
  readonly item: FromItem;
  readonly on: Cond;
  /** A parenthesised join: `JOIN (item <inner joins>) ON on`, as TypeORM writes a child's inner join under a LEFT join. */
  readonly inner?: readonly Join[];
}

/** An ORDER BY / GROUP BY term: an expression, a 1-based select-list position, or an output alias. */
export type Term =
  | { readonly kind: 'expr'; readonly expr: Expr }
  | { readonly kind: 'position'; readonly index: number }
  | { readonly kind: 'alias'; readonly name: string };

export interface OrderKey {
  readonly term: Term;
  readonly direction: 'ASC' | 'DESC' | undefined;
}

export interface Limit {
  readonly count: number;
  readonly offset: number | undefined;
  /** How LIMIT is written: `LIMIT c OFFSET o`, `LIMIT o, c`, or `LIMIT ? OFFSET ?`. */
  readonly form: 'offset' | 'comma' | 'params';
}

export interface Select {
  readonly kind: 'select';
  readonly distinct: boolean;
  /** `'*'`: every column of the FROM table. */
  readonly items: readonly SelectItem[] | '*';
  readonly from: FromItem;
  readonly joins: readonly Join[];
  readonly where: Cond | undefined;
  readonly groupBy: readonly Term[];
  readonly having: Cond | undefined;
  readonly orderBy: readonly OrderKey[];
  readonly limit: Limit | undefined;
  /** `WITH [RECURSIVE] …` before the select. */
  readonly with?: { readonly recursive: boolean; readonly ctes: readonly Cte[] };
  /** The `WINDOW name AS (…)` clause. */
  readonly windows?: readonly { readonly name: string; readonly spec: WindowSpec }[];
  /** MariaDB's `SELECT SQL_CALC_FOUND_ROWS …`. */
  readonly calcFoundRows?: boolean;
}

export interface Union {
  readonly kind: 'union';
  readonly all: boolean;
  readonly selects: readonly Select[];
  readonly orderBy: readonly OrderKey[];
  readonly limit: Limit | undefined;
}

/** The set operators; MariaDB binds INTERSECT tighter than the others, SQLite reads them left to right. */
export type SetOp = 'UNION' | 'UNION ALL' | 'INTERSECT' | 'EXCEPT';

/** One operand of a compound select: a select, or a parenthesized query (MariaDB; with its own ORDER BY / LIMIT). */
export type CompoundTerm = Select | { readonly kind: 'paren'; readonly query: Query };

/** A chain of set operations, `t0 op1 t1 op2 t2 …`, whose terms may nest. */
export interface Compound {
  readonly kind: 'compound';
  readonly first: CompoundTerm;
  readonly rest: readonly { readonly op: SetOp; readonly term: CompoundTerm }[];
  readonly orderBy: readonly OrderKey[];
  readonly limit: Limit | undefined;
}

export type Query = Select | Union | Compound;

/** A generated query with what the harness needs to judge the answers. */
export interface ShapeCase {
  /** The shape class that generated it (SHAPES_CLASSES). */
  readonly shapeClass: string;
  readonly query: Query;
  /** Comparison rule per output column, in select-list order. */
  readonly outputs: readonly Typed[];
  /** The ORDER BY fixes the order of the rows completely (up to rows that look the same). */
  readonly ordered: boolean;
  /** Feature tags (for refusal statistics and for grouping failures). */
  readonly tags: readonly string[];
  /**
   * Statements of the same session around the query (user variables, `FOUND_ROWS()`): each
   * source runs `before`, the query and `after` on one connection; the answers of `after` are
   * compared too.
   */
  readonly session?: Session;
}

/** Statements run on the query's connection before and after it. */
export interface Session {
  readonly before: readonly string[];
  readonly after: readonly { readonly sql: string; readonly outputs: readonly Typed[] }[];
}
