import { describe, expect, it } from 'vitest';
import type { ValueSlot } from '../../parameterize/index.js';
import { compileExpression, semanticsOf } from './compile.js';
import type { LeafType, ScalarExpression } from './expression.js';

// Expected values were read off MariaDB 10.11 and SQLite 3.53 (better-sqlite3), as mysql2 and
// better-sqlite3 return them: the evaluator must compute what the server computes.

const n = (text: string | number): ScalarExpression => ({ kind: 'constant', value: String(text), numeric: true });
const s = (text: string): ScalarExpression => ({ kind: 'constant', value: text, numeric: false });
const NULL: ScalarExpression = { kind: 'constant', value: null, numeric: false };
const op = (o: string, ...args: ScalarExpression[]): ScalarExpression => ({ kind: 'operator', op: o, args });
const call = (name: string, ...args: ScalarExpression[]): ScalarExpression => ({ kind: 'call', name, args });
const col = (column: string, type: LeafType): ScalarExpression => ({ kind: 'column', column, type });

/** Evaluates on `row`, returning the driver's form; `hint` is the shards' value of the column (its JavaScript form). */
function evaluate(dialect: 'mysql' | 'sqlite', expr: ScalarExpression, row: Record<string, unknown> = {}, hint?: unknown, slots: ValueSlot[] = []): unknown {
  const semantics = semanticsOf(dialect);
  return semantics.toDriver(compileExpression(expr, semantics)(row, slots), hint);
}

describe('MySQL semantics (MariaDB 10.11)', () => {
  it.each<[string, ScalarExpression, unknown]>([
    ['1/3', op('/', n(1), n(3)), '0.3333'],
    ['1/3*3 keeps the 9-digit quotient', op('*', op('/', n(1), n(3)), n(3)), '1.0000'],
    ['10/3/3', op('/', op('/', n(10), n(3)), n(3)), '1.11111111'],
    ['2/3 rounds half up', op('/', n(2), n(3)), '0.6667'],
    ['1/3*3000000000', op('*', op('/', n(1), n(3)), n(3000000000)), '999999999.0000'],
    ['-1/3', op('/', op('-', n(1)), n(3)), '-0.3333'],
    ['division by zero is NULL', op('/', n(7), n(0)), null],
    ['2*1.50 adds scales', op('*', n(2), n('1.50')), '3.00'],
    ['2.5 % 1', op('%', n('2.5'), n(1)), '0.5'],
    ['MOD(-7.5, 2)', call('MOD', n('-7.5'), n(2)), '-1.5'],
    ['7.5 DIV 2', op('DIV', n('7.5'), n(2)), '3'],
    ['ROUND(-2.5) half away from zero', call('ROUND', n('-2.5')), '-3'],
    ['ROUND(2.45, 1)', call('ROUND', n('2.45'), n(1)), '2.5'],
    ['ROUND(7.25, 5) widens the scale', call('ROUND', n('7.25'), n(5)), '7.25000'],
    ['FLOOR(-2.5)', call('FLOOR', n('-2.5')), '-3'],
    ['ABS(-2.50) keeps the scale', call('ABS', n('-2.50')), '2.50'],
    ['COALESCE(NULL, 1.50)', call('COALESCE', NULL, n('1.50')), '1.50'],
    ['IF(1, 2, 3.0) types from both branches', call('IF', n(1), n(2), n('3.0')), '2.0'],
    ['GREATEST(1, 2.5)', call('GREATEST', n(1), n('2.5')), '2.5'],
    ["'10' = 10.0 compares as doubles", op('=', s('10'), n('10.0')), '1'],
    ['1 XOR 1', op('XOR', n(1), n(1)), '0'],
    ['0 AND NULL is false', op('AND', n(0), NULL), '0'],
    ['1 OR NULL is true', op('OR', n(1), NULL), '1'],
    ['NOT NULL is NULL', op('NOT', NULL), null],
    ['3 BETWEEN 1 AND 5', op('BETWEEN', n(3), n(1), n(5)), '1'],
    ['3 IN (1, 3.0)', op('IN', n(3), n(1), n('3.0')), '1'],
    ['NULL <=> NULL', op('<=>', NULL, NULL), '1'],
    ['CASE 2 WHEN 2.0 THEN x', { kind: 'case', operand: n(2), branches: [{ when: n('2.0'), then: s('x') }], otherwise: undefined }, 'x'],
  ])('%s', (_label, expr, expected) => {
    expect(evaluate('mysql', expr, {}, typeof expected === 'string' ? '' : undefined)).toEqual(expected);
  });

  it('reads merged aggregates by their SQL type: SUM of integers is DECIMAL, COUNT an integer', () => {
    const row = { s: '12', c: '2', m: 7 };
    expect(evaluate('mysql', op('/', col('s', { class: 'decimal', scale: 0 }), col('c', { class: 'int' })), row, '0.0000')).toBe('6.0000');
    expect(evaluate('mysql', op('+', col('c', { class: 'int' }), n(0)), row, '0')).toBe('2');
    // mysql2 returns INT as a number: the shards' own value of the item tells the form.
    expect(evaluate('mysql', call('COALESCE', col('m', { class: 'int' }), n(0)), row, 0)).toBe(7);
  });

  it('fails like the server on BIGINT overflow', () => {
    expect(() => evaluate('mysql', op('+', n('9223372036854775807'), n('18446744073709551615')))).toThrow(/BIGINT value is out of range/);
  });

  it('a `?` parameter is typed as mysql2 writes it into the statement', () => {
    const slot = (value: unknown): ValueSlot => ({ start: 0, end: 1, paramIndex: 0, value, isNumericLiteral: false });
    const p = (value: unknown) => evaluate('mysql', op('/', { kind: 'slot', slot: 0 }, n(4)), {}, '', [slot(value)]);
    expect(p(1)).toBe('0.2500');
    expect(p(1.5)).toBe('0.37500');
    expect(p('3')).toBe(0.75);
  });
});

