import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import nsp from 'node-sql-parser/build/mysql.js';
import { parameterize } from './parameterize.js';
import { spliceSql } from './splice.js';
import type { ParameterizedSql, SqlDialect, ValueSlot } from './parameterized-sql.js';
import { fillArb, render, renameIdent, shapeArb, type Instance, type PlacedValue } from './testing/sql-grammar.js';

const dialects: SqlDialect[] = ['mysql', 'sqlite'];
const parser = new nsp.Parser();

function statementArb(dialect: SqlDialect, selectOnly = false): fc.Arbitrary<Instance> {
  return shapeArb(selectOnly).chain((shape) => fillArb(shape, dialect).map((fill) => render(shape, fill, dialect)));
}

function sameSlot(actual: ValueSlot, expected: PlacedValue): void {
  expect({ start: actual.start, end: actual.end }).toEqual({ start: expected.start, end: expected.end });
  expect(actual.value).toEqual(expected.value);
  expect(actual.paramIndex === undefined).toBe(!expected.isParam);
}

function allSlots(p: ParameterizedSql): ValueSlot[] {
  return [...p.slots, ...p.inLists.flatMap((l) => l.items)].sort((a, b) => a.start - b.start);
}

describe.each(dialects)('parameterize properties (%s)', (dialect) => {
  it('finds every generated value at its exact position, and only those', () => {
    fc.assert(
      fc.property(statementArb(dialect), (st) => {
        const p = parameterize(st.sql, st.parameters, dialect);
        expect(p.slots).toHaveLength(st.slots.length);
        p.slots.forEach((slot, i) => sameSlot(slot, st.slots[i]!));
        expect(p.inLists).toHaveLength(st.lists.length);
        p.inLists.forEach((list, i) => {
          const expected = st.lists[i]!;
          expect({ open: list.open, close: list.close }).toEqual({ open: expected.open, close: expected.close });
          expect(list.items).toHaveLength(expected.items.length);
          list.items.forEach((item, k) => sameSlot(item, expected.items[k]!));
        });
        const generated = st.slots.length + st.lists.reduce((n, l) => n + l.items.length, 0);
        expect(p.slots.length + p.inLists.reduce((n, l) => n + l.items.length, 0)).toBe(generated);
      }),
    );
  });

  it('slices back to the literal text, and splicing each slot with its own text returns the input', () => {
    fc.assert(
      fc.property(statementArb(dialect), fc.boolean(), (st, reverse) => {
        const p = parameterize(st.sql, st.parameters, dialect);
        const slots = allSlots(p);
        const params = slots.filter((s) => s.paramIndex !== undefined);
        params.forEach((s, i) => {
          expect(s.paramIndex).toBe(i);
          expect(st.sql.slice(s.start, s.end)).toBe('?');
        });
        const edits = slots.map((s) => ({ start: s.start, end: s.end, text: st.sql.slice(s.start, s.end) }));
        if (reverse) edits.reverse();
        expect(spliceSql(st.sql, edits)).toBe(st.sql);
        const marked = spliceSql(st.sql, slots.map((s, i) => ({ start: s.start, end: s.end, text: `<${i}>` })));
        expect(marked.match(/<\d+>/g) ?? []).toHaveLength(slots.length);
      }),
    );
  });

  it('gives one key to statements differing only in values, IN-list lengths, whitespace and comments', () => {
    fc.assert(
      fc.property(
        shapeArb().chain((shape) =>
          fc.tuple(fc.constant(shape), fillArb(shape, dialect), fillArb(shape, dialect), fc.nat()),
        ),
        ([shape, fillA, fillB, n]) => {
          const a = render(shape, fillA, dialect);
          const b = render(shape, fillB, dialect);
          const pa = parameterize(a.sql, a.parameters, dialect);
          const pb = parameterize(b.sql, b.parameters, dialect);
          expect(pb.key).toBe(pa.key);
          expect(pb.parserSql).toBe(pa.parserSql);
          expect(pb.verb).toBe(shape.verb);
          const renamed = renameIdent(shape, n);
          const c = render(renamed, fillA, dialect);
          expect(parameterize(c.sql, c.parameters, dialect).key).not.toBe(pa.key);
        },
      ),
    );
  });

  it("writes parserSql that node-sql-parser's MySQL grammar accepts", () => {
    fc.assert(
      fc.property(statementArb(dialect), (st) => {
        const p = parameterize(st.sql, st.parameters, dialect);
        expect(() => parser.astify(p.parserSql, { database: 'mysql' })).not.toThrow();
      }),
      { numRuns: 60 },
    );
  });
});
