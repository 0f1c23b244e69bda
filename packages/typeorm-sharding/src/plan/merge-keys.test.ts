import { describe, expect, it } from 'vitest';
import { UNTYPED_ORDER, type ColumnOrder } from './column-order.js';
import { distinctKeysOf, extremeOf, groupKeyOf, type Derive } from './merge-keys.js';

const KEYED: ColumnOrder = {
  kind: 'exact',
  order: { type: 'numeric', collation: 'binary', key: (c) => `(${c} + 0)` },
  extreme: { type: 'numeric', collation: 'binary', key: (fn, c) => `${fn}(${c} + 0)` },
  rule: 'test',
};
const REFUSED: ColumnOrder = { kind: 'refused', reason: 'no order' };

/** A derive that records what it was asked to select. */
function recorder(): { derive: Derive; selected: string[] } {
  const selected: string[] = [];
  return { selected, derive: (expression, kind) => `${kind}:${selected.push(expression) - 1}` };
}

describe('groupKeyOf', () => {
  it('uses the server key when the order has one, else the result column, else selects the expression', () => {
    const { derive, selected } = recorder();
    expect(groupKeyOf(KEYED, 'e', '`t`.`e`', derive)).toEqual({ key: { column: 'key:0', collation: 'binary' } });
    expect(groupKeyOf(UNTYPED_ORDER, 'n', '`t`.`n`', derive)).toEqual({ key: { column: 'n', collation: 'binary' } });
    expect(groupKeyOf(UNTYPED_ORDER, undefined, '`t`.`m`', derive)).toEqual({ key: { column: 'group:1', collation: 'binary' } });
    expect(selected).toEqual(['(`t`.`e` + 0)', '`t`.`m`']);
  });

  it('says why it cannot group', () => {
    const { derive } = recorder();
    expect(groupKeyOf(REFUSED, 'x', 'x', derive)).toEqual({ unmergeable: 'no order' });
    expect(groupKeyOf(UNTYPED_ORDER, undefined, undefined, derive)).toEqual({ unmergeable: 'GROUP BY an expression that is not in the select list' });
  });
});

describe('extremeOf', () => {
  it('compares partial results by the key of each shard\'s MIN/MAX when the order has one', () => {
    const { derive, selected } = recorder();
    expect(extremeOf('MAX', 'hi', KEYED, '`t`.`e`', derive)).toEqual({ alias: 'hi', fn: 'MAX', type: 'numeric', collation: 'binary', keyColumn: 'extreme:0' });
    expect(selected).toEqual(['MAX(`t`.`e` + 0)']);
    expect(extremeOf('MIN', 'lo', UNTYPED_ORDER, undefined, derive)).toEqual({ alias: 'lo', fn: 'MIN', type: 'auto', collation: 'binary' });
    expect(extremeOf('MIN', 'lo', REFUSED, 'x', derive)).toEqual({ unmergeable: 'no order' });
  });
});

describe('distinctKeysOf', () => {
  it('one key per item; none when an item has no readable name; the first refusal', () => {
    const { derive } = recorder();
    const item = (name: string | undefined, order: ColumnOrder) => ({ name, order, text: `\`t\`.\`${name}\`` });
    expect(distinctKeysOf([item('a', KEYED), item('b', UNTYPED_ORDER)], derive)).toEqual({
      keys: [{ column: 'key:0', collation: 'binary' }, { column: 'b', collation: 'binary' }],
    });
    expect(distinctKeysOf([item(undefined, UNTYPED_ORDER), item('b', KEYED)], derive)).toBeUndefined();
    expect(distinctKeysOf([item('a', UNTYPED_ORDER), item('b', REFUSED)], derive)).toEqual({ unmergeable: 'no order' });
  });
});
