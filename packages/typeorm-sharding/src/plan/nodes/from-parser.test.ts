import { describe, expect, it } from 'vitest';
import { parameterize } from '../../parameterize/index.js';
import { exprOf, parseStatement, PARSER_EXPRESSION_KINDS, UnsupportedConstructError, type ParserExpressionKind } from './from-parser.js';
import type { SelectNode, SqlNode } from './sql-node.js';
import { childrenOf } from './sql-tree.js';

const col = (column: string, table?: string): SqlNode => ({ kind: 'column', table, column, collate: undefined });

/** The first select item of `SELECT <expr> FROM t`, in parser text (values as written, not slots). */
function itemOf(expr: string): SqlNode {
  const ast = parseStatement(`SELECT ${expr} FROM t`);
  if (ast?.kind !== 'select') throw new Error('not a select');
  return ast.items[0]!.expr;
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof UnsupportedConstructError) return error.construct;
    throw error;
  }
  throw new Error('not refused');
}

type Case = { readonly input: string | Record<string, unknown>; readonly node?: SqlNode; readonly refused?: RegExp };

/**
 * One case per kind node-sql-parser's MySQL grammar gives an expression: SQL text (a select
 * item) where the grammar reaches the kind, else the raw node itself. The `satisfies` makes a
 * new kind in `PARSER_EXPRESSION_KINDS` fail to compile here until it has a case.
 */
const KIND_CASES = {
  column_ref: { input: 't.a', node: col('a', 't') },
  star: { input: 'COUNT(*)', node: { kind: 'aggregate', name: 'COUNT', distinct: false, args: [{ kind: 'star', table: undefined }], orderBy: [], separator: undefined, over: undefined } },
  param: { input: ':p3', node: { kind: 'slot', slot: 3 } },
  number: { input: '2', node: { kind: 'literal', value: 2 } },
  bigint: { input: '123456789012345678901', refused: /beyond 2\^53/ },
  single_quote_string: { input: "'x'", node: { kind: 'literal', value: 'x' } },
  double_quote_string: { input: '"x"', node: { kind: 'literal', value: 'x' } },
  string: { input: { type: 'string', value: 'x' }, node: { kind: 'literal', value: 'x' } },
  natural_string: { input: "N'x'", node: { kind: 'literal', value: 'x' } },
  backticks_quote_string: { input: { type: 'backticks_quote_string', value: 'x' }, refused: /quoted name/ },
  hex_string: { input: "x'0A'", node: { kind: 'shard-evaluated', what: "the literal X'0A'", children: [] } },
  full_hex_string: { input: '0x1F', node: { kind: 'shard-evaluated', what: 'the literal 0x1F', children: [] } },
  bit_string: { input: "b'1'", node: { kind: 'shard-evaluated', what: "the literal b'1'", children: [] } },
  bool: { input: 'TRUE', node: { kind: 'literal', value: true } },
  null: { input: 'NULL', node: { kind: 'literal', value: null } },
  binary_expr: { input: 'a + 1', node: { kind: 'binary', op: '+', left: col('a'), right: { kind: 'literal', value: 1 } } },
  unary_expr: { input: '-a', node: { kind: 'unary', op: '-', operand: col('a') } },
  expr_list: { input: 'a IN (1, 2)', node: { kind: 'binary', op: 'IN', left: col('a'), right: { kind: 'list', items: [{ kind: 'literal', value: 1 }, { kind: 'literal', value: 2 }] } } },
  function: { input: 'UPPER(a)', node: { kind: 'function', name: 'UPPER', args: [col('a')], over: undefined } },
  aggr_func: { input: 'COUNT(DISTINCT a)', node: { kind: 'aggregate', name: 'COUNT', distinct: true, args: [col('a')], orderBy: [], separator: undefined, over: undefined } },
  case: { input: 'CASE WHEN a THEN 1 ELSE 2 END', node: { kind: 'case', operand: undefined, branches: [{ when: col('a'), then: { kind: 'literal', value: 1 } }], otherwise: { kind: 'literal', value: 2 } } },
  cast: { input: 'CAST(a AS DECIMAL(10, 2))', node: { kind: 'cast', operand: col('a'), target: 'DECIMAL(10, 2)', scale: 2 } },
  interval: { input: 'd + INTERVAL 2 DAY', node: { kind: 'binary', op: '+', left: col('d'), right: { kind: 'interval', value: { kind: 'literal', value: 2 }, unit: 'DAY' } } },
  extract: { input: 'EXTRACT(YEAR FROM d)', node: { kind: 'shard-evaluated', what: 'EXTRACT(YEAR FROM …)', children: [col('d')] } },
  fulltext_search: { input: "MATCH(a, b) AGAINST ('x')", node: { kind: 'shard-evaluated', what: 'MATCH … AGAINST', children: [col('a'), col('b'), { kind: 'literal', value: 'x' }] } },
  var: { input: '@v', refused: /user variable @v/ },
  assign: { input: '@v := 1', refused: /assignment to a user variable/ },
  origin: { input: { type: 'origin', value: 'current row' }, refused: /keyword CURRENT ROW/ },
  datatype: { input: { type: 'datatype', dataType: 'CHAR' }, refused: /type CHAR/ },
  date: { input: { type: 'date', value: '2024-01-01' }, node: { kind: 'cast', operand: { kind: 'literal', value: '2024-01-01' }, target: 'DATE', scale: undefined } },
  time: { input: { type: 'time', value: '10:00' }, node: { kind: 'cast', operand: { kind: 'literal', value: '10:00' }, target: 'TIME', scale: undefined } },
  timestamp: { input: "TIMESTAMP '2024-01-01 00:00:00'", node: { kind: 'cast', operand: { kind: 'literal', value: '2024-01-01 00:00:00' }, target: 'TIMESTAMP', scale: undefined } },
  datetime: { input: { type: 'datetime', value: '2024-01-01 00:00:00' }, node: { kind: 'cast', operand: { kind: 'literal', value: '2024-01-01 00:00:00' }, target: 'DATETIME', scale: undefined } },
  default: { input: { type: 'default', value: 'x' }, refused: /name x where a value belongs/ },
  'not null': { input: { type: 'not null', value: 'not null' }, refused: /NOT NULL/ },
  collate: { input: { type: 'collate', collate: { name: 'utf8mb4_bin' } }, refused: /COLLATE/ },
  array: { input: { type: 'array', value: [] }, refused: /array/ },
  json: { input: { type: 'json', expr_list: [] }, refused: /JSON expression/ },
  window_func: { input: { type: 'window_func', name: 'LAG' }, refused: /window function LAG/ },
  any_value: { input: { type: 'any_value', expr: {} }, refused: /ANY_VALUE/ },
  select: { input: '(SELECT MAX(b) FROM u)', node: undefined },
} as const satisfies Record<ParserExpressionKind, Case>;

