import type { Dialect } from './print.js';

/**
 * One class of shapes: how often the generator reaches for each construct. Every class can
 * produce most constructs; its weights decide what it dwells on, so that a run of one class
 * (`SHAPES_CLASSES=groups`) hunts one family of bugs and a failure in one class does not
 * hide the others (each class is its own property).
 */
export interface ShapeClass {
  readonly name: string;
  readonly description: string;
  /** Probability that a select aggregates (global aggregate or GROUP BY). */
  readonly aggregate: number;
  /** Given an aggregate select: probability of GROUP BY. */
  readonly groupBy: number;
  /** Given GROUP BY: probability of HAVING (a tenth of it without GROUP BY). */
  readonly having: number;
  readonly distinct: number;
  /** Weight of the DISTINCT form of COUNT/SUM/AVG/GROUP_CONCAT among aggregates. */
  readonly distinctAggregates: number;
  /** Probability that an aggregate sits inside an expression (COALESCE(SUM(x), 0), SUM(a)/COUNT(*)). */
  readonly aggregateInExpression: number;
  readonly join: number;
  /** Probability of a FROM subquery (derived table). */
  readonly derived: number;
  /** Probability of a subquery in WHERE (EXISTS, IN (SELECT …), a scalar comparison). */
  readonly whereSubquery: number;
  /** Probability of a scalar subquery in the select list. */
  readonly selectSubquery: number;
  readonly union: number;
  /** Weight of the special column types (ENUM, SET, BIT, YEAR, DATE, TIME, binary, JSON) among columns. */
  readonly specialTypes: number;
  /** Probability of an ORDER BY, and of ORDER BY terms that are expressions rather than select items. */
  readonly orderBy: number;
  readonly orderByExpression: number;
  /** Probability of LIMIT when the order is total. */
  readonly limit: number;
  /** Probability that ORDER BY ends with a unique tiebreaker. */
  readonly tiebreak: number;
  /** Probability of a shard-key condition in WHERE. */
  readonly keyCondition: number;
  /** Probability that a derived table reads from a derived table itself (two levels at most). */
  readonly nestedDerived?: number;
  /** Probability that a derived table has ORDER BY (and so LIMIT: a top-N). @default 0.2 */
  readonly derivedTopN?: number;
  /**
   * A class of the whole grammar (DESIGN.md §8) builds its queries with its own builder
   * (`grammar.ts`) instead of the general select/union generator; the weights above still
   * steer the parts that builder takes from it.
   */
  readonly shape?: GrammarShape;
  /** The dialects the class's shapes exist in (all when unset): user variables and FOUND_ROWS() are MariaDB's. */
  readonly dialects?: readonly Dialect[];
}

/** The builders of the grammar classes (see `grammar.ts`). */
export type GrammarShape = 'ctes' | 'windows' | 'derived' | 'positions' | 'setops' | 'rowvalues' | 'json' | 'session' | 'distinctGroups';

const BASE: Omit<ShapeClass, 'name' | 'description'> = {
  aggregate: 0.3,
  groupBy: 0.7,
  having: 0.3,
  distinct: 0.1,
  distinctAggregates: 0.5,
  aggregateInExpression: 0.3,
  join: 0.15,
  derived: 0.05,
  whereSubquery: 0.05,
  selectSubquery: 0.03,
  union: 0.03,
  specialTypes: 0.5,
  orderBy: 0.7,
  orderByExpression: 0.3,
  limit: 0.5,
  tiebreak: 0.75,
  keyCondition: 0.3,
};

