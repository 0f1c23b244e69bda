import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnsupportedShardingError } from '../../packages/typeorm-sharding/src/index.js';
import { mariadbAvailable } from '../support/mariadb.js';
import { openShapeFixture, type ShapeFixture } from '../support/shapes/fixture.js';

// Counterexamples the random-shapes oracle found, kept as fixed cases so that they stay fixed
// whatever seed the oracle draws. Each runs on the 4-shard source and on one plain database
// with the same rows: the answers must be identical, value for value and in the driver's own
// form (mysql2's DECIMAL text with its digits, numbers, Buffers), in order when `ordered`.

interface Regression {
  readonly found: string;
  readonly sql: string;
  readonly parameters?: readonly unknown[];
  readonly on: readonly ('sqlite' | 'mariadb')[];
  readonly ordered?: boolean;
  /** Both sources must reject it with the database's own message. */
  readonly rejected?: boolean;
  /** The plain database answers it; the sharded source refuses it with UnsupportedShardingError. */
  readonly refused?: boolean;
  /** The right answer has no row. */
  readonly empty?: boolean;
  /** Doubles compared to 12 significant digits (a merged running variance may differ in the last bits). */
  readonly floats?: boolean;
}

const BOTH = ['sqlite', 'mariadb'] as const;

const REGRESSIONS: readonly Regression[] = [
  {
    found: 'a DOUBLE aggregate whose value is a whole number stays a DOUBLE in an expression (price / MAX(ratio * 100) was divided as DECIMAL)',
    sql: 'SELECT f.price, ((f.price / MAX((f.ratio * 100))) * 2.5) AS e FROM shape_facts f GROUP BY f.price ORDER BY 1 DESC',
    on: ['mariadb'],
    ordered: true,
    floats: true,
  },
  {
    found: 'VAR_SAMP / STDDEV of equal DOUBLE values per group is exactly 0 (the shards\' rounded means gave 2e-35)',
    sql: 'SELECT VAR_SAMP(f.ratio) AS v, STDDEV(f.ratio) AS s, COUNT(*) AS n, f.ratio AS r FROM shape_facts f GROUP BY f.ratio ORDER BY 4',
    on: ['mariadb'],
    ordered: true,
  },
  {
    found: 'SQLite: a COUNT the merge makes of no row is an INTEGER in arithmetic ((0 - 1) / 10 is 0, not -0.1)',
    sql: 'SELECT (COUNT(*) - 1) / 10 AS q, COUNT(DISTINCT f.price) AS c FROM shape_facts f WHERE f.id < -100000',
    // MariaDB: a COUNT the merge makes of no row comes in mysql2's BIGINT form, the text '0'.
    on: BOTH,
  },
  {
    found: 'STDDEV of a quotient from its values at the server\'s full precision (was at the quotient\'s shown scale: 0.81420044 for 0.81420567)',
    sql: 'SELECT COUNT(*) AS n, STDDEV((f.qty / f.price)) AS sd, f.yr FROM shape_facts f GROUP BY f.yr ORDER BY COUNT(*), f.yr',
    on: ['mariadb'],
    ordered: true,
  },
  {
    found: 'BIT_XOR inside an expression: MariaDB reads its unsigned value as signed there; refused (was 2^64 - 5 for -5)',
    sql: 'SELECT CASE WHEN COUNT(*) IS NOT NULL THEN BIT_XOR(f.qty) ELSE MAX(f.ratio) END AS t FROM shape_facts f',
    on: ['mariadb'],
    refused: true,
  },
  {
    found: "NULLIF(MIN(text), 'Apple') compares under the collation: refused (was byte-wise: 'APPLE' kept)",
    sql: "SELECT NULLIF(MIN(f.title), 'Apple') AS r, AVG(f.qty) AS a FROM shape_facts f",
    on: ['mariadb'],
    refused: true,
  },
  {
    found: 'AVG(DISTINCT a derived constant) per shard-local group: not coalesced (MariaDB answers 9.9999 inside a UNION ALL branch)',
    sql: 'SELECT AVG(DISTINCT d.v4) AS a, d.v3 AS v6 FROM (SELECT f.id AS v3, 10 AS v4 FROM shape_facts f WHERE f.grp < 3) d GROUP BY v6 ORDER BY 2 ASC LIMIT 3',
    on: BOTH,
    ordered: true,
  },
  {
    found: 'UNION of a literal and CONCAT(CASE … END, …): the CONCAT\'s collation is not known, so its order is refused (was compared by weights of two collations)',
    sql: "SELECT 'x' AS v1 FROM shape_lines l WHERE l.price < '1.50' UNION SELECT CONCAT(CASE WHEN f.qty IN (7, ?, 3) THEN f.title END, '-') AS v2 FROM shape_facts f ORDER BY v1",
    parameters: [-2],
    on: ['mariadb'],
    refused: true,
  },
  {
    found: 'ORDER BY … GROUP_CONCAT(x ORDER BY x), …, 2: the lexer kept the outer list open after the inner one, so position 2 was read as a constant and dropped',
    sql: 'SELECT GROUP_CONCAT(DISTINCT f.big ORDER BY f.big) AS g, f.id FROM shape_facts f GROUP BY f.id ORDER BY MAX(f.big) ASC, GROUP_CONCAT(DISTINCT f.big ORDER BY f.big), IFNULL(SUM(f.big), 0) ASC, 2 ASC LIMIT 10 OFFSET 10',
    // MariaDB: refused (the GROUP_CONCAT key cannot be sent as a column); the lexer is the same.
    on: ['sqlite'],
    ordered: true,
  },
  {
    found: 'a false constant HAVING of a global aggregate whose shards group by DISTINCT values: no row (was the merge\'s own global row)',
    sql: 'SELECT COUNT(*) AS n, AVG(DISTINCT f.qty) AS a FROM shape_facts f HAVING (-1 * 0) IS NULL',
    on: BOTH,
    empty: true,
  },
  {
    found: 'SELECT DISTINCT MIN(text) … GROUP BY: the DISTINCT key is the one kept with the winning partial (was each shard\'s own: duplicates and lost values)',
    sql: 'SELECT DISTINCT (NOT (MIN((f.qty % 5)) >= MAX(f.grp))) AS b, MAX(f.tm) AS m FROM shape_facts f GROUP BY f.big ORDER BY 1 DESC, 2',
    on: ['mariadb'],
    ordered: true,
  },
  {
    found: 'ROUND of a CASE with a DOUBLE branch is refused at planning (was a MergeValueError after the statements ran)',
    sql: 'SELECT ROUND(CASE WHEN COUNT(*) < ? THEN SUM(CASE WHEN f.bin IS NULL THEN f.id ELSE f.ratio END) ELSE MAX(f.yr) END, 2) AS hi2 FROM shape_facts f WHERE f.ratio < 3',
    parameters: [10],
    on: ['mariadb'],
    refused: true,
  },
  {
    found: 'a constant item of a global aggregate that matches no row, when only ORDER BY groups the shards by DISTINCT values (was NULL)',
    sql: 'SELECT AVG(f.id) AS cnt1, 100 AS v2 FROM shape_facts f WHERE f.qty < -1000 ORDER BY COUNT(DISTINCT f.doc) ASC, v2 ASC',
    on: BOTH,
  },
  {
    found: 'ORDER BY MIN(set) under GROUP BY the primary key: MariaDB reads MIN(col) + 0 as 0 there, so the merge numbers the value from its labels (NULL stays NULL)',
    sql: 'SELECT MAX(f.tm) AS m, SUM(COALESCE(f.ratio, 0)) AS s, f.id FROM shape_facts f GROUP BY f.id ORDER BY 1 DESC, MIN(f.tags) ASC, f.id DESC',
    on: ['mariadb'],
    ordered: true,
  },
  {
    found: 'ORDER BY MIN(enum) DESC under GROUP BY the primary key (position from the labels)',
    sql: 'SELECT f.id, MIN(f.kind) AS k FROM shape_facts f GROUP BY f.id ORDER BY MIN(f.kind) DESC, f.id LIMIT 30',
    on: ['mariadb'],
    ordered: true,
  },
  {
    found: 'an expression over SUM of a quotient shows the quotient\'s places (was the 30 digits it is summed with)',
    sql: 'SELECT (SUM((f.price / f.qty)) + COUNT(DISTINCT f.flags)) AS r FROM shape_facts f',
    on: ['mariadb'],
  },
  {
    found: 'a group whose first partial row has NULL for a computed item still shows the driver\'s form (MAX of a quotient + 1)',
    sql: 'SELECT f.grp, (SUM((f.price / f.qty)) + COUNT(DISTINCT f.flags)) AS r, MAX(f.price / 3) + 1 AS u FROM shape_facts f GROUP BY f.grp ORDER BY f.grp',
    on: ['mariadb'],
    ordered: true,
  },
  {
    found: "an aggregate-free part of an expression is computed by the shards (SQLite compares a REAL with '9.99' by its affinity)",
    sql: "SELECT MIN(f.qty) AS m, (f.price BETWEEN '9.99' AND '100.00') AS b, (MIN(f.qty) + (f.price BETWEEN '9.99' AND '100.00')) AS hi1, f.bin FROM shape_facts f GROUP BY 2, f.bin ORDER BY hi1 DESC, 2 DESC, 4 DESC LIMIT 0, 8",
    on: BOTH,
    ordered: true,
  },
  {
    found: 'HAVING NULLIF(COUNT(*), 0) >= ?: MariaDB finds no group; refused rather than answered otherwise',
    sql: 'SELECT f.kind, COUNT(*) AS n FROM shape_facts f GROUP BY f.kind HAVING NULLIF(COUNT(*), 0) > ? ORDER BY f.kind',
    parameters: [-1],
    on: ['mariadb'],
    refused: true,
  },
  {
    found: 'MariaDB refuses a window function in the ORDER BY of a UNION branch (error 4015): such a read is not coalesced per server (it failed on the shards)',
    sql: 'SELECT f.id, COUNT(f.qty) OVER (PARTITION BY f.id ORDER BY f.price ASC, f.id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS w2 FROM shape_facts f ORDER BY f.id DESC, COUNT(f.qty) OVER (PARTITION BY f.id ORDER BY f.price ASC, f.id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)',
    on: ['mariadb'],
    ordered: true,
  },
  {
    found: 'HAVING compares a merged MAX(date) with a text parameter: MariaDB converts by its own rules; refused (was a MergeValueError)',
    sql: 'SELECT DISTINCT UPPER(d.v1) AS v5, UPPER(d.v1) FROM (SELECT f.id AS v1, f.day AS v2 FROM shape_facts f WHERE f.ratio IS NULL) d WHERE d.v1 = 7 GROUP BY UPPER(d.v1) HAVING NOT (MAX(d.v2) < ?) ORDER BY v5 DESC',
    parameters: ['apple'],
    on: ['mariadb'],
    refused: true,
  },
  {
    found: 'AVG of ROUND(double, 0): MariaDB shows the average with 4 places (-14857.8947), the merge had the full double; refused',
    sql: 'SELECT (COUNT(*) - AVG(ROUND(f.ratio, 0))) AS cnt1, AVG(ROUND(f.ratio, 0)) AS a FROM shape_facts f',
    on: ['mariadb'],
    refused: true,
  },
  {
    found: 'GROUP_CONCAT of a date read through a derived table (mysql2 gives a Date): refused (was a MergeValueError)',
    sql: "SELECT GROUP_CONCAT(d.v1 ORDER BY d.v1 SEPARATOR ',') AS g, COUNT(*) AS n FROM (SELECT f.day AS v1 FROM shape_facts f) d",
    on: ['mariadb'],
    refused: true,
  },
  {
    found: "SQLite: GROUP BY text made of bytes (blob || '-'): X'80' and X'FF' both read as U+FFFD; refused (their groups were joined)",
    sql: "SELECT MAX(d.v1) AS m, COUNT(*) AS n, (d.v1 || '-') AS v4 FROM (SELECT f.bin AS v1 FROM shape_facts f) d GROUP BY v4",
    on: ['sqlite'],
    refused: true,
  },
  {
    found: 'AVG(DISTINCT bytes) on SQLite: refused at the merge (was MergeValueError)',
    sql: 'SELECT ((COUNT(*) * 1) + AVG(DISTINCT d.v1)) AS hi3 FROM (SELECT f.bin AS v1 FROM shape_facts f WHERE f.bin IS NOT NULL) d',
    on: ['sqlite'],
    refused: true,
  },
  {
    found: 'AVG / SUM / COUNT(DISTINCT quotient): the server keeps each value at the quotient\'s shown scale (was a RangeError, then full-precision sums)',
    sql: 'SELECT l.price, AVG(DISTINCT (l.qty / f.qty)) AS a, SUM(DISTINCT l.qty / f.qty) AS s, COUNT(DISTINCT l.qty / f.qty) AS c FROM shape_facts f JOIN shape_lines l ON l.factId = f.id GROUP BY l.price',
    on: ['mariadb'],
  },
  {
    found: 'COUNT(DISTINCT COALESCE(text, literal)): which texts are one is the collation\'s; its type is unknown, so refused (was counted byte-wise: 11 for 8)',
    sql: "SELECT COUNT(DISTINCT COALESCE(f.title, 'none')) AS n FROM shape_facts f",
    on: ['mariadb'],
    refused: true,
  },
  {
    found: "HAVING COALESCE(MAX(text), 'none') = 'Apple' compares under the column's collation: refused (was compared byte-wise: 1 row for 6)",
    sql: "SELECT f.grp, f.yr FROM shape_facts f GROUP BY f.grp, f.yr HAVING COALESCE(MAX(f.title), 'none') = 'Apple' ORDER BY f.yr, f.grp",
    on: ['mariadb'],
    refused: true,
  },
  {
    found: 'CASE over SUM(qty - 1), a number of unknown class, beside a DECIMAL: refused (was evaluated as DOUBLE)',
    sql: 'SELECT l.price AS v1, (SUM(f.yr) / CASE WHEN NOT (COUNT(l.price) > 1) THEN SUM((f.qty - 1)) ELSE COUNT(DISTINCT f.flags) END) AS hi2 FROM shape_facts f JOIN shape_lines l ON l.factId = f.id GROUP BY v1',
    on: ['mariadb'],
    refused: true,
  },
  {
    found: 'SUM of an integer column is a DECIMAL of scale 0: a quotient over it shows 4 places',
    sql: 'SELECT f.grp, SUM(f.qty) / COUNT(*) AS q FROM shape_facts f GROUP BY f.grp ORDER BY f.grp',
    on: BOTH,
    ordered: true,
  },
  {
    found: 'key = 2.5 names no key: every shard is asked (was InvalidShardKeyError), none has the row',
    sql: 'SELECT f.id, f.qty FROM shape_facts f WHERE (f.id IN (?, ?, 2.5, ?) OR f.id = 2.5) ORDER BY f.id ASC',
    parameters: [7, 12, 9],
    on: BOTH,
    ordered: true,
  },
  {
    found: "key IN a text that MySQL converts ('5abc' finds row 5): asked everywhere",
    sql: 'SELECT f.id, f.qty FROM shape_facts f WHERE f.id IN (?, ?, ?) ORDER BY f.id',
    parameters: ['5abc', 7, '12.0'],
    on: BOTH,
    ordered: true,
  },
  {
    found: 'an unaliased select item with a table inside keeps its name (the text as written, not the database-qualified one)',
    sql: 'SELECT (SELECT r2.weight FROM shape_refs r2 WHERE r2.id = f.grp) FROM shape_facts f ORDER BY CASE WHEN f.ratio IS NOT NULL THEN f.ratio END, f.id ASC',
    on: BOTH,
    ordered: true,
  },
  {
    found: 'STDDEV of an exact argument compared in HAVING at full precision (58.8548…, not the shown 5.8855 * 10)',
    sql: 'SELECT COUNT(*) AS n FROM shape_facts f WHERE f.yr IS NOT NULL HAVING STDDEV_SAMP(f.qty) * 10 < 58.8549',
    on: ['mariadb'],
  },
  {
    found: 'a select item computing over STDDEV of an exact argument is refused (the server shows it with the variance\'s places: 58.8548)',
    sql: 'SELECT (STDDEV_SAMP(f.qty) * 10) FROM shape_facts f WHERE f.yr IS NOT NULL',
    on: ['mariadb'],
    refused: true,
  },
  {
    found: 'HAVING on a YEAR group key: MariaDB reads `yr > 2.5` as `yr > 2003`; the term stays on the shards',
    sql: 'SELECT f.big AS v1, COUNT(*) AS n, f.yr AS v5 FROM shape_facts f GROUP BY 1, 3 HAVING f.yr > 2.5 ORDER BY v1, 3 LIMIT 0, 8',
    on: ['mariadb'],
    ordered: true,
  },
  {
    found: 'a HAVING term over group keys kept on the shards, with its parameter, beside a term over aggregates',
    sql: 'SELECT f.grp, COUNT(*) AS n FROM shape_facts f GROUP BY f.grp HAVING f.grp > ? AND COUNT(*) > ? ORDER BY f.grp',
    parameters: [1, 2],
    on: BOTH,
    ordered: true,
  },
  {
    found: 'AVG(DISTINCT constant) of no row is NULL (each shard answers its global row)',
    sql: 'SELECT AVG(DISTINCT -1) AS a, COUNT(DISTINCT 7) AS c FROM shape_facts f WHERE f.id IN (?, ?) AND f.id IS NULL',
    parameters: [283, 313],
    on: BOTH,
  },
  {
    found: 'ORDER BY a scalar subquery: its value is no column position',
    sql: "SELECT COALESCE('x', 'none') AS v1, (SELECT MIN(l2.price) FROM shape_lines l2) AS v2, f.id FROM shape_facts f ORDER BY (SELECT MIN(l2.price) FROM shape_lines l2), f.id LIMIT 3",
    on: BOTH,
    ordered: true,
  },
  {
    found: 'an expression over MAX of a quotient uses the full quotient, as the server does',
    sql: "SELECT ((SUM((f.tm = '12:00:00')) * 1) * MAX((f.grp / 3))) AS t, MAX(f.grp / 3) AS m FROM shape_facts f",
    on: ['mariadb'],
  },
  {
    found: 'ORDER BY MIN(enum): chosen by text, ordered by declaration position',
    sql: 'SELECT f.bin, f.flags AS v1, MIN(f.kind) AS k FROM shape_facts f GROUP BY f.bin, 2 ORDER BY MIN(f.kind) DESC, f.bin DESC, 2 LIMIT 12',
    on: ['mariadb'],
    ordered: true,
  },
  {
    found: 'ORDER BY an expression equal to a select item and a hidden column: their merge columns are distinct',
    sql: 'SELECT ((COUNT(*) / 10) + COUNT(*)) AS v1, COALESCE(r.name, \'none\') AS v2 FROM shape_facts f JOIN shape_refs r ON r.id = f.grp GROUP BY r.name ORDER BY ((COUNT(*) / 10) + COUNT(*)) DESC, r.name',
    on: ['sqlite'],
    ordered: true,
  },
  {
    found: 'CASE of an INT and a DECIMAL branch is a DECIMAL with the wider scale',
    sql: 'SELECT CASE WHEN f.price > 3 THEN MAX(f.qty) ELSE AVG(f.qty) END AS v, f.price FROM shape_facts f GROUP BY f.price ORDER BY v, 2',
    on: BOTH,
    ordered: true,
  },
  {
    found: 'COUNT(DISTINCT shard key) beside another DISTINCT aggregate: the shards group by values, their counts are not added',
    sql: 'SELECT COUNT(DISTINCT l.sku) AS s, COUNT(DISTINCT l.factId) AS k, COUNT(l.sku) AS n FROM shape_lines l',
    on: BOTH,
  },
  {
    found: 'COUNT(DISTINCT) / GROUP BY / DISTINCT of a computed DOUBLE: MariaDB prints two values it keeps apart alike (99.8); the server\'s exact key tells them apart',
    sql: 'SELECT COUNT(DISTINCT (f.price - f.ratio)) AS c, SUM(DISTINCT (f.price - f.ratio)) > 0 AS positive FROM shape_facts f',
    on: ['mariadb'],
  },
  {
    found: 'GROUP BY a computed DOUBLE keeps the groups the server keeps',
    sql: 'SELECT (f.price - f.ratio) AS d, COUNT(*) AS n FROM shape_facts f GROUP BY (f.price - f.ratio) ORDER BY 1',
    on: BOTH,
    ordered: true,
  },
  {
    found: 'a HAVING column neither selected nor grouped by: MariaDB rejects it, so does the sharded source (the original is checked once)',
    sql: 'SELECT (f.price - f.ratio) AS d, COUNT(*) AS n FROM shape_facts f GROUP BY (f.price - f.ratio) HAVING f.price > 1 ORDER BY 1',
    on: ['mariadb'],
    rejected: true,
  },
  {
    found: 'STDDEV of equal DOUBLE values is 0, not the 4e-9 of Σx² − (Σx)²/n; STD and VARIANCE are read too',
    sql: "SELECT f.stamp, STDDEV_SAMP(ABS(f.ratio)) AS r1, VARIANCE(f.ratio) AS r2, STD(f.qty) AS r3, COUNT(*) AS n FROM shape_facts f WHERE f.big IN ('4611686018427387904') GROUP BY 1 ORDER BY 1 DESC",
    on: ['mariadb'],
    ordered: true,
    floats: true,
  },
];

