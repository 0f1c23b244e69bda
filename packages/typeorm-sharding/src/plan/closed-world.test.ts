/**
 * Closed world (DESIGN.md §8, issue 14): a statement the planner does not fully model is
 * refused with `UnsupportedShardingError` naming the construct, never run on one shard or
 * shard by shard. Pure: `analyze` over the shared fake rules (see `testing/fake-rules.ts`).
 */
import { describe, expect, it } from 'vitest';
import { UnsupportedShardingError } from '../errors/index.js';
import { parameterize, type SqlDialect } from '../parameterize/index.js';
import { analyze } from './analyze.js';
import type { Plan } from './plan.js';
import { fakeRules } from './testing/fake-rules.js';

const rules = fakeRules();
const plan = (sql: string, dialect: SqlDialect = 'mysql'): Plan => analyze(parameterize(sql, Array.from(sql.matchAll(/\?/g), () => 1), dialect), rules, dialect);

function refusal(sql: string, dialect: SqlDialect = 'mysql'): string {
  try {
    plan(sql, dialect);
  } catch (error) {
    if (error instanceof UnsupportedShardingError) return error.message;
    throw error;
  }
  throw new Error(`not refused: ${sql}`);
}

/** The reason a select plan gives for not merging over several shards (raised only then). */
function unmergeable(sql: string, dialect: SqlDialect = 'mysql'): string | undefined {
  const p = plan(sql, dialect);
  if (p.kind !== 'select') throw new Error(`not a select plan: ${p.kind}`);
  return p.unmergeable;
}

describe('CTEs', () => {
  it('a CTE over a sharded table referenced once is planned as a derived table (the issue: it ran on the default shard)', () => {
    const p = plan('WITH t AS (SELECT id FROM orders) SELECT COUNT(*) AS n FROM t');
    expect(p).toMatchObject({ kind: 'select', table: 'orders', condition: { kind: 'any' }, unmergeable: undefined, merge: { aggregates: [{ alias: 'n', fn: 'COUNT' }] } });
  });

  it('routes by the WHERE inside the CTE', () => {
    expect(plan('WITH t AS (SELECT id FROM orders WHERE id IN (1, 2)) SELECT id FROM t')).toMatchObject({ kind: 'select', condition: { kind: 'values' } });
  });

  it('a CTE column list names the derived items', () => {
    expect(plan('WITH t(k) AS (SELECT id FROM orders) SELECT k FROM t ORDER BY k')).toMatchObject({ kind: 'select', unmergeable: undefined, merge: { kind: 'ordered' } });
  });

  it('a CTE whose derived-table form is not exact stays unmergeable over several shards (GROUP BY inside)', () => {
    expect(unmergeable('WITH t AS (SELECT buyerId, COUNT(*) AS c FROM orders GROUP BY buyerId) SELECT c FROM t')).toMatch(/GROUP BY over several shards/);
  });

  it('refuses a CTE over a sharded table referenced twice', () => {
    expect(refusal('WITH t AS (SELECT id FROM orders) SELECT a.id FROM t a JOIN t b ON a.id = b.id')).toMatch(/CTE "t" reads sharded table "orders" and is referenced 2 times/);
  });

  it('refuses a recursive CTE over a sharded table', () => {
    expect(refusal('WITH RECURSIVE t AS (SELECT id FROM orders UNION ALL SELECT id + 1 FROM t WHERE id < 3) SELECT id FROM t')).toMatch(/recursive CTE "t" reads sharded table "orders"/);
  });

  it('a recursive CTE that reads no sharded table is a constant on every shard', () => {
    const p = plan('WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 3) SELECT o.id FROM orders o JOIN n ON o.id = n.x');
    expect(p).toMatchObject({ kind: 'select', table: 'orders' });
  });

  it('a CTE over an unsharded table joined to a sharded one is refused like the join itself', () => {
    expect(refusal('WITH u AS (SELECT id FROM users) SELECT o.id FROM orders o JOIN u ON u.id = o.buyerId')).toMatch(/unsharded table "users"/);
  });

  it('a CTE over a sharded table in UPDATE / DELETE is refused naming the alternative', () => {
    expect(refusal('WITH c AS (SELECT orderId FROM order_items) DELETE FROM orders WHERE id IN (SELECT orderId FROM c)')).toMatch(/WITH … DELETE .* write the CTE as a subquery/);
  });
});

