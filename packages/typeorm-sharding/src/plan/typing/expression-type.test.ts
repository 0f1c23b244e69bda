import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { parseStatement } from '../nodes/from-parser.js';
import type { SelectNode } from '../nodes/sql-node.js';
import { fakeRules } from '../testing/fake-rules.js';
import { ExpressionTyper } from './expression-type.js';

const rules = fakeRules([{ table: 'facts', distribution: 'sharded', columns: { id: 'int', price: 'decimal', ratio: 'double', note: 'varchar' }, key: { column: 'id' } }]);

/** The MySQL type of each select item of `SELECT <items> FROM facts f`, as `class` (and `inexact`). */
function typesOf(items: string): string[] {
  const select = parseStatement(`SELECT ${items} FROM facts f`) as SelectNode;
  const typer = new ExpressionTyper(select, rules, 'mysql');
  return select.items.map((i) => {
    const t = typer.typeOf(i.expr);
    return t.kind === 'number' ? `${t.class}${t.inexact ? '?' : ''}` : t.kind;
  });
}

describe('ExpressionTyper (MySQL arithmetic)', () => {
  it('makes arithmetic with a DOUBLE operand DOUBLE, whatever the other operand is', () => {
    // `:p1` is a value slot (a literal the parameterizer lifted): its class is known per statement only.
    expect(typesOf('f.ratio * :p1, :p1 * f.ratio, MAX(f.ratio * :p1), f.price / MAX(f.ratio * :p1), f.ratio + f.note')).toEqual(['real', 'real', 'real', 'real', 'real']);
  });

  it('keeps a number of unknown class inexact when no operand is a DOUBLE', () => {
    expect(typesOf('f.price * :p1, f.id + :p1')).toEqual(['real?', 'real?']);
    expect(typesOf('f.price / f.id, f.id * 2')).toEqual(['decimal', 'int']);
  });
});
