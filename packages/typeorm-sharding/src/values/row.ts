/**
 * One result row as TypeORM's drivers return it: a plain object keyed by the result
 * column alias. Values keep the driver's representation (mysql2 returns DECIMAL and
 * BIGINT as strings, DATETIME as `Date`; SQLite returns numbers, strings and null).
 */
export type Row = Record<string, unknown>;