describe('from-parser: every node kind of the parser has a case', () => {
  it('the table covers every kind the converter dispatches on', () => {
    expect(Object.keys(KIND_CASES).sort()).toEqual([...PARSER_EXPRESSION_KINDS].sort());
  });

  it.each(Object.entries(KIND_CASES) as [string, Case][])('%s', (_kind, c) => {
    const convert = () => (typeof c.input === 'string' ? itemOf(c.input) : exprOf(c.input));
    if (c.refused) expect(refusal(convert)).toMatch(c.refused);
    else if (c.node) expect(convert()).toEqual(c.node);
    else expect(convert().kind).toBe('subquery');
  });

  it('refuses an expression of a kind it does not know', () => {
    expect(refusal(() => exprOf({ type: 'lambda', args: [] }))).toMatch(/kind "lambda"/);
  });
});

describe('from-parser: every field of a raw node is known', () => {
  it('refuses an object with a field the converter does not know (position info aside)', () => {
    expect(refusal(() => exprOf({ type: 'column_ref', table: null, column: 'a', frobnicate: 1 }))).toMatch(/"frobnicate"/);
    expect(exprOf({ type: 'column_ref', table: null, column: 'a', loc: { start: 0 } })).toEqual(col('a'));
  });

  it('refuses a COLLATE after an expression that is not a column (the grammar hangs it on the node)', () => {
    expect(refusal(() => exprOf({ type: 'function', name: { name: [{ type: 'default', value: 'UPPER' }] }, args: { type: 'expr_list', value: [] }, collate: { collate: { name: 'x' } } }))).toMatch(/"collate"/);
  });

  it.each([
    ['SELECT a INTO @x FROM t', /SELECT … INTO/],
    ["SELECT a INTO OUTFILE '/tmp/x' FROM t", /SELECT … INTO/],
    ['SELECT a FROM (t JOIN u ON t.a = u.a)', /parenthesised join/],
    ['SELECT * FROM t, LATERAL (SELECT 1) x', /LATERAL derived table/],
    ['SELECT @v := a FROM t', /assignment to a user variable/],
    ['SELECT a FROM t WHERE a = @v', /user variable @v/],
    ['SELECT 1; SELECT 2', /several statements/],
    // A parenthesised join is modelled only after the first item, joined by INNER / LEFT, of tables INNER / LEFT joined.
    ['SELECT a FROM t RIGHT JOIN (u JOIN v ON u.a = v.a) ON t.a = u.a', /parenthesised join joined by RIGHT JOIN/],
    ['SELECT a FROM t LEFT JOIN (u RIGHT JOIN v ON u.a = v.a) ON t.a = u.a', /RIGHT JOIN inside a parenthesised join/],
    ['SELECT a FROM t LEFT JOIN (u, v) ON t.a = u.a', /comma join inside a parenthesised join/],
    ['SELECT a FROM t LEFT JOIN (u JOIN (SELECT a FROM w) d ON d.a = u.a) ON t.a = u.a', /of other than tables/],
    ['SELECT a FROM t LEFT JOIN (u JOIN (v JOIN w ON v.a = w.a) ON u.a = v.a) ON t.a = u.a', /inside a parenthesised join/],
    ['SELECT a FROM t LEFT JOIN (u JOIN v ON u.a = v.a) USING (a)', /joined with USING/],
  ])('%s', (sql, refused) => {
    expect(refusal(() => parseStatement(sql))).toMatch(refused);
  });
});