describe('SQLite semantics (3.53)', () => {
  it.each<[string, ScalarExpression, unknown]>([
    ['7/2 truncates two INTEGERs', op('/', n(7), n(2)), 3],
    ['-7/2 toward zero', op('/', op('-', n(7)), n(2)), -3],
    ['7.0/2', op('/', n('7.0'), n(2)), 3.5],
    ['7/0 is NULL', op('/', n(7), n(0)), null],
    ['7 % 2.5 casts to integers', op('%', n(7), n('2.5')), 1],
    ['-7 % 3', op('%', op('-', n(7)), n(3)), -1],
    ['round(2.5)', call('ROUND', n('2.5')), 3],
    ['round(-2.5)', call('ROUND', op('-', n('2.5'))), -3],
    ['round(0.125, 2)', call('ROUND', n('0.125'), n(2)), 0.13],
    ['round(2.675, 2) on the binary value', call('ROUND', n('2.675'), n(2)), 2.67],
    ['INTEGER overflow becomes REAL', op('+', n('9223372036854775807'), n(1)), 2 ** 63],
    ["5 > '4': numbers sort before text", op('>', n(5), s('4')), 0],
    ["'5' > 4", op('>', s('5'), n(4)), 1],
    ["'12abc' + 1", op('+', s('12abc'), n(1)), 13],
    ['abs of text', call('ABS', s('x')), 0],
    ['iif', call('IIF', n(0), n(1), s('a')), 'a'],
    ["|| concatenates text: 5 || '-'", op('||', n(5), s('-')), '5-'],
    ["a REAL as text: 2.50 || ''", op('||', n('2.50'), s('')), '2.5'],
    ["an integral REAL as text: 5.0 || ''", op('||', n('5.0'), s('')), '5.0'],
    ["0.1 + 0.2 as text has 15 digits", op('||', op('+', n('0.1'), n('0.2')), s('')), '0.3'],
    ['NULL || x', op('||', NULL, s('x')), null],
  ])('%s', (_label, expr, expected) => {
    expect(evaluate('sqlite', expr)).toEqual(expected);
  });

  it('tells an INTEGER from a REAL of the same value (the shards read integers as bigint)', () => {
    expect(evaluate('sqlite', op('/', col('s', { class: 'auto' }), col('c', { class: 'auto' })), { s: 12n, c: 5n })).toBe(2);
    expect(evaluate('sqlite', op('/', col('s', { class: 'auto' }), col('c', { class: 'auto' })), { s: 12, c: 5n })).toBe(2.4);
  });
});
