import type { ScaledDecimal } from '../decimal.js';

/**
 * A value while an expression is evaluated, with the SQL type class that decides how
 * operators treat it. Drivers' representations (mysql2's decimal strings, SQLite's numbers)
 * are converted on the way in and back on the way out by the dialect's semantics.
 */
export type SqlValue = IntValue | DecimalValue | RealValue | TextValue | OtherValue | null;

/** An exact integer (MySQL BIGINT arithmetic, SQLite INTEGER). */
export interface IntValue {
  readonly t: 'int';
  readonly v: bigint;
}

/**
 * An exact decimal (MySQL only). `v` is the value at the precision the server computes with
 * internally (a division keeps whole 9-digit words); `scale` is the declared number of
 * fraction digits the result is rounded to when it leaves the server.
 */
export interface DecimalValue {
  readonly t: 'dec';
  readonly v: ScaledDecimal;
  readonly scale: number;
}

/** A double. */
export interface RealValue {
  readonly t: 'real';
  readonly v: number;
}

/** Text. */
export interface TextValue {
  readonly t: 'text';
  readonly v: string;
}

/** A date, time or byte string: compared and passed through, never computed with. */
export interface OtherValue {
  readonly t: 'other';
  readonly v: unknown;
}

export const int = (v: bigint): IntValue => ({ t: 'int', v });
export const real = (v: number): RealValue => ({ t: 'real', v });
export const text = (v: string): TextValue => ({ t: 'text', v });
export const dec = (v: ScaledDecimal, scale: number = v.scale): DecimalValue => ({ t: 'dec', v, scale });

/** SQL's three-valued truth: true, false or unknown (null). */
export type Truth = boolean | null;

/** True for the number classes. */
export function isNumber(value: SqlValue): value is IntValue | DecimalValue | RealValue {
  return value !== null && (value.t === 'int' || value.t === 'dec' || value.t === 'real');
}