describe('from-parser: clauses are kept', () => {
  const select = (sql: string): SelectNode => {
    const ast = parseStatement(parameterize(sql, [], 'mysql').parserSql);
    if (ast?.kind !== 'select') throw new Error('not a select');
    return ast;
  };

  it('keeps the CTE bodies of WITH (their tables are seen)', () => {
    const ast = select('WITH t AS (SELECT id FROM posts WHERE score > 1) SELECT COUNT(*) FROM t');
    expect(ast.with?.recursive).toBe(false);
    expect(ast.with?.ctes.map((c) => [c.name, c.query.from])).toEqual([['t', [{ kind: 'table', table: 'posts', alias: undefined, join: undefined, on: undefined, using: [] }]]]);
  });

  it('reads a LEFT-joined parenthesised join as LEFT joins of its tables, the first with the group\'s ON', () => {
    const ast = select('SELECT p.id FROM p LEFT JOIN pc ON pc.p = p.id LEFT JOIN (c INNER JOIN ci ON ci.c = c.id INNER JOIN i ON i.id = ci.i) ON c.id = pc.c');
    expect(ast.from.map((f) => [f.kind === 'table' && f.table, f.join, f.on && f.on.kind === 'binary' && f.on.left])).toEqual([
      ['p', undefined, undefined],
      ['pc', 'LEFT JOIN', col('p', 'pc')],
      ['c', 'LEFT JOIN', col('id', 'c')],
      ['ci', 'LEFT JOIN', col('c', 'ci')],
      ['i', 'LEFT JOIN', col('id', 'i')],
    ]);
    // INNER-joined, the group's inner joins stay inner.
    expect(select('SELECT p.id FROM p INNER JOIN (c LEFT JOIN ci ON ci.c = c.id INNER JOIN i ON i.id = ci.i) ON c.id = p.c').from.map((f) => f.join)).toEqual([undefined, 'INNER JOIN', 'LEFT JOIN', 'INNER JOIN']);
  });

  it('keeps WITH RECURSIVE and its column list', () => {
    const ast = parseStatement('WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5) SELECT n FROM c');
    expect(ast?.kind === 'select' && ast.with).toMatchObject({ recursive: true, ctes: [{ name: 'c', columns: ['n'] }] });
  });

  it('keeps WITH before UPDATE and DELETE', () => {
    const ast = parseStatement('WITH c AS (SELECT id FROM t) UPDATE t SET a = 1 WHERE id IN (SELECT id FROM c)');
    expect(ast?.kind === 'update' && ast.with?.ctes[0]?.name).toBe('c');
  });

  it('keeps a window: PARTITION BY, ORDER BY, frame', () => {
    const ast = parseStatement('SELECT SUM(x) OVER (PARTITION BY s ORDER BY y DESC ROWS UNBOUNDED PRECEDING) FROM t');
    const item = ast?.kind === 'select' ? ast.items[0]!.expr : undefined;
    expect(item?.kind === 'aggregate' && item.over).toEqual({
      base: undefined,
      partitionBy: [col('s')],
      orderBy: [{ expr: col('y'), direction: 'DESC' }],
      frame: { units: 'ROWS', start: { kind: 'unbounded-preceding', offset: undefined }, end: undefined },
    });
    // The window's expressions are children: whole-tree questions (columns, subqueries) see them.
    expect(item && childrenOf(item)).toEqual([col('x'), col('s'), col('y')]);
  });

  it('keeps named windows (WINDOW w AS …) and the references to them', () => {
    const ast = parseStatement('SELECT SUM(x) OVER w2 FROM t WINDOW w AS (PARTITION BY a), w2 AS w');
    expect(ast?.kind === 'select' && ast.windows.map((w) => [w.name, w.spec.base, w.spec.partitionBy])).toEqual([['w', undefined, [col('a')]], ['w2', 'w', []]]);
    expect(ast?.kind === 'select' && ast.items[0]!.expr).toMatchObject({ over: { base: 'w2' } });
  });

  it('keeps select options, WITH ROLLUP and the locking clause', () => {
    expect(select('SELECT SQL_CALC_FOUND_ROWS SQL_NO_CACHE id FROM t').options).toEqual(['SQL_CALC_FOUND_ROWS', 'SQL_NO_CACHE']);
    expect(select('SELECT a, COUNT(*) FROM t GROUP BY a WITH ROLLUP').rollup).toBe(true);
    expect(select('SELECT a FROM t FOR UPDATE NOWAIT').locking).toBe('FOR UPDATE NOWAIT');
  });

  it('keeps VALUES in FROM as constant rows', () => {
    expect(parseStatement('SELECT * FROM (VALUES ROW(1, 2)) v')).toMatchObject({ from: [{ kind: 'values', alias: 'v', rows: [[{ kind: 'literal', value: 1 }, { kind: 'literal', value: 2 }]] }] });
  });

  it('converts every child of a shard-evaluated construct', () => {
    expect(itemOf('CONVERT(a USING utf8mb4)')).toEqual({ kind: 'shard-evaluated', what: 'CONVERT(… USING UTF8MB4)', children: [col('a')] });
    expect(itemOf("a LIKE 'x!%' ESCAPE '!'")).toEqual({ kind: 'shard-evaluated', what: 'LIKE … ESCAPE', children: [col('a'), { kind: 'literal', value: 'x!%' }, { kind: 'literal', value: '!' }] });
    expect(itemOf('TIMESTAMPDIFF(DAY, a, b)')).toEqual({ kind: 'function', name: 'TIMESTAMPDIFF', args: [{ kind: 'keyword', text: 'DAY' }, col('a'), col('b')], over: undefined });
  });
});

