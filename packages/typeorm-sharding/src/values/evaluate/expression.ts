/**
 * A scalar SQL expression evaluated by the merge on merged rows: the part of a select item,
 * HAVING condition or ORDER BY key that sits *above* its aggregates (`COALESCE(SUM(x), 0)`,
 * `SUM(a) / COUNT(*)`, `HAVING SUM(a * b) > ?`). The aggregates themselves are computed by
 * the shards and merged first; the expression reads their merged values from result
 * columns. Plain readonly data, produced by the plan stage and compiled by
 * `compileExpression`.
 */

/**
 * What the database's type of a column leaf is, as far as evaluation needs it. MySQL values
 * come back as numbers or strings whatever their SQL type (mysql2 returns DECIMAL and BIGINT
 * as text), so the plan says which: `int` (integers, COUNT), `decimal` (exact: DECIMAL, SUM
 * of integers), `real` (FLOAT/DOUBLE), `text`, `other` (dates, bytes: only passed through).
 * `number`: a number whose class the plan does not know (an item the merge computed): its
 * representation decides (decimal text is a DECIMAL, a JavaScript number an INT or DOUBLE).
 * SQLite values carry their storage class themselves (`auto`).
 */
export type LeafClass = 'int' | 'decimal' | 'real' | 'number' | 'text' | 'other' | 'auto';

/** A leaf's class and, for decimals, its scale when the plan knows it (`SUM` of a `DECIMAL(10, 2)` column: 2). */
export interface LeafType {
  readonly class: LeafClass;
  readonly scale?: number;
  /** The column carries more digits than the value's SQL type shows: computed with all of them, shown at `scale`. */
  readonly fullPrecision?: boolean;
}

/** A merged row's column. */
export interface ColumnLeaf {
  readonly kind: 'column';
  readonly column: string;
  readonly type: LeafType;
}

/** Value slot `n` of the statement (bound per statement: a `?` parameter or an inline literal). */
export interface SlotLeaf {
  readonly kind: 'slot';
  readonly slot: number;
}

/** A literal written in the expression (`0`, `'x'`, `NULL`, `1.50`): numbers as their text. */
export interface ConstantLeaf {
  readonly kind: 'constant';
  readonly value: string | number | boolean | null;
  /** For numbers: written as a numeric literal (the text decides INT / DECIMAL / DOUBLE). */
  readonly numeric: boolean;
}

/** An operator: binary (`+`, `=`, `AND`, `IS`, `BETWEEN` with three args, `IN` with list args …) or unary (`-`, `NOT`). */
export interface OperatorNode {
  readonly kind: 'operator';
  readonly op: string;
  readonly args: readonly ScalarExpression[];
}

/** A function call (`COALESCE`, `IFNULL`, `NULLIF`, `IF`, `ABS`, `ROUND`, `FLOOR`, `CEIL`, `GREATEST`, `LEAST`). */
export interface CallNode {
  readonly kind: 'call';
  readonly name: string;
  readonly args: readonly ScalarExpression[];
}

/** `CASE [operand] WHEN … THEN … ELSE … END`. */
export interface CaseExpression {
  readonly kind: 'case';
  readonly operand: ScalarExpression | undefined;
  readonly branches: readonly { readonly when: ScalarExpression; readonly then: ScalarExpression }[];
  readonly otherwise: ScalarExpression | undefined;
}

export type ScalarExpression = ColumnLeaf | SlotLeaf | ConstantLeaf | OperatorNode | CallNode | CaseExpression;

/** Functions the evaluator implements, by dialect. */
export const EVALUATED_FUNCTIONS: Readonly<Record<'mysql' | 'sqlite', ReadonlySet<string>>> = {
  mysql: new Set(['COALESCE', 'IFNULL', 'NULLIF', 'IF', 'ABS', 'ROUND', 'FLOOR', 'CEIL', 'CEILING', 'GREATEST', 'LEAST', 'MOD']),
  sqlite: new Set(['COALESCE', 'IFNULL', 'NULLIF', 'IIF', 'ABS', 'ROUND']),
};

/** Operators the evaluator implements (both dialects; `DIV` and `XOR` are MySQL only). */
export const EVALUATED_OPERATORS: ReadonlySet<string> = new Set([
  '+', '-', '*', '/', '%', 'MOD', 'DIV',
  '=', '<>', '!=', '<', '<=', '>', '>=', '<=>',
  'AND', 'OR', 'XOR', 'NOT', '&&', '||',
  'IS', 'IS NOT', 'IN', 'NOT IN', 'BETWEEN', 'NOT BETWEEN',
]);

/** Short text of an expression for EXPLAIN. */
export function describeExpression(e: ScalarExpression): string {
  switch (e.kind) {
    case 'column':
      return e.column;
    case 'slot':
      return `:p${e.slot}`;
    case 'constant':
      return e.value === null ? 'NULL' : typeof e.value === 'string' && !e.numeric ? `'${e.value}'` : String(e.value);
    case 'operator':
      return e.args.length === 1 ? `${e.op} ${describeExpression(e.args[0]!)}` : `(${e.args.map(describeExpression).join(` ${e.op} `)})`;
    case 'call':
      return `${e.name}(${e.args.map(describeExpression).join(', ')})`;
    case 'case':
      return `CASE${e.operand ? ` ${describeExpression(e.operand)}` : ''}${e.branches.map((b) => ` WHEN ${describeExpression(b.when)} THEN ${describeExpression(b.then)}`).join('')}${e.otherwise ? ` ELSE ${describeExpression(e.otherwise)}` : ''} END`;
  }
}
