import { describe, expect, it } from 'vitest';
import { UnsupportedShardingError } from '../errors/index.js';
import type { SqlDialect } from '../parameterize/index.js';
import type { PulledSubquery } from '../plan/plan.js';
import type { MysqlValueType, ValueBinding } from '../plan/subquery/pulled-binding.js';
import { replacementOf } from './pulled-values.js';

const sqlite: ValueBinding = { dialect: 'sqlite' };
const mysql = (type: MysqlValueType, keepType = false): ValueBinding => ({ dialect: 'mysql', type, keepType, numericSlots: [] });
const BIGINT: MysqlValueType = { kind: 'integer', width: 'bigint' };
const INT: MysqlValueType = { kind: 'integer', width: 'int' };

interface ValuesCase {
  readonly name: string;
  readonly use: 'list' | 'scalar';
  readonly binding: ValueBinding;
  readonly values: readonly unknown[];
  readonly ordered?: boolean;
  readonly wholeItem?: boolean;
  readonly inByList?: boolean;
  readonly text?: string;
  readonly parameters?: readonly unknown[];
  readonly error?: RegExp;
}

const dialectOf = (b: ValueBinding): SqlDialect => b.dialect;
const siteOf = (c: ValuesCase) => ({ wholeItem: c.wholeItem ?? false, inByList: c.inByList ?? false });
const when = new Date(Date.UTC(2024, 1, 29, 10, 11, 12, 345));