/**
 * One select item per kind of the planner's own nodes: the `satisfies` makes a new
 * `SqlNode['kind']` fail to compile until it has a case here, and each case checks that the
 * conversion produces it and that the whole-tree walk reaches it.
 */
const NODE_KIND_CASES = {
  column: 'a',
  star: 'COUNT(*)',
  slot: ':p0',
  'in-list': 'a IN (:l0)',
  literal: "'x'",
  binary: 'a = 1',
  unary: 'NOT a',
  function: 'UPPER(a)',
  aggregate: 'MAX(a)',
  case: 'CASE WHEN a THEN 1 END',
  cast: 'CAST(a AS CHAR)',
  list: 'a IN (1, 2)',
  subquery: '(SELECT MAX(b) FROM u)',
  interval: 'd + INTERVAL 1 DAY',
  keyword: 'TIMESTAMPDIFF(DAY, a, b)',
  'shard-evaluated': 'EXTRACT(YEAR FROM d)',
} as const satisfies Record<SqlNode['kind'], string>;

describe("from-parser: every kind of the planner's nodes is produced and walked", () => {
  it.each(Object.entries(NODE_KIND_CASES))('%s', (kind, expr) => {
    const kinds: string[] = [];
    const walk = (n: SqlNode): void => {
      kinds.push(n.kind);
      childrenOf(n).forEach(walk);
    };
    walk(itemOf(expr));
    expect(kinds).toContain(kind);
  });
});
