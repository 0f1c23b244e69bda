/**
 * The text that takes the place of a subquery once its values are known: `(v1, v2, …)` for
 * `x IN (SELECT …)`, one value for a scalar subquery, each written as `binding` says (see
 * `plan/subquery/pulled-binding.ts`). SQL's answers for the edge cases are kept as the database gives
 * them: an empty list is an always-empty subquery (`x IN` it is false and `x NOT IN` it true,
 * even for a NULL `x`), NULLs stay in the list (`x NOT IN (1, NULL)` is never true), a scalar
 * subquery without a row is NULL, and one with several rows is what the database does with it.
 */
import { UnsupportedShardingError } from '../errors/index.js';
import type { SqlDialect, ValueSlot } from '../parameterize/index.js';
import type { PulledSubquery } from '../plan/plan.js';
import type { MysqlValueType, ValueBinding } from '../plan/subquery/pulled-binding.js';

/** Text and parameters that replace `(SELECT …)`, parentheses included. */
export interface Replacement {
  readonly text: string;
  readonly parameters: readonly unknown[];
}

/** A subquery that returns no row, valid where a list or a value may stand. */
const EMPTY: Readonly<Record<SqlDialect, string>> = {
  mysql: '(SELECT NULL FROM DUAL WHERE 1 = 0)',
  sqlite: '(SELECT NULL WHERE 1 = 0)',
};

/** What takes the place of an EXISTS subquery's `(SELECT …)` once it is known whether it has a row. */
export function existsReplacement(hasRow: boolean, dialect: SqlDialect): string {
  return hasRow ? '(SELECT 1)' : EMPTY[dialect];
}

/** Two rows: MySQL raises its own "Subquery returns more than 1 row" where it evaluates it. */
export const TWO_ROWS = '(SELECT NULL UNION ALL SELECT NULL)';

/**
 * A scalar subquery that returned several rows on MySQL: the database raises "Subquery returns
 * more than 1 row" for it, as a rule while it plans the statement (before any row is read).
 * Running this makes the database raise it, at once, with its own error.
 */
export const MORE_THAN_ONE_ROW = `SELECT ${TWO_ROWS} AS more_than_one_row`;

/**
 * The replacement of one subquery given the first column of each of its rows.
 *
 * @param maxValues most distinct values a list may hold (`sharding.maxSubqueryValues`)
 * @param site where the subquery sits: a whole item of a list (`VALUES (1, (SELECT …))`) needs no
 *   parentheses; in an ORDER BY / GROUP BY list a number must not read as a column position
 */
export function replacementOf(
  subquery: PulledSubquery,
  values: readonly unknown[],
  dialect: SqlDialect,
  maxValues: number,
  site: { readonly wholeItem: boolean; readonly inByList: boolean } = { wholeItem: false, inByList: false },
): Replacement {
  if (subquery.use === 'list') {
    const distinct = distinctValues(values);
    if (distinct.length === 0) return { text: EMPTY[dialect], parameters: [] };
    if (distinct.length > maxValues) {
      throw new UnsupportedShardingError(
        `An IN subquery over sharded tables returned ${distinct.length} distinct values, more than sharding.maxSubqueryValues (${maxValues}) allows in the statement that runs next. ` +
          'Narrow the subquery, join on the shard keys instead, or raise sharding.maxSubqueryValues (SQLite allows at most 32766 parameters per statement).',
        { stage: 'execute' },
      );
    }
    const written = distinct.map((v) => writeValue(v, subquery.binding));
    return { text: `(${written.map((w) => w.text).join(', ')})`, parameters: written.flatMap((w) => w.parameters) };
  }
  if (values.length === 0) return { text: 'NULL', parameters: [] };
  if (values.length > 1) {
    if (dialect === 'mysql') return { text: TWO_ROWS, parameters: [] };
    // SQLite answers with the first row: defined by ORDER BY, or when every row holds one value.
    if (!subquery.ordered && distinctValues(values).length > 1) {
      throw new UnsupportedShardingError(
        `A scalar subquery over sharded tables returned ${values.length} rows with different values and no ORDER BY: SQLite would use the first row of one database's scan order, which the shards do not have. ` +
          'Make it return one row (an aggregate, a key condition), or give it ORDER BY … LIMIT 1.',
        { stage: 'execute' },
      );
    }
  }
  // In parentheses: `a-(SELECT …)` must not become `a--5`, a comment in SQLite.
  const value = writeValue(values[0], subquery.binding);
  // `ORDER BY (5)` would name the fifth column: `5 + 0` is the same number and no position.
  if (site.inByList && /^[-+]?\.?\d/.test(value.text)) return { text: `(${value.text} + 0)`, parameters: value.parameters };
  return site.wholeItem ? value : { text: `(${value.text})`, parameters: value.parameters };
}

/**
 * Checks what only this statement's values tell: a number compared with a value slot
 * compares with a literal as with the subquery's column only when the slot holds a number.
 */
export function checkPartnerSlots(subquery: PulledSubquery, slots: readonly ValueSlot[]): void {
  if (subquery.binding.dialect !== 'mysql') return;
  for (const slot of subquery.binding.numericSlots) {
    const s = slots[slot];
    const value = s?.value;
    if (s === undefined || s.isNumericLiteral || typeof value === 'number' || typeof value === 'bigint' || value === null) continue;
    throw new UnsupportedShardingError(
      `A subquery over sharded tables is compared with the parameter ${JSON.stringify(String(value)).slice(0, 40)}, a string: the server compares a string with a literal number as doubles, with the subquery's column exactly. Pass a number.`,
      { stage: 'execute' },
    );
  }
}