describe('windows', () => {
  it('refuses a window in a derived table over several shards (the issue: top 2 per status was computed per shard)', () => {
    expect(unmergeable('SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY buyerId ORDER BY createdAt DESC) rn FROM orders) x WHERE rn <= 2')).toMatch(
      /ROW_NUMBER\(\) OVER \(…\) whose PARTITION BY does not hold the shard key of "orders".*in a subquery/,
    );
  });

  it('a window partitioned by the shard key is shard-local, in a derived table and outside', () => {
    expect(unmergeable('SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY id ORDER BY createdAt DESC) rn FROM orders) x WHERE rn <= 2')).toBeUndefined();
    expect(unmergeable('SELECT o.id, SUM(o.buyerId) OVER (PARTITION BY o.id) AS s FROM orders o')).toBeUndefined();
  });

  it('refuses a window without PARTITION BY over several shards, naming it', () => {
    expect(unmergeable('SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS rn FROM orders')).toMatch(/ROW_NUMBER\(\) OVER/);
  });

  it('a window over a broadcast table only is the same on every shard', () => {
    expect(unmergeable('SELECT o.id FROM orders o JOIN (SELECT id, ROW_NUMBER() OVER (ORDER BY name) rn FROM regions) r ON r.id = o.regionId')).toBeUndefined();
  });
});

describe('EXISTS', () => {
  it('an uncorrelated EXISTS beside a sharded table runs first across the shards (the issue: it counted per shard)', () => {
    expect(plan('SELECT COUNT(*) FROM orders WHERE EXISTS (SELECT 1 FROM orders WHERE buyerId > 99)')).toMatchObject({ kind: 'pulled', subqueries: [{ use: 'exists' }], reach: 'every-shard' });
    expect(plan('SELECT o.id FROM orders o WHERE NOT EXISTS (SELECT * FROM order_items i WHERE i.qty > 9)')).toMatchObject({ kind: 'pulled', subqueries: [{ use: 'exists' }] });
  });

  it('one that cannot run first is refused naming the construct and the fix: in a statement with a CTE, or unaliased in the select list', () => {
    const message = refusal('WITH t AS (SELECT id FROM orders) SELECT COUNT(*) FROM t WHERE EXISTS (SELECT 1 FROM order_items WHERE qty > 99)');
    expect(message).toMatch(/EXISTS \(SELECT … FROM "order_items" …\) is not correlated with the outer query on the shard key/);
    expect(message).toMatch(/\(SELECT COUNT\(\*\) FROM … WHERE …\) > 0/);
    expect(message).not.toMatch(/join/);
    expect(refusal('SELECT o.id, EXISTS (SELECT 1 FROM order_items i WHERE i.qty > 9) FROM orders o')).toMatch(/alias with AS/);
  });

  it('EXISTS and NOT EXISTS correlated on the shard key are shard-local', () => {
    expect(plan('SELECT o.id FROM orders o WHERE EXISTS (SELECT 1 FROM order_items i WHERE i.orderId = o.id AND i.qty > 1)')).toMatchObject({ kind: 'select', unmergeable: undefined });
    expect(plan('SELECT o.id FROM orders o WHERE NOT EXISTS (SELECT 1 FROM order_items i WHERE i.orderId = o.id)')).toMatchObject({ kind: 'select', unmergeable: undefined });
  });

  it('refuses NOT EXISTS not correlated on the key', () => {
    expect(refusal('SELECT o.id FROM orders o WHERE NOT EXISTS (SELECT 1 FROM order_items i WHERE i.sku = o.note)')).toMatch(/NOT EXISTS .*= 0/);
  });

  it("keeps TypeORM's exists(): an EXISTS under a query that reads no sharded table", () => {
    expect(plan('SELECT 1 AS `row_exists` FROM (SELECT 1 AS dummy_column) `dummy_table` WHERE EXISTS (SELECT 1 FROM `orders` `Order` WHERE `Order`.`id` IN (1, 2)) LIMIT 1')).toMatchObject({ kind: 'select' });
  });
});