const CASES: readonly ValuesCase[] = [
  // lists
  { name: 'SQLite: an empty list is an always-empty subquery (x IN it false, x NOT IN it true, even for NULL x)', use: 'list', binding: sqlite, values: [], text: '(SELECT NULL WHERE 1 = 0)', parameters: [] },
  { name: 'MySQL: the same, FROM DUAL', use: 'list', binding: mysql(BIGINT), values: [], text: '(SELECT NULL FROM DUAL WHERE 1 = 0)', parameters: [] },
  { name: 'SQLite: INTEGER as digits (bigint), REAL, TEXT and BLOB as parameters', use: 'list', binding: sqlite, values: [5n, -9223372036854775808n, 5, 2.5, 'a', Buffer.from([1, 2])], text: '(5, -9223372036854775808, ?, ?, ?, ?)', parameters: [5, 2.5, 'a', Buffer.from([1, 2])] },
  { name: 'duplicates go, one NULL stays (x NOT IN (1, NULL) is never true)', use: 'list', binding: sqlite, values: [1n, null, 1n, null, 2n, 'b', 'b'], text: '(1, NULL, 2, ?)', parameters: ['b'] },
  { name: 'MySQL integers and BIGINT strings as digits', use: 'list', binding: mysql(BIGINT), values: ['9223372036854775807', '-5', 7, 18446744073709551615n], text: '(9223372036854775807, -5, 7, 18446744073709551615)', parameters: [] },
  { name: 'MySQL DECIMAL strings as exact decimal literals (`960.`: a DECIMAL, not an integer)', use: 'list', binding: mysql({ kind: 'decimal' }), values: ['12.50', '-0.0001', '12345678901234567890.1234567890', '960'], text: '(12.50, -0.0001, 12345678901234567890.1234567890, 960.)', parameters: [] },
  { name: 'MySQL doubles as DOUBLE literals with round-trip digits', use: 'list', binding: mysql({ kind: 'double' }), values: [0.30000000000000004, -1.5e-300, 1], text: '(3.0000000000000004e-1, -1.5e-300, 1e+0)', parameters: [] },
  { name: 'MySQL strings and bytes as parameters', use: 'list', binding: mysql({ kind: 'string' }), values: ["it's", Buffer.from('x')], text: '(?, ?)', parameters: ["it's", Buffer.from('x')] },
  { name: 'MySQL dates as CAST(? AS DATETIME(n))', use: 'list', binding: mysql({ kind: 'temporal', cast: 'DATETIME(3)', fraction: 3 }), values: [when, '2024-01-01 00:00:00.000'], text: '(CAST(? AS DATETIME(3)), CAST(? AS DATETIME(3)))', parameters: [when, '2024-01-01 00:00:00.000'] },
  { name: 'MySQL DATETIME(6) read as JS Dates would lose microseconds: refused', use: 'list', binding: mysql({ kind: 'temporal', cast: 'DATETIME(6)', fraction: 6 }), values: [when], error: /dateStrings/ },
  { name: 'MySQL DATETIME(6) read as text (dateStrings) is exact', use: 'list', binding: mysql({ kind: 'temporal', cast: 'DATETIME(6)', fraction: 6 }), values: ['2024-01-01 00:00:00.123456'], text: '(CAST(? AS DATETIME(6)))', parameters: ['2024-01-01 00:00:00.123456'] },
  { name: 'a zero date (Invalid Date): refused', use: 'list', binding: mysql({ kind: 'temporal', cast: 'DATE', fraction: 0 }), values: [new Date(Number.NaN)], error: /zero date/ },
  { name: 'a value of another type than planned (a driver option): refused', use: 'list', binding: mysql(BIGINT), values: ['12.5'], error: /typeCast|supportBigNumbers/ },
  { name: 'more distinct values than maxSubqueryValues: refused, naming the option', use: 'list', binding: sqlite, values: [1n, 2n, 3n, 3n, 4n], error: /returned 4 distinct values, more than sharding\.maxSubqueryValues \(3\)/ },
  // scalars
  { name: 'no row: NULL', use: 'scalar', binding: sqlite, values: [], text: 'NULL', parameters: [] },
  { name: 'one row, in parentheses (`a-(SELECT …)` must not become the SQLite comment `a--5`)', use: 'scalar', binding: sqlite, values: [-5n], text: '(-5)', parameters: [] },
  { name: 'a whole list item needs no parentheses', use: 'scalar', binding: sqlite, values: [-5n], wholeItem: true, text: '-5', parameters: [] },
  { name: 'in ORDER BY / GROUP BY a number is no column position: `(-5 + 0)`', use: 'scalar', binding: sqlite, values: [-5n], wholeItem: true, inByList: true, text: '(-5 + 0)', parameters: [] },
  { name: 'in ORDER BY a MySQL DECIMAL keeps its type through `+ 0`', use: 'scalar', binding: mysql({ kind: 'decimal' }), values: ['0.00'], inByList: true, text: '(0.00 + 0)', parameters: [] },
  { name: 'in ORDER BY a string stays a parameter (no position)', use: 'scalar', binding: sqlite, values: ['a'], inByList: true, text: '(?)', parameters: ['a'] },
  { name: 'MySQL: several rows become two rows, so the server raises its own error where it evaluates them', use: 'scalar', binding: mysql(BIGINT), values: ['1', '2'], text: '(SELECT NULL UNION ALL SELECT NULL)', parameters: [] },
  { name: 'SQLite: several rows under ORDER BY: the first', use: 'scalar', binding: sqlite, values: ['b', 'a'], ordered: true, text: '(?)', parameters: ['b'] },
  { name: 'SQLite: several rows of one value: that value', use: 'scalar', binding: sqlite, values: [3n, 3n], text: '(3)', parameters: [] },
  { name: 'SQLite: several different rows without ORDER BY: refused (the first row is one database\'s scan order)', use: 'scalar', binding: sqlite, values: [3n, 4n], error: /ORDER BY … LIMIT 1/ },
  { name: 'MySQL select value of a BIGINT keeps BIGINT: zeros in front to 10 characters', use: 'scalar', binding: mysql(BIGINT, true), values: ['5'], text: '(0000000005)', parameters: [] },
  { name: 'MySQL select value of a negative BIGINT', use: 'scalar', binding: mysql(BIGINT, true), values: ['-5'], text: '(-000000005)', parameters: [] },
  { name: 'MySQL select value of an INT keeps INT (at most 9 characters)', use: 'scalar', binding: mysql(INT, true), values: [123456789], text: '(123456789)', parameters: [] },
  { name: 'MySQL select value of an INT beyond 9 characters cannot stay an INT literal: refused', use: 'scalar', binding: mysql(INT, true), values: [1234567890], error: /CAST the subquery's column AS DECIMAL/ },
  { name: 'NULL whatever the type', use: 'scalar', binding: mysql({ kind: 'temporal', cast: 'DATE', fraction: 0 }, true), values: [null], text: '(NULL)', parameters: [] },
];

describe('replacementOf', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const subquery: PulledSubquery = { ordinal: 0, use: c.use, ordered: c.ordered ?? false, binding: c.binding };
    const run = () => replacementOf(subquery, c.values, dialectOf(c.binding), 3, siteOf(c));
    if (c.error) {
      expect(run).toThrow(UnsupportedShardingError);
      expect(run).toThrow(c.error);
      return;
    }
    // The cap applies to lists; the list cases above stay under it except the one that tests it.
    const replacement = c.values.length > 3 && c.use === 'list' ? replacementOf(subquery, c.values, dialectOf(c.binding), 100, siteOf(c)) : run();
    expect(replacement).toEqual({ text: c.text, parameters: c.parameters });
  });
});
