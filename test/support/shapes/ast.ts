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
  | { readonly kind: 'alias'; readonly name: string; readonly of: Expr };

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
  | { readonly kind: 'not'; readonly arg: Cond };

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
   * DISTINCT aggregate sorts its groups: the aggregates go through a temporary table; and a SUM or AVG of a quotient when it groups through a temporary table: each row is rounded first), while
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
  | { readonly kind: 'derived'; readonly query: Select; readonly alias: string };

export interface Join {
  readonly type: 'INNER' | 'LEFT';
  readonly item: FromItem;
  readonly on: Cond;
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
}

export interface Union {
  readonly kind: 'union';
  readonly all: boolean;
  readonly selects: readonly Select[];
  readonly orderBy: readonly OrderKey[];
  readonly limit: Limit | undefined;
}

export type Query = Select | Union;

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
}