const backends = (await mariadbAvailable()) ? BOTH : (['sqlite'] as const);

/** Values as comparable text: bigint, Buffers and Dates spelled out, everything else as the driver gave it. */
function comparable(rows: unknown, floats = false): string {
  return JSON.stringify(rows, (_key, v: unknown) => (typeof v === 'bigint' ? `${v}n` : floats && typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(12)) : v));
}

describe.each(backends)('random-shapes regressions (%s)', (backend) => {
  let sf: ShapeFixture;
  beforeAll(async () => {
    sf = await openShapeFixture(backend);
  });
  afterAll(async () => sf?.fx.close());

  it.each(REGRESSIONS.filter((r) => r.on.includes(backend)).map((r) => [r.found, r] as const))('%s', async (_found, r) => {
    const parameters = [...(r.parameters ?? [])];
    if (r.rejected) {
      const plainError = await sf.fx.plain.query(r.sql, parameters).then(() => undefined, (e: Error) => e);
      const shardedError = await sf.fx.sharded.query(r.sql, parameters).then(() => undefined, (e: Error) => e);
      expect(plainError, 'the plain database must reject it for the case to mean anything').toBeInstanceOf(Error);
      expect(shardedError?.message).toContain(plainError!.message);
      return;
    }
    const plain = (await sf.fx.plain.query(r.sql, parameters)) as unknown[];
    if (r.refused) {
      await expect(sf.fx.sharded.query(r.sql, parameters)).rejects.toBeInstanceOf(UnsupportedShardingError);
      return;
    }
    const sharded = (await sf.fx.sharded.query(r.sql, parameters)) as unknown[];
    if (r.empty) expect(plain).toEqual([]);
    else expect(plain.length, 'the case must return rows to mean anything').toBeGreaterThan(0);
    const order = (rows: unknown[]) => (r.ordered ? rows.map((x) => comparable(x, r.floats)) : rows.map((x) => comparable(x, r.floats)).sort());
    expect(order(sharded)).toEqual(order(plain));
  });
});
