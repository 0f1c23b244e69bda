import 'reflect-metadata';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Query, ShapeCase, Typed } from './support/shapes/ast.js';
import { shapeCases } from './support/shapes/arbitrary.js';
import { SHAPE_CLASSES, selectedClasses } from './support/shapes/classes.js';
import { decimalText, differenceOf, distinctRowsOf, sameValue } from './support/shapes/compare.js';
import { shapeData, shapeTables } from './support/shapes/schema.js';
import { firstSelect, typeOf } from './support/shapes/typing.js';

// The random-shapes oracle is only as good as its judge: these check, without a database,
// that the comparison is exact where it must be, and that the generator keeps its promises
// (no LIMIT without a total order, no inexact value in ORDER BY).

const num: Typed = { type: 'decimal', exact: true, anyCase: false };
const text: Typed = { type: 'text', exact: true, anyCase: false };
const anyCaseText: Typed = { type: 'text', exact: true, anyCase: true };
const float: Typed = { type: 'double', exact: false, anyCase: false };
const dummyQuery = { kind: 'union', all: true, selects: [], orderBy: [], limit: undefined } as Query;
/** The select-list position (0-based) of an output alias; of the first select of a UNION. */
function outputIndex(q: Query, alias: string): number {
  const select = firstSelect(q);
  const items = select.items === '*' ? [] : select.items;
  const i = items.findIndex((item) => item.alias === alias);
  if (i < 0) throw new Error(`no output named ${alias}`);
  return i;
}
const caseOf = (outputs: Typed[], ordered: boolean): ShapeCase => ({ shapeClass: 'test', query: dummyQuery, outputs, ordered, tags: [] });

describe('comparing answers', () => {
  it('compares numbers by value, whatever their JS type (mysql2 returns DECIMAL and BIGINT as text)', () => {
    expect(decimalText('12.50')).toBe('12.5');
    expect(decimalText(12.5)).toBe('12.5');
    expect(decimalText('-0.000')).toBe('0');
    expect(decimalText('9223372036854775807')).toBe('9223372036854775807');
    expect(decimalText(1e21)).toBe('1000000000000000000000');
    expect(decimalText(1.5e-7)).toBe('0.00000015');
    expect(decimalText('abc')).toBeUndefined();
    expect(sameValue('12.50', 12.5, 'number')).toBe(true);
    expect(sameValue('180', 180, 'number')).toBe(true);
    expect(sameValue('12.50', 12.51, 'number')).toBe(false);
    expect(sameValue(0.30000000000000004, 0.3, 'number')).toBe(false);
  });

  it('allows a tolerance only for floating-point aggregates', () => {
    expect(sameValue(0.30000000000000004, 0.3, 'float')).toBe(true);
    expect(sameValue(100.02000000000001, 100.02, 'float')).toBe(true);
    expect(sameValue(100.02, 100.03, 'float')).toBe(false);
    expect(sameValue(null, 0, 'float')).toBe(false);
  });

  it('compares text exactly, or case-insensitively where one database may show any case variant', () => {
    expect(sameValue('Apple', 'apple', 'text')).toBe(false);
    expect(sameValue('Apple', 'apple', 'anyCase')).toBe(true);
    expect(sameValue('1.50', '1.5', 'text')).toBe(false);
    expect(sameValue(null, 'NULL', 'text')).toBe(false);
    expect(sameValue(Buffer.from('41', 'hex'), Buffer.from('41', 'hex'), 'other')).toBe(true);
    expect(sameValue(new Date(0), new Date(1), 'other')).toBe(false);
  });

  it('compares rows in order only when the ORDER BY fixes it, as multisets otherwise', () => {
    const a = [{ n: 1 }, { n: 2 }];
    const b = [{ n: 2 }, { n: 1 }];
    expect(differenceOf(a, b, caseOf([num], true))).toMatch(/row 0/);
    expect(differenceOf(a, b, caseOf([num], false))).toBeUndefined();
    expect(differenceOf(a, [{ n: 1 }], caseOf([num], false))).toMatch(/1 rows from the sharded source, 2 from the plain one/);
    expect(differenceOf(a, [{ n: 1 }, { n: 1 }], caseOf([num], false))).toMatch(/row/);
    expect(differenceOf([{ n: 1, s: 'a' }], [{ n: 1 }], caseOf([num, text], true))).toMatch(/columns/);
    expect(differenceOf([{ t: 'Apple' }], [{ t: 'APPLE' }], caseOf([anyCaseText], true))).toBeUndefined();
    expect(differenceOf([{ t: 'Apple' }], [{ t: 'APPLE' }], caseOf([text], true))).toMatch(/plain "Apple", sharded "APPLE"/);
    expect(differenceOf([{ f: 1 / 3 }], [{ f: 0.33333333333333337 }], caseOf([float], true))).toBeUndefined();
  });

  it('makes a plain answer distinct only when it repeats a row (MariaDB\'s DISTINCT bug), by exact value', () => {
    expect(distinctRowsOf([{ a: '5.0000', b: 5 }, { a: '5.0000', b: 5 }, { a: '6.0000', b: 6 }])).toEqual([{ a: '5.0000', b: 5 }, { a: '6.0000', b: 6 }]);
    expect(distinctRowsOf([{ a: '5.0000', b: 5 }, { a: '5.0000', b: 6 }])).toBeUndefined();
    expect(distinctRowsOf([{ a: Buffer.from([1]) }, { a: Buffer.from([2]) }])).toBeUndefined();
  });

  it('pairs multiset rows whose floats agree to 8 digits by their exact values (not crosswise)', () => {
    const plain = [{ g: 1, f: 142860.14285714287 }, { g: 1, f: 142860.14385714286 }];
    const sharded = [{ g: 1, f: 142860.14385714286 }, { g: 1, f: 142860.1428571428 }];
    expect(differenceOf(plain, sharded, caseOf([num, float], false))).toBeUndefined();
    expect(differenceOf(plain, [sharded[0]!, { g: 1, f: 142860.15 }], caseOf([num, float], false))).toMatch(/column "f"/);
  });
});

