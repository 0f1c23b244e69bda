import 'reflect-metadata';
import { appendFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../support/backends.js';
import { mariadbAvailable } from '../support/mariadb.js';
import { shapeCases } from '../support/shapes/arbitrary.js';
import { selectedClasses } from '../support/shapes/classes.js';
import { openShapeFixture, type ShapeFixture, type ShapeStorage } from '../support/shapes/fixture.js';
import { failureMessage, isFailure, runCase, ShapeStats } from '../support/shapes/harness.js';
import { havingNullCases } from '../support/shapes/having-null.js';
import { findingsText, survey } from '../support/shapes/survey.js';
import { knownFailureOf } from './random-shapes.known-failures.js';

// Random query shapes, not only random values (DESIGN.md §4): a SQLancer-style generator
// builds whole queries (select lists with aggregates inside expressions, ORDER BY aliases,
// positions and expressions, GROUP BY/HAVING, DISTINCT, joins, subqueries, UNION, every
// column type, NULLs, ties) over one small schema; each must get the same answer from the
// 4-shard source as from one plain database, or be refused with UnsupportedShardingError.
//
//   SHAPES_SEED=123        reproduce a run (each class uses SHAPES_SEED + its index); CI=true: a fixed seed
//   SHAPES_RUNS=2000       queries per class and backend (default 250 on SQLite, 100 on MariaDB)
//   SHAPES_CLASSES=groups,orderby   run only these classes (see support/shapes/classes.ts)
//   SHAPES_BACKENDS=sqlite           run on these backends only (default: sqlite,mariadb)
//   SHAPES_SURVEY=1        instead of stopping at the first failure of a class, find one shrunk example
//                          of every distinct failure (written to SHAPES_SURVEY_OUT, default the console)

/**
 * CI runs one fixed seed, so that its verdict is about the change and not about the draw; a
 * run elsewhere draws a new seed each time and so keeps exploring (the seed is printed).
 */
const CI_SEED = 20261201;
const SEED =
  process.env.SHAPES_SEED !== undefined ? Number(process.env.SHAPES_SEED) : process.env.CI === 'true' ? CI_SEED : Math.floor(Math.random() * 2 ** 31);
const DEFAULT_RUNS = { sqlite: 250, mariadb: 100 } as const;
/**
 * Shrinking runs both sources per candidate; after this many candidates the rest are
 * skipped (counted as passing), so a failure is reported within seconds, shrunk this far.
 */
const SHRINK_BUDGET = 400;
/** The plain source may reject at most this fraction of generated queries (generator bugs) before the run fails. */
const MAX_INVALID = 0.01;
const classes = selectedClasses(process.env.SHAPES_CLASSES);
const stats = new ShapeStats();
const SURVEY = process.env.SHAPES_SURVEY === '1';

afterAll(() => {
  console.log(`${stats.summary()}\nSHAPES_SEED=${SEED}`);
});

const backends = (process.env.SHAPES_BACKENDS ?? 'sqlite,mariadb').split(',').map((b) => b.trim());

// Each backend twice: as 4 shards, and as 3 shards whose sharded tables are laid out as 3
// tables per shard database (a table-per-shard layout, at half the runs); MariaDB a third time
// with the facts table partitioned by the server in each of 3 shard databases (half the runs).
const VARIANTS: readonly (readonly [Backend, ShapeStorage])[] = [['sqlite', 'table'], ['sqlite', 'tables'], ['mariadb', 'table'], ['mariadb', 'tables'], ['mariadb', 'partitions']];
const STORAGE_TITLE: Record<ShapeStorage, string> = { table: '', tables: ' with a table-per-shard layout', partitions: ' with MySQL partitions' };
for (const [backend, storage] of VARIANTS) {
  if (!backends.includes(backend)) continue;
  const available = backend === 'sqlite' || (await mariadbAvailable());
  const runs = process.env.SHAPES_RUNS !== undefined ? Number(process.env.SHAPES_RUNS) : DEFAULT_RUNS[backend];
  const numRuns = storage !== 'table' ? Math.max(1, Math.ceil(runs / 2)) : runs;

  describe.runIf(available)(`random query shapes on ${backend}${STORAGE_TITLE[storage]} (SHAPES_SEED=${SEED})`, () => {
    let sf: ShapeFixture;
    beforeAll(async () => {
      sf = await openShapeFixture(backend, storage);
    });
    afterAll(async () => {
      await sf?.fx.close();
    });

    classes.forEach((cls, index) => {
      // A class of one dialect's constructs (user variables) exists on that backend only.
      if (cls.dialects && !cls.dialects.includes(backend === 'mariadb' ? 'mysql' : 'sqlite')) return;
      // Survey mode replaces each class's property (nothing is registered as skipped in either mode).
      if (SURVEY) {
        it(`survey ${cls.name}: every distinct failure, shrunk`, async () => {
          const arbitrary = shapeCases(cls, sf.dialect, sf.tables, sf.data);
          const findings = await survey(arbitrary, ({ c, q }) => runCase(sf.fx.plain, sf.fx.sharded, c, q), { seed: SEED + index, numRuns, rounds: 30, shrinkBudget: 300 });
          const text = findingsText(backend, findings);
          if (process.env.SHAPES_SURVEY_OUT) appendFileSync(process.env.SHAPES_SURVEY_OUT, `${text}\n`);
          else console.log(text);
          expect(findings.map((f) => `${f.outcome.kind}: ${f.sql}`)).toEqual([]);
        });
        return;
      }

      it(`${cls.name}: ${cls.description}`, async () => {
        // Only the first failure is counted; the runs after it are fast-check shrinking it.
        let failed = false;
        let shrinks = 0;
        await fc.assert(
          fc.asyncProperty(shapeCases(cls, sf.dialect, sf.tables, sf.data), async ({ c, q }) => {
            if (failed && ++shrinks > SHRINK_BUDGET) return;
            sf.fx.physical.length = 0;
            const outcome = await runCase(sf.fx.plain, sf.fx.sharded, c, q);
            const known = isFailure(outcome) ? knownFailureOf(backend, c, outcome) : undefined;
            if (known) {
              if (!failed) stats.recordKnown(backend, c, known.id);
              return;
            }
            if (!failed) stats.record(backend, c, q, outcome);
            if (isFailure(outcome)) {
              failed = true;
              const physical = sf.fx.physical.slice(0, 12).map((e) => `    ${e.shard}: ${e.sql} -- ${JSON.stringify(e.parameters, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`);
              throw new Error(`${failureMessage(backend, c, q, outcome, `SHAPES_SEED=${SEED} SHAPES_CLASSES=${cls.name}`)}\n  physical (first run of this query):\n${physical.join('\n')}`);
            }
          }),
          { numRuns, seed: SEED + index },
        );
      });
    });

    it(`the generator writes valid SQL: the plain source rejects at most ${MAX_INVALID * 100} % of the queries`, () => {
      const { invalid, runs } = stats.invalid(backend);
      if (invalid.length > Math.max(1, runs * MAX_INVALID)) {
        expect.fail(`the plain source rejected ${invalid.length} of ${runs} generated queries (generator bugs):\n  ${invalid.slice(0, 10).join('\n  ')}`);
      }
    });

    // The issue's test gaps: a HAVING comparison with NULL is unknown, and NOT unknown is unknown
    // (the group is dropped), not true.
    for (const example of havingNullCases(backend === 'mariadb' ? 'mysql' : 'sqlite')) {
      it(`HAVING with NULL under NOT: ${example.title}`, async () => {
        const { c, q } = example.build(sf.tables);
        // The case discriminates only if the plain answer has this shape (group 5 has only NULL quantities).
        const groups = ((await sf.fx.plain.query(q.sql, [...q.params])) as { g: unknown }[]).map((r) => Number(r.g));
        if (example.expectGroups === 'none') expect(groups).toEqual([]);
        else expect(groups.length > 0 && !groups.includes(5), `plain groups ${JSON.stringify(groups)}`).toBe(true);
        const outcome = await runCase(sf.fx.plain, sf.fx.sharded, c, q);
        if (outcome.kind !== 'pass' && outcome.kind !== 'refused') expect.fail(failureMessage(backend, c, q, outcome, 'a fixed case'));
      });
    }
  });
}