describe('constructs no route answers', () => {
  it.each([
    ['SELECT SQL_CALC_FOUND_ROWS id FROM orders LIMIT 10', /SQL_CALC_FOUND_ROWS .* COUNT\(\*\)/],
    ['SELECT SQL_CALC_FOUND_ROWS id FROM orders WHERE id = 1', /SQL_CALC_FOUND_ROWS/],
    ['SELECT id, FOUND_ROWS() AS n FROM orders', /FOUND_ROWS\(\)/],
    ['SELECT id INTO @x FROM orders WHERE id = 1', /SELECT … INTO/],
    ['SELECT id, @n := @n + 1 AS r FROM orders', /assignment to a user variable/],
    ['SELECT id FROM orders WHERE buyerId = @b', /user variable @b/],
    ['SELECT id FROM (orders JOIN order_items ON order_items.orderId = orders.id)', /parenthesised join/],
  ])('%s', (sql, message) => {
    expect(refusal(sql)).toMatch(message);
  });

  it('`SELECT BINARY x` is refused (the grammar reads it as a column BINARY named x); a column named binary is not', () => {
    expect(refusal('SELECT BINARY note FROM orders WHERE id = 1')).toMatch(/BINARY operator.*CAST\(x AS BINARY\)/);
    expect(plan('SELECT CAST(note AS BINARY) AS b FROM orders WHERE id = 1')).toMatchObject({ kind: 'select' });
    expect(plan('SELECT `binary` `b` FROM orders WHERE id = 1')).toMatchObject({ kind: 'select' });
  });

  it('keeps select options that change no result (each shard applies them)', () => {
    expect(plan('SELECT SQL_NO_CACHE id FROM orders WHERE id IN (1, 2)')).toMatchObject({ kind: 'select', condition: { kind: 'values' } });
  });

  it('a statement the parser cannot read is refused without the grammar\'s token list', () => {
    const message = refusal('SELECT id FROM orders USE INDEX (PRIMARY) WHERE id = 1');
    expect(message).toMatch(/its SQL parser stops at “.*⟨here⟩/);
    expect(message).not.toMatch(/Expected/);
  });
});

describe('refusals that say what to fix', () => {
  it('an ORDER BY key whose order the server decides is named', () => {
    expect(unmergeable('SELECT id FROM orders ORDER BY id, COALESCE(?, note)')).toMatch(/ORDER BY item 2 \(COALESCE\(\?, `note`\)\)/);
  });

  it('ROUND() and the like of a floating-point SUM / AVG are refused (the shards add in another order); of an exact one, planned', () => {
    expect(unmergeable('SELECT ROUND(SUM(CAST(qty AS DOUBLE)), 1) AS r FROM order_items', 'sqlite')).toMatch(/ROUND\(\) to a floating-point aggregate.*CAST the column AS DECIMAL/);
    expect(unmergeable('SELECT FLOOR(AVG(CAST(qty AS DOUBLE))) AS r FROM order_items', 'mysql')).toMatch(/FLOOR\(\) to a floating-point aggregate/);
    expect(unmergeable('SELECT ROUND(SUM(qty), 1) AS r FROM order_items', 'mysql')).toBeUndefined();
    expect(unmergeable('SELECT ROUND(SUM(qty), 1) AS r FROM order_items', 'sqlite')).toBeUndefined();
    expect(unmergeable('SELECT ROUND(MAX(CAST(qty AS DOUBLE)), 1) AS r FROM order_items', 'sqlite')).toBeUndefined();
  });

  it('multi-table UPDATE / DELETE names the alternative', () => {
    expect(refusal('DELETE o FROM orders o JOIN order_items i ON i.orderId = o.id WHERE i.qty = 0')).toMatch(/DELETE FROM t WHERE key IN \(SELECT …\)/);
    expect(refusal('UPDATE orders o JOIN customers c ON c.id = o.buyerId SET o.note = c.name')).toMatch(/UPDATE t SET … WHERE key IN \(SELECT …\)/);
  });
});