describe('the query-shape generator', () => {
  for (const backend of ['sqlite', 'mariadb'] as const) {
    const dialect = backend === 'mariadb' ? 'mysql' : 'sqlite';
    for (const cls of SHAPE_CLASSES.filter((k) => !k.dialects || k.dialects.includes(dialect))) {
      it(`${backend} ${cls.name}: LIMIT only under a total order, ORDER BY only on exact values, unique output names`, () => {
        fc.assert(
          fc.property(shapeCases(cls, dialect, shapeTables(backend), shapeData(backend)), ({ c, q }) => {
            const limited = c.query.limit !== undefined;
            if (limited) expect(c.ordered, q.sql).toBe(true);
            expect(q.sql.split('?').length - 1, q.sql).toBe(q.params.length);
            if (c.query.kind === 'select' && c.query.items !== '*') {
              const items = c.query.items;
              const names = items.map((i) => i.alias ?? (i.expr.kind === 'column' ? i.expr.column.name : undefined)).filter((n) => n !== undefined);
              expect(new Set(names).size, q.sql).toBe(names.length);
            }
            for (const key of c.query.orderBy) {
              const t = key.term;
              const exact = t.kind === 'expr' ? typeOf(t.expr, dialect).exact : t.kind === 'position' ? c.outputs[t.index - 1]!.exact : c.outputs[outputIndex(c.query, t.name)]!.exact;
              expect(exact, q.sql).toBe(true);
            }
          }),
          { numRuns: 500 },
        );
      });
    }
  }

  it('SHAPES_CLASSES selects classes by name and rejects unknown names', () => {
    expect(selectedClasses(undefined).map((c) => c.name)).toEqual(SHAPE_CLASSES.map((c) => c.name));
    expect(selectedClasses('groups, joins').map((c) => c.name)).toEqual(['groups', 'joins']);
    expect(() => selectedClasses('groups,nope')).toThrow(/unknown classes nope; known: rows, aggregates/);
  });
});
