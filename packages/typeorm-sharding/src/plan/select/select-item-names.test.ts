import { describe, expect, it } from 'vitest';
import { selectItemSpans } from './select-item-names.js';

const items = (sql: string) => selectItemSpans({ sql }, 'mysql').map((s) => sql.slice(s.start, s.end));

describe('selectItemSpans', () => {
  it('cuts the outermost select list at its top-level commas', () => {
    expect(items('SELECT DISTINCT a, COUNT(*) AS n, f(b, c) FROM t GROUP BY a')).toEqual(['a', 'COUNT(*) AS n', 'f(b, c)']);
  });

  it('reads the select list after the common table expressions, not one inside them', () => {
    expect(items('WITH c1 AS (SELECT f.grp AS v1, x FROM t f), c2 (k) AS (SELECT 1) SELECT COUNT(*), COUNT(*) AS n2 FROM c1 d')).toEqual(['COUNT(*)', 'COUNT(*) AS n2']);
    expect(items('WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r')).toEqual(['n']);
  });
});
