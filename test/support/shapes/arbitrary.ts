import fc from 'fast-check';
import type { ShapeCase } from './ast.js';
import { Choices } from './choices.js';
import type { ShapeClass } from './classes.js';
import { Gen } from './context.js';
import { printQuery, type Dialect, type PrintedQuery } from './print.js';
import type { ShapeData, TableDef } from './schema.js';
import { generateCase } from './generate.js';

/** A generated case with its SQL for one dialect. */
export interface PrintedCase {
  readonly c: ShapeCase;
  readonly q: PrintedQuery;
}

/** The query with the statements of its session around it (`SET @v = 1; SELECT …; SELECT @v`). */
export function sessionText(c: ShapeCase, sql: string): string {
  if (!c.session) return sql;
  return [...c.session.before, sql, ...c.session.after.map((a) => a.sql)].join('; ');
}

/** Longest choice sequence: enough for the largest shapes (a union of three grouped selects). */
const MAX_CHOICES = 320;

/**
 * Queries of one shape class. fast-check generates the choice sequence without bias (every
 * option as likely as its weight says) and shrinks it; the query is rebuilt from the shrunk
 * sequence, so a failure shrinks to a small query. Shown by fast-check as its SQL.
 */
export function shapeCases(cls: ShapeClass, dialect: Dialect, tables: { facts: TableDef; lines: TableDef; refs: TableDef }, data: ShapeData): fc.Arbitrary<PrintedCase> {
  return fc.noBias(fc.array(fc.nat({ max: Choices.RANGE - 1 }), { maxLength: MAX_CHOICES, size: 'max' })).map((sequence) => {
    const c = generateCase(new Gen(new Choices(sequence), cls, dialect, tables, data));
    const q = printQuery(c.query, dialect);
    return {
      c,
      q,
      [fc.toStringMethod]: () => `${sessionText(c, q.sql)}  -- params ${JSON.stringify(q.params)}`,
    };
  });
}
