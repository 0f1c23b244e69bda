import { describe, expect, it } from 'vitest';
import { ShardingInternalError } from '../errors/index.js';
import { parameterize } from '../parameterize/index.js';
import { applyTokens } from './sql-token.js';

describe('applyTokens', () => {
  const p = parameterize('SELECT a FROM t WHERE b = ? AND c IN (?, ?, ?) LIMIT ?', ['b', 1, 2, 3, 10], 'mysql');
  const list = p.inLists[0]!;

  it('without tokens gives the text and the parameter array back', () => {
    const out = applyTokens(p, []);
    expect(out.sql).toBe(p.sql);
    expect(out.parameters).toBe(p.parameters);
  });

  it('a replacement drops the parameters inside its range and puts its values in their place', () => {
    const out = applyTokens(p, [{ start: list.open + 1, end: list.close, text: '?', values: [2] }]);
    expect(out).toEqual({ sql: 'SELECT a FROM t WHERE b = ? AND c IN (?) LIMIT ?', parameters: ['b', 2, 10] });
  });

  it('an insertion puts its values before the parameters that follow it; tokens in any order', () => {
    const from = p.sql.indexOf('FROM');
    const limit = p.slots[p.slots.length - 1]!;
    const out = applyTokens(p, [
      { start: limit.start, end: limit.end, text: '?', values: [40] },
      { start: from, end: from, text: ', ? AS x ', values: ['x'] },
    ]);
    expect(out).toEqual({ sql: 'SELECT a , ? AS x FROM t WHERE b = ? AND c IN (?, ?, ?) LIMIT ?', parameters: ['x', 'b', 1, 2, 3, 40] });
  });

  it('a text-only change keeps the parameter array', () => {
    const out = applyTokens(p, [{ start: 0, end: 0, text: '/* x */ ' }]);
    expect(out.parameters).toBe(p.parameters);
  });

  it('inserts at one point keep their given order', () => {
    const at = p.sql.indexOf(' WHERE');
    expect(applyTokens(p, [{ start: at, end: at, text: ' A' }, { start: at, end: at, text: ' B' }]).sql).toContain('FROM t A B WHERE');
  });

  it('refuses overlapping tokens as an internal error', () => {
    expect(() => applyTokens(p, [{ start: 0, end: 10, text: '' }, { start: 5, end: 12, text: '' }])).toThrow(ShardingInternalError);
  });
});
