import type { ValueSlot } from '../../parameterize/index.js';
import type { ConstantLeaf, LeafType } from './expression.js';
import type { SqlValue, Truth } from './sql-value.js';

/** A value's type as far as combining branches needs it: its class and, for decimals, its declared scale. */
export interface StaticType {
  readonly c: 'null' | 'int' | 'dec' | 'real' | 'text' | 'other';
  readonly scale: number;
}

/** The type of `CASE` / `COALESCE` / `IF` whose branches have these types (MySQL's type aggregation). */
export function combineTypes(types: readonly StaticType[]): StaticType {
  const known = types.filter((t) => t.c !== 'null');
  if (known.length === 0) return { c: 'null', scale: 0 };
  const scale = Math.max(...known.map((t) => t.scale));
  for (const c of ['other', 'text', 'real', 'dec'] as const) if (known.some((t) => t.c === c)) return { c, scale };
  return { c: 'int', scale: 0 };
}

/**
 * How one database computes with values: the evaluator is shared, the arithmetic, the
 * comparisons and the conversions from and to the driver's representation are not
 * (MySQL computes with exact DECIMALs and integer overflow errors; SQLite with storage
 * classes, integer division and NULL for overflowing integers turned into REAL).
 */
export interface Semantics {
  /** A merged row's value of a column leaf. */
  fromRow(value: unknown, type: LeafType): SqlValue;
  /** A statement's value slot: a `?` parameter as the driver sends it, or a literal. */
  fromSlot(slot: ValueSlot): SqlValue;
  fromConstant(constant: ConstantLeaf): SqlValue;
  /** `+ - * / DIV % MOD` and unary minus (`b` undefined). */
  arithmetic(op: string, a: SqlValue, b: SqlValue | undefined): SqlValue;
  /** `||`: SQLite concatenates text; MySQL reads it as OR. */
  readonly pipes: 'concat' | 'or';
  /** Text concatenation (`||` on SQLite): NULL when either side is. */
  concat(a: SqlValue, b: SqlValue): SqlValue;
  /** SQL comparison: negative, zero, positive, or null when either side is NULL. */
  compare(a: SqlValue, b: SqlValue): number | null;
  /** A value used as a condition. */
  truth(a: SqlValue): Truth;
  /** The boolean result of a comparison or logical operator as a value. */
  fromTruth(t: Truth): SqlValue;
  /** A function the dialect evaluates; undefined when it has none of that name. */
  call(name: string, args: readonly SqlValue[], literalArgs: readonly (SqlValue | undefined)[]): SqlValue | undefined;
  /** The static type of a leaf (MySQL types `CASE` / `COALESCE` / `IF` from all their branches). */
  staticOf(value: SqlValue | LeafType): StaticType;
  /**
   * The value of one branch of `CASE` / `COALESCE` / `IF` / `GREATEST` converted to the type of
   * the whole expression (`type`: the branches' types combined); SQLite keeps it as is.
   */
  unify(value: SqlValue, type: StaticType): SqlValue;
  /**
   * Back to the driver's representation. `hint` is a value the shards returned for the same
   * result column (they computed the expression on their partial data): same SQL type, so
   * its JavaScript form (number or string) is the one the driver uses for this column.
   */
  toDriver(value: SqlValue, hint: unknown): unknown;
}