/** The shape classes, in the order they run. */
export const SHAPE_CLASSES: readonly ShapeClass[] = [
  { ...BASE, name: 'rows', description: 'row selects: columns, expressions, WHERE with and without the shard key, ORDER BY, LIMIT/OFFSET', aggregate: 0, distinct: 0.05, orderBy: 0.85, limit: 0.6 },
  { ...BASE, name: 'aggregates', description: 'global aggregates of every kind, alone and inside expressions, aliased or not', aggregate: 1, groupBy: 0, having: 0.1, aggregateInExpression: 0.6, orderBy: 0.2, limit: 0.2 },
  { ...BASE, name: 'groups', description: 'GROUP BY columns/expressions/positions, HAVING with aggregates, parameters, NULL and NOT, ORDER BY aggregates, LIMIT', aggregate: 1, groupBy: 1, having: 0.55, aggregateInExpression: 0.4, orderBy: 0.85, orderByExpression: 0.4, limit: 0.5 },
  { ...BASE, name: 'distinct', description: 'SELECT DISTINCT, COUNT(DISTINCT …) and the other DISTINCT aggregates', aggregate: 0.5, distinct: 0.6, distinctAggregates: 3, orderBy: 0.8 },
  { ...BASE, name: 'orderby', description: 'ORDER BY columns, aliases, positions, expressions, aggregates, ASC/DESC, with and without a tiebreaker, LIMIT/OFFSET', aggregate: 0.45, orderBy: 1, orderByExpression: 0.5, limit: 0.75, tiebreak: 0.65 },
  { ...BASE, name: 'types', description: 'every column type (ENUM, SET, BIT, YEAR, DATE/DATETIME, TIME, binary, JSON, DECIMAL, DOUBLE) in ORDER BY, MIN/MAX, GROUP BY, DISTINCT', aggregate: 0.4, distinct: 0.2, specialTypes: 4, orderBy: 0.95, limit: 0.6 },
  { ...BASE, name: 'joins', description: 'binding joins on the shard keys and broadcast joins, inner and left, with everything else', join: 1, aggregate: 0.4 },
  { ...BASE, name: 'subqueries', description: 'FROM subqueries, EXISTS / NOT EXISTS, IN (SELECT …), scalar subqueries, correlated and not', derived: 0.4, whereSubquery: 0.5, selectSubquery: 0.25, aggregate: 0.35 },
  { ...BASE, name: 'unions', description: 'UNION and UNION ALL of sharded and broadcast selects, ORDER BY positions/names, LIMIT', union: 1, orderBy: 0.8 },
  // The whole grammar (issue 14 item 6): every construct the typed nodes know.
  { ...BASE, name: 'ctes', shape: 'ctes', description: 'WITH: a CTE referenced once and twice, over sharded and broadcast tables; WITH RECURSIVE over constants and over a sharded table', derived: 1, aggregate: 0.4, orderBy: 0.85 },
  { ...BASE, name: 'windows', shape: 'windows', description: 'window functions in the select list, ORDER BY, derived tables and over groups; PARTITION BY the shard key or not, with and without ORDER BY and frames, named windows', orderBy: 0.9, limit: 0.5 },
  { ...BASE, name: 'derived', shape: 'derived', description: 'derived tables with WHERE, GROUP BY/HAVING, DISTINCT, ORDER BY + LIMIT, joins, nested two deep', derived: 1, nestedDerived: 0.35, derivedTopN: 0.35, aggregate: 0.45, having: 0.5, distinct: 0.25 },
  { ...BASE, name: 'positions', shape: 'positions', description: 'scalar / EXISTS / NOT EXISTS / IN / NOT IN subqueries in the select list, WHERE, HAVING and ORDER BY; correlated on the shard key, on other columns, and not', whereSubquery: 0.5, selectSubquery: 0.5, orderBy: 0.9 },
  { ...BASE, name: 'setops', shape: 'setops', description: 'UNION [ALL] / INTERSECT / EXCEPT chains, nested in parentheses (MariaDB) or in FROM subqueries, branches with their own ORDER BY + LIMIT', aggregate: 0.35, orderBy: 0.8 },
  { ...BASE, name: 'rowvalues', shape: 'rowvalues', description: 'row constructors: (a, b) [NOT] IN ((…), (…)), (a, b) = (…), (a, b) IN (SELECT x, y …), with and without the shard key', derived: 0, aggregate: 0.3 },
  { ...BASE, name: 'json', shape: 'json', description: 'JSON_EXTRACT / JSON_VALUE / JSON_UNQUOTE (MariaDB), json_extract and ->> (SQLite) in the select list, WHERE, GROUP BY and aggregates', orderBy: 0.8 },
  { ...BASE, name: 'session', shape: 'session', dialects: ['mysql'], description: 'user variables (SET @v, @v := … per row and of an aggregate, read back) and SQL_CALC_FOUND_ROWS … FOUND_ROWS() on one connection', derived: 0, aggregate: 0.3, limit: 0.7 },
  { ...BASE, name: 'distinctGroups', shape: 'distinctGroups', description: 'SELECT DISTINCT over a GROUP BY of the shard key (shard-local groups whose DISTINCT is not), with joins, HAVING, ORDER BY, LIMIT', orderBy: 0.85, limit: 0.5 },
];

/**
 * The classes selected by `SHAPES_CLASSES` (comma-separated names; all when unset). An
 * unknown name is an error that lists the known ones.
 */
export function selectedClasses(env: string | undefined): ShapeClass[] {
  if (env === undefined || env.trim() === '') return [...SHAPE_CLASSES];
  const names = env.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const unknown = names.filter((n) => !SHAPE_CLASSES.some((c) => c.name === n));
  if (unknown.length > 0) throw new Error(`SHAPES_CLASSES names unknown classes ${unknown.join(', ')}; known: ${SHAPE_CLASSES.map((c) => c.name).join(', ')}`);
  return SHAPE_CLASSES.filter((c) => names.includes(c.name));
}
