import { describe, expect, it } from 'vitest';
import type { SqlDialect } from '../../parameterize/index.js';
import { subquerySpans } from './subquery-spans.js';

interface SpanCase {
  readonly name: string;
  readonly dialect?: SqlDialect;
  readonly sql: string;
  /** Each span as `text|firstParameter-endParameter|flags`. */
  readonly spans: readonly string[];
}

const CASES: readonly SpanCase[] = [
  {
    name: 'IN, scalar and derived SELECTs in the order of their `(`, nested ones after their parent',
    sql: 'SELECT (SELECT 1) AS a FROM (SELECT x FROM t WHERE y IN (SELECT ? FROM u)) d WHERE z = ?',
    spans: ['(SELECT 1)|0-0|', '(SELECT x FROM t WHERE y IN (SELECT ? FROM u))|0-1|', '(SELECT ? FROM u)|0-1|in'],
  },
  {
    name: 'parameters before, inside and after',
    sql: 'SELECT a FROM t WHERE b = ? AND c IN (SELECT d FROM u WHERE e = ? AND f = ?) AND g = ?',
    spans: ['(SELECT d FROM u WHERE e = ? AND f = ?)|1-3|in'],
  },
  {
    name: 'NOT IN; keyword case; a `(` of an expression opens no span',
    sql: 'select a from t where (a + 1) not in (select b from u) and c in ((SELECT d FROM v))',
    spans: ['(select b from u)|0-0|in', '(SELECT d FROM v)|0-0|item'],
  },
  {
    name: 'quoted text and comments are not code',
    sql: "SELECT '(SELECT ?' AS s, `(SELECT` FROM t /* (SELECT 1) */ WHERE a = (SELECT ? FROM u) -- (SELECT\n",
    dialect: 'mysql',
    spans: ['(SELECT ? FROM u)|0-1|'],
  },
  {
    name: 'whole items of a list (VALUES, function arguments)',
    sql: 'INSERT INTO t (a, b) VALUES ((SELECT MAX(x) FROM u), COALESCE((SELECT ? FROM v), 0))',
    spans: ['(SELECT MAX(x) FROM u)|0-0|item', '(SELECT ? FROM v)|0-1|item'],
  },
  {
    name: 'ORDER BY / GROUP BY lists, not their neighbours nor a window inside parentheses',
    sql: 'SELECT (SELECT 1) FROM t GROUP BY a, (SELECT 2) HAVING (SELECT 3) > 0 ORDER BY (SELECT 4) DESC, b - (SELECT 5) LIMIT 1',
    spans: ['(SELECT 1)|0-0|', '(SELECT 2)|0-0|by', '(SELECT 3)|0-0|', '(SELECT 4)|0-0|by', '(SELECT 5)|0-0|by'],
  },
  {
    name: 'a subquery inside parentheses of an ORDER BY item is not itself in a BY list',
    sql: 'SELECT a FROM t ORDER BY COALESCE((SELECT 1), 0), (SELECT b FROM u ORDER BY (SELECT 2))',
    spans: ['(SELECT 1)|0-0|item', '(SELECT b FROM u ORDER BY (SELECT 2))|0-0|by', '(SELECT 2)|0-0|by'],
  },
];

describe('subquerySpans', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const spans = subquerySpans(c.sql, c.dialect ?? 'sqlite').map((s) => {
      const flags = [s.afterIn ? 'in' : '', s.wholeItem ? 'item' : '', s.inByList ? 'by' : ''].filter(Boolean).join(',');
      return `${c.sql.slice(s.open, s.close + 1)}|${s.firstParameter}-${s.endParameter}|${flags}`;
    });
    expect(spans).toEqual(c.spans);
  });
});
