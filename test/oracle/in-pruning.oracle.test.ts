import 'reflect-metadata';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { In, MoreThan } from 'typeorm';
import { mariadbAvailable } from '../support/mariadb.js';
import { asSet, inOrder, prng } from '../support/oracle.js';
import { oracleLayouts, runsFor, tableKit, useOracleEnv } from '../support/oracle-env.js';

// Differential oracle of IN pruning (DESIGN.md §4). The same rows live in a plain TypeORM
// DataSource and in three sharded ones (pruning with one statement per shard; pruning with
// batches of 3 values; pruning off); every find / QueryBuilder / raw query below must give the
// same answer on all four. Alongside the answers, the physical statements are checked: every
// IN value is sent exactly once, to the shard that holds it; no shard without a value gets a
// statement; an empty IN list sends nothing; a shard with n values gets ceil(n / max)
// statements. Tables: `orders` (BIGINT key; on MariaDB ids up to ±2^63, on SQLite below
// 2^53), `wide_orders` (BIGINT UNSIGNED key up to 2^64 − 1, MariaDB only) and `coded_orders`
// (VARCHAR key).

const RUNS = { sqlite: 150, mariadb: 50 } as const;
const BIG_LIST = 5000;

for (const backend of ['sqlite', 'mariadb'] as const) {
  const available = backend === 'sqlite' || (await mariadbAvailable());

  describe.runIf(available)(`IN pruning oracle on ${backend}`, () => {
    const env = useOracleEnv(backend);
    const numRuns = runsFor(RUNS, backend);

    for (const t of env.tables) {
      describe(t.label, () => {
        const { pruned, prunedAggregate, routedTo, idArb, idsArb, nonEmptyIdsArb, spellingArb, spell, literal, orderArb, skipArb, takeArb, repo } = tableKit(t);

        it('loads every row on the shard its key names', async () => {
          expect(await env.plain.getRepository(t.entity).count()).toBe(t.rows.length);
          for (const s of env.sources) {
            const ds = s.fx.sharded;
            let total = 0;
            // Under a table-per-shard layout, each physical table holds only its own keys' rows.
            const tables = s.layout ? Array.from({ length: oracleLayouts(env.backend)[t.table]! }, (_, i) => `${t.table}_${i}`) : [t.table];
            for (const name of ds.shardNames) {
              for (const table of tables) {
                const rows = (await ds.getShardDataSource(name).query(`SELECT id FROM ${table}`)) as { id: unknown }[];
                total += rows.length;
                const misplaced = rows.map((r) => String(r.id)).filter((id) => ds.shardOf(t.entity, id) !== name || (s.layout && ds.tableOf(t.entity, id) !== table));
                expect(misplaced, `rows on ${name}.${table} that belong elsewhere [${s.name}]`).toEqual([]);
                if (s.layout) expect(rows.length, `${name}.${table} holds rows [${s.name}]`).toBeGreaterThan(0);
              }
            }
            expect(total, `rows over all shards [${s.name}]`).toBe(t.rows.length);
          }
        });

        it('find / findBy with In(ids): same rows, each value sent once to its own shard', async () => {
          await fc.assert(
            fc.asyncProperty(idsArb, spellingArb, async (ids, how) => {
              const values = spell(ids, how);
              await env.oracle(`find({ where: { id: In(${JSON.stringify(values)}) } })`, (ds) => repo(ds).find({ where: { id: In(values) } }), asSet, pruned(values));
              await env.oracle(`findBy({ id: In(${JSON.stringify(values)}) })`, (ds) => repo(ds).findBy({ id: In(values) }), asSet, pruned(values));
            }),
            {
              numRuns,
              examples: [
                [[], 'strings'],
                [[t.existing[0]!], 'strings'],
                [[t.missing[0]!], 'strings'],
                [[t.existing[1]!, t.existing[1]!, t.missing[1]!], 'numbers'],
                [[t.existing[1]!, t.existing[1]!, t.existing[2]!, t.existing[3]!], 'mixed'],
              ],
            },
          );
        });

        it('In(ids) AND-ed with other predicates: buyerId = b, amount > x', async () => {
          await fc.assert(
            fc.asyncProperty(idsArb, fc.integer({ min: 0, max: 16 }), fc.integer({ min: -1, max: 31 }), async (ids, b, x) => {
              await env.oracle(`find({ where: { id: In(${JSON.stringify(ids)}), buyerId: ${b} } })`, (ds) => repo(ds).find({ where: { id: In(ids), buyerId: b } }), asSet, pruned(ids));
              await env.oracle(`find({ where: { id: In(${JSON.stringify(ids)}), amount: MoreThan(${x}) } })`, (ds) => repo(ds).find({ where: { id: In(ids), amount: MoreThan(x) } }), asSet, pruned(ids));
            }),
            { numRuns },
          );
        });

        it('OR of equalities, findOneBy, findBy, findOne', async () => {
          await fc.assert(
            fc.asyncProperty(idArb, idArb, idsArb, async (a, b, ids) => {
              await env.oracle(`find({ where: [{ id: ${a} }, { id: ${b} }] })`, (ds) => repo(ds).find({ where: [{ id: a }, { id: b }] }), asSet, routedTo([a, b]));
              await env.oracle(`findOneBy({ id: ${a} })`, (ds) => repo(ds).findOneBy({ id: a }), (r) => asSet(r ? [r] : []), routedTo([a]));
              await env.oracle(`findBy({ id: ${a} })`, (ds) => repo(ds).findBy({ id: a }), asSet, routedTo([a]));
              await env.oracle(
                `findOne({ where: { id: In(${JSON.stringify(ids)}) }, order: { amount: 'ASC', id: 'ASC' } })`,
                (ds) => repo(ds).findOne({ where: { id: In(ids) }, order: { amount: 'ASC', id: 'ASC' } }),
                (r) => inOrder(r ? [r] : []),
                pruned(ids),
              );
            }),
            { numRuns },
          );
        });

        it('QueryBuilder: whereInIds, where IN (:...ids) getMany / getRawMany, andWhere', async () => {
          await fc.assert(
            fc.asyncProperty(idsArb, nonEmptyIdsArb, fc.integer({ min: 0, max: 16 }), async (ids, some, b) => {
              await env.oracle(`qb.whereInIds(${JSON.stringify(ids)}).getMany()`, (ds) => repo(ds).createQueryBuilder('o').whereInIds(ids).getMany(), asSet, pruned(ids));
              await env.oracle(
                `qb.where('o.id IN (:...ids)', ${JSON.stringify(some)}).getMany()`,
                (ds) => repo(ds).createQueryBuilder('o').where('o.id IN (:...ids)', { ids: some }).getMany(),
                asSet,
                pruned(some),
              );
              await env.oracle(
                `qb.where('o.id IN (:...ids)', ${JSON.stringify(some)}).getRawMany()`,
                (ds) => repo(ds).createQueryBuilder('o').where('o.id IN (:...ids)', { ids: some }).getRawMany(),
                asSet,
                pruned(some),
              );
              await env.oracle(
                `qb.where('o.id IN (:...ids)', ${JSON.stringify(some)}).andWhere('o.buyerId = :b', ${b}).getMany()`,
                (ds) => repo(ds).createQueryBuilder('o').where('o.id IN (:...ids)', { ids: some }).andWhere('o.buyerId = :b', { b }).getMany(),
                asSet,
                pruned(some),
              );
            }),
            { numRuns },
          );
        });

        it('raw query: IN with literals in the text and with ? parameters', async () => {
          await fc.assert(
            fc.asyncProperty(nonEmptyIdsArb, async (ids) => {
              const literalSql = `SELECT id, amount FROM ${t.table} WHERE id IN (${ids.map(literal).join(', ')})`;
              await env.oracle(`query(${literalSql})`, (ds) => ds.query(literalSql), (rows: unknown[]) => asSet(rows), pruned(ids));
              const paramSql = `SELECT id, amount FROM ${t.table} WHERE id IN (${ids.map(() => '?').join(', ')})`;
              await env.oracle(`query(${paramSql}, ${JSON.stringify(ids)})`, (ds) => ds.query(paramSql, ids), (rows: unknown[]) => asSet(rows), pruned(ids));
            }),
            { numRuns },
          );
        });

        it('ORDER BY + skip/take over the pruned shards: the same page in the same order', async () => {
          await fc.assert(
            fc.asyncProperty(idsArb, orderArb, skipArb, takeArb, async (ids, order, skip, take) => {
              const text = `find({ where: { id: In(${JSON.stringify(ids)}) }, order: ${JSON.stringify(order)}, skip: ${skip}, take: ${take} })`;
              await env.oracle(text, (ds) => repo(ds).find({ where: { id: In(ids) }, order, skip, take }), inOrder, pruned(ids));
              await env.oracle(`findAndCount(${text.slice(5)}`, (ds) => repo(ds).findAndCount({ where: { id: In(ids) }, order, skip, take }), ([rows, n]) => [inOrder(rows), n]);
              await env.oracle(
                `qb.whereInIds(${JSON.stringify(ids)}).orderBy(amount DESC).addOrderBy(id ASC).offset(${skip}).limit(${take})`,
                (ds) => repo(ds).createQueryBuilder('o').whereInIds(ids).orderBy('o.amount', 'DESC').addOrderBy('o.id', 'ASC').offset(skip).limit(take).getMany(),
                inOrder,
                pruned(ids),
              );
            }),
            {
              numRuns,
              examples: [
                [[t.existing[0]!, t.existing[1]!, t.existing[2]!], { amount: 'DESC', id: 'ASC' }, 1, undefined],
                // the ids tied on amount 7 (near 2^53, 2^63 and 0): only the exact id breaks the tie
                [t.rows.filter((r) => r.amount === 7).map((r) => String(r.id)), { amount: 'DESC', id: 'ASC' }, 2, 5],
              ],
            },
          );
        });

        it('ORDER BY + skip/take over every shard (deep pages)', async () => {
          await fc.assert(
            fc.asyncProperty(orderArb, fc.option(fc.integer({ min: 0, max: t.rows.length + 10 }), { nil: undefined }), takeArb, async (order, skip, take) => {
              await env.oracle(`find({ order: ${JSON.stringify(order)}, skip: ${skip}, take: ${take} })`, (ds) => repo(ds).find({ order, skip, take }), inOrder);
            }),
            { numRuns: Math.ceil(numRuns / 3), examples: [[{ amount: 'DESC', id: 'ASC' }, 20, 20], [{ id: 'DESC' }, 5, undefined], [{ id: 'DESC' }, 0, undefined]] },
          );
        });

        it('count, count({ where }), findAndCount, exists', async () => {
          await fc.assert(
            fc.asyncProperty(idsArb, fc.integer({ min: 0, max: 16 }), fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }), async (ids, b, take) => {
              await env.oracle('count()', (ds) => repo(ds).count(), (n) => n);
              await env.oracle(`count({ where: { buyerId: ${b} } })`, (ds) => repo(ds).count({ where: { buyerId: b } }), (n) => n);
              await env.oracle(`count({ where: { id: In(${JSON.stringify(ids)}) } })`, (ds) => repo(ds).count({ where: { id: In(ids) } }), (n) => n, prunedAggregate(ids));
              await env.oracle(
                `findAndCount({ where: { id: In(${JSON.stringify(ids)}), buyerId: ${b} }, order: { id: 'ASC' }, take: ${take} })`,
                (ds) => repo(ds).findAndCount({ where: { id: In(ids), buyerId: b }, order: { id: 'ASC' }, take }),
                ([rows, n]) => [inOrder(rows), n],
              );
              await env.oracle(`exists({ where: { id: In(${JSON.stringify(ids)}) } })`, (ds) => repo(ds).exists({ where: { id: In(ids) } }), (x) => x, pruned(ids));
              await env.oracle(`exists({ where: { buyerId: ${b} } })`, (ds) => repo(ds).exists({ where: { buyerId: b } }), (x) => x);
            }),
            { numRuns: Math.ceil(numRuns / 2) },
          );
        });

        it('an empty IN list sends no statement', async () => {
          await env.oracle('find({ where: { id: In([]) } })', (ds) => repo(ds).find({ where: { id: In([]) } }), asSet, pruned([]));
          await env.oracle('count({ where: { id: In([]) } })', (ds) => repo(ds).count({ where: { id: In([]) } }), (n) => n, prunedAggregate([]));
          await env.oracle(
            'find({ where: { id: In([]) }, order: { id: "ASC" }, skip: 1, take: 2 })',
            (ds) => repo(ds).find({ where: { id: In([]) }, order: { id: 'ASC' }, skip: 1, take: 2 }),
            inOrder,
            pruned([]),
          );
          await env.oracle('exists({ where: { id: In([]) } })', (ds) => repo(ds).exists({ where: { id: In([]) } }), (x) => x, pruned([]));
          await env.oracle('qb.whereInIds([]).getMany()', (ds) => repo(ds).createQueryBuilder('o').whereInIds([]).getMany(), asSet, pruned([]));
        });

        it(`one IN list of ${BIG_LIST} values`, async () => {
          const rand = prng(99);
          const ids = [...t.existing];
          for (let i = 0; ids.length < BIG_LIST; i++) ids.push(t.integer ? String(7_000_000_000_000 + i * 7919) : `missing-${i}`);
          for (let i = ids.length - 1; i > 0; i--) {
            const j = Math.floor(rand() * (i + 1));
            [ids[i], ids[j]] = [ids[j]!, ids[i]!];
          }
          await env.oracle(`find({ where: { id: In(<${BIG_LIST} values>) } })`, (ds) => repo(ds).find({ where: { id: In(ids) } }), asSet, pruned(ids));
          await env.oracle(`count({ where: { id: In(<${BIG_LIST} values>) } })`, (ds) => repo(ds).count({ where: { id: In(ids) } }), (n) => n, prunedAggregate(ids));
        });
      });
    }
  });
}