/** The values without repeats (they change nothing in a list); one NULL stays if there was any. */
function distinctValues(values: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  const out: unknown[] = [];
  for (const v of values) {
    const key = identityOf(v);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(v);
  }
  return out;
}

function identityOf(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (v instanceof Date) return `d:${v.getTime()}`;
  if (v instanceof Uint8Array) return `b:${Buffer.from(v).toString('hex')}`;
  return `${typeof v}:${String(v)}`;
}

/** One value as text plus parameters. */
export function writeValue(value: unknown, binding: ValueBinding): Replacement {
  if (value === null || value === undefined) return { text: 'NULL', parameters: [] };
  return binding.dialect === 'sqlite' ? sqliteValue(value) : mysqlValue(value, binding.type, binding.keepType);
}

/**
 * SQLite: the storage class stays (the subquery was read with safe integers): INTEGER as its
 * digits (better-sqlite3 would bind a JS number as REAL), REAL, TEXT and BLOB as parameters.
 */
function sqliteValue(value: unknown): Replacement {
  if (typeof value === 'bigint') return { text: value.toString(), parameters: [] };
  if (typeof value === 'number' || typeof value === 'string' || value instanceof Uint8Array) return { text: '?', parameters: [value] };
  throw unexpected(value, 'a SQLite value');
}

const INTEGER = /^-?\d+$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;

function mysqlValue(value: unknown, type: MysqlValueType, keepType: boolean): Replacement {
  switch (type.kind) {
    case 'integer': {
      const digits = typeof value === 'number' && Number.isInteger(value) ? BigInt(value).toString() : typeof value === 'bigint' ? value.toString() : String(value);
      if (!INTEGER.test(digits)) throw unexpected(value, 'an integer');
      return { text: keepType ? integerLiteral(digits, type.width) : digits, parameters: [] };
    }
    case 'decimal': {
      const text = String(value);
      if ((typeof value !== 'string' && typeof value !== 'number') || !DECIMAL.test(text)) throw unexpected(value, 'a decimal');
      // `960` would be an integer literal; `960.` is a DECIMAL of scale 0, as SUM(int) returns it.
      return { text: text.includes('.') ? text : `${text}.`, parameters: [] };
    }
    case 'double':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw unexpected(value, 'a double');
      // The exponent makes it a DOUBLE literal; JavaScript prints the shortest digits that read back exactly.
      return { text: value.toExponential(), parameters: [] };
    case 'string':
      if (typeof value !== 'string' && !(value instanceof Uint8Array)) throw unexpected(value, 'a string');
      return { text: '?', parameters: [value] };
    case 'temporal':
      if (value instanceof Date) {
        if (Number.isNaN(value.getTime())) {
          throw new UnsupportedShardingError('A subquery over sharded tables returned a date the driver could not read (a zero date); select it as text (DATE_FORMAT) or set the driver option dateStrings.', { stage: 'execute' });
        }
        if (type.fraction > 3) {
          throw new UnsupportedShardingError(
            `A subquery over sharded tables returned ${type.cast} values as JavaScript Dates, which keep milliseconds only; set the driver option dateStrings so that they are read as text, or compare at millisecond precision.`,
            { stage: 'execute' },
          );
        }
      } else if (typeof value !== 'string') {
        throw unexpected(value, 'a date or time');
      }
      return { text: `CAST(? AS ${type.cast})`, parameters: [value] };
    case 'null':
      throw unexpected(value, 'NULL');
  }
}

/**
 * An integer literal the server types as the subquery's item was typed, so that the driver
 * returns it alike (mysql2 returns BIGINT as a string, INT as a number). MariaDB types an
 * integer literal by its length: BIGINT from 10 characters on, INT below; zeros in front
 * keep the value.
 */
function integerLiteral(digits: string, width: 'bigint' | 'int' | 'unknown'): string {
  if (width === 'bigint') {
    if (digits.length >= 10) return digits;
    const negative = digits.startsWith('-');
    const body = negative ? digits.slice(1) : digits;
    return (negative ? '-' : '') + body.padStart(negative ? 9 : 10, '0');
  }
  if (digits.length > 9) {
    throw new UnsupportedShardingError(
      `A scalar subquery over sharded tables returned the INT value ${digits}, which a literal can only carry as a BIGINT (the driver would return it as text instead of a number); CAST the subquery's column AS DECIMAL, or compare it instead of selecting it.`,
      { stage: 'execute' },
    );
  }
  return digits;
}

function unexpected(value: unknown, expected: string): UnsupportedShardingError {
  const shown = value instanceof Uint8Array ? 'binary data' : typeof value === 'object' ? Object.prototype.toString.call(value) : `${typeof value} ${String(value).slice(0, 40)}`;
  return new UnsupportedShardingError(
    `A subquery over sharded tables returned ${shown} where ${expected} was expected (a driver option such as typeCast, decimalNumbers or supportBigNumbers changes how values are read); its values cannot be put back into the statement exactly.`,
    { stage: 'execute' },
  );
}
