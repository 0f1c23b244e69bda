import 'reflect-metadata';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { In, LessThan, MoreThan, Not, type DataSource, type ObjectLiteral, type SelectQueryBuilder } from 'typeorm';
import { mariadbAvailable } from '../support/mariadb.js';
import { asSet, inOrder, normalizeRow } from '../support/oracle.js';
import { runsFor, tableKit, useOracleEnv } from '../support/oracle-env.js';

// Differential oracle of the rest of the read path, on the same data and sources as
// in-pruning.oracle.test.ts: key values spelled several ways, IN lists that cannot be pruned
// (under OR, NOT IN, ranges), two IN lists on the key, parameters before the IN list,
// aggregates and GROUP BY, queries that can match nothing, relations with skip/take (TypeORM's
// DISTINCT page query), raw LIMIT forms and ORDER BY columns that are not selected.

const RUNS = { sqlite: 100, mariadb: 40 } as const;

for (const backend of ['sqlite', 'mariadb'] as const) {
  const available = backend === 'sqlite' || (await mariadbAvailable());

  describe.runIf(available)(`read path oracle on ${backend}`, () => {
    const env = useOracleEnv(backend);
    const numRuns = runsFor(RUNS, backend);

    for (const t of env.tables) {
      describe(t.label, () => {
        const { pruned, idArb, idsArb, nonEmptyIdsArb, literal, orderArb, skipArb, takeArb, repo } = tableKit(t);
        /**
         * Two existing ids whose order as plain text differs from the database's order: a shorter
         * integer that is smaller as text but larger as a number, or two strings that a binary
         * comparison and a case-insensitive collation order differently ('Zed' < 'a' only in binary).
         */
        const trap = ((): string[] => {
          const sample = t.existing.slice(0, 300);
          for (const a of sample) {
            for (const b of sample) {
              const textLess = a < b;
              const dbLess = t.integer ? BigInt(a) < BigInt(b) : a.toLowerCase() < b.toLowerCase();
              if (a !== b && textLess !== dbLess && a.toLowerCase() !== b.toLowerCase()) return [a, b];
            }
          }
          return [t.existing[0]!, t.existing[1]!];
        })();

        it.runIf(t.integer)('raw query: integer keys spelled several ways (leading zeros, quoted, +sign) are one key', async () => {
          const spellingArb = fc.constantFrom('plain', 'zeros', 'quoted', 'signed');
          const spellOne = ([id, how]: [string, string]): string => {
            const negative = id.startsWith('-');
            const digits = negative ? id.slice(1) : id;
            switch (how) {
              case 'zeros':
                return `${negative ? '-' : ''}00${digits}`;
              case 'quoted':
                return `'${id}'`;
              case 'signed':
                return negative ? `'-0${digits}'` : `'+${digits}'`;
              default:
                return id;
            }
          };
          await fc.assert(
            fc.asyncProperty(fc.array(fc.tuple(idArb, spellingArb), { minLength: 1, maxLength: 30 }), async (items) => {
              const sql = `SELECT id, amount FROM ${t.table} WHERE id IN (${items.map(spellOne).join(', ')})`;
              await env.oracle(`query(${sql})`, (ds) => ds.query(sql), (rows: unknown[]) => asSet(rows), pruned(items.map(([id]) => id)));
            }),
            { numRuns, examples: [[[[t.existing[2]!, 'plain'], [t.existing[2]!, 'zeros'], [t.existing[2]!, 'quoted'], [t.existing[2]!, 'signed']]]] },
          );
        });

        it('IN lists that cannot be pruned: under OR, NOT IN, key ranges', async () => {
          await fc.assert(
            fc.asyncProperty(idsArb, idsArb, fc.integer({ min: 0, max: 16 }), idArb, async (a, b, buyer, pivot) => {
              await env.oracle(`find({ where: [{ id: In(${JSON.stringify(a)}) }, { id: In(${JSON.stringify(b)}) }] })`, (ds) => repo(ds).find({ where: [{ id: In(a) }, { id: In(b) }] }), asSet);
              await env.oracle(`find({ where: [{ id: In(${JSON.stringify(a)}) }, { buyerId: ${buyer} }] })`, (ds) => repo(ds).find({ where: [{ id: In(a) }, { buyerId: buyer }] }), asSet);
              await env.oracle(`count({ where: { id: Not(In(${JSON.stringify(a)})) } })`, (ds) => repo(ds).count({ where: { id: Not(In(a)) } }), (n) => n);
              await env.oracle(
                `find({ where: { id: Not(In(${JSON.stringify(a)})), buyerId: ${buyer} }, order: { id: 'ASC' }, take: 10 })`,
                (ds) => repo(ds).find({ where: { id: Not(In(a)), buyerId: buyer }, order: { id: 'ASC' }, take: 10 }),
                inOrder,
              );
              if (t.integer) {
                await env.oracle(
                  `find({ where: { id: MoreThan(${pivot}) }, order: { id: 'ASC' }, take: 7 })`,
                  (ds) => repo(ds).find({ where: { id: MoreThan(pivot) }, order: { id: 'ASC' }, take: 7 }),
                  inOrder,
                );
                await env.oracle(`count({ where: { id: LessThan(${pivot}) } })`, (ds) => repo(ds).count({ where: { id: LessThan(pivot) } }), (n) => n);
              }
            }),
            { numRuns: Math.ceil(numRuns / 2) },
          );
        });

        it('two IN lists on the key, and parameters before and after the IN list', async () => {
          await fc.assert(
            fc.asyncProperty(nonEmptyIdsArb, nonEmptyIdsArb, fc.integer({ min: 0, max: 16 }), fc.integer({ min: -1, max: 31 }), async (a, b, buyer, x) => {
              const both = [...a, ...b.slice(0, 5)];
              await env.oracle(
                `qb.where('o.id IN (:...a)', ${JSON.stringify(both)}).andWhere('o.id IN (:...b)', ${JSON.stringify(b)}).getMany()`,
                (ds) => repo(ds).createQueryBuilder('o').where('o.id IN (:...a)', { a: both }).andWhere('o.id IN (:...b)', { b }).getMany(),
                asSet,
              );
              await env.oracle(
                `qb.where('o.buyerId <> :buyer').andWhere('o.id IN (:...a)').andWhere('o.amount > :x').getMany()`,
                (ds) => repo(ds).createQueryBuilder('o').where('o.buyerId <> :buyer', { buyer }).andWhere('o.id IN (:...a)', { a }).andWhere('o.amount > :x', { x }).getMany(),
                asSet,
                pruned(a),
              );
              const sql = `SELECT id, buyerId FROM ${t.table} WHERE amount > ? AND id IN (${a.map(() => '?').join(', ')}) AND buyerId <> ?`;
              await env.oracle(`query(${sql}, [${x}, ...a, ${buyer}])`, (ds) => ds.query(sql, [x, ...a, buyer]), (rows: unknown[]) => asSet(rows), pruned(a));
              // literals and parameters mixed inside one IN list
              const mixed = a.map((id, i) => (i % 2 === 0 ? literal(id) : '?'));
              const mixedSql = `SELECT id FROM ${t.table} WHERE buyerId <> ? AND id IN (${mixed.join(', ')}) ORDER BY id DESC`;
              const mixedParams = [buyer, ...a.filter((_, i) => i % 2 === 1)];
              await env.oracle(`query(${mixedSql}, ${JSON.stringify(mixedParams)})`, (ds) => ds.query(mixedSql, mixedParams), (rows: unknown[]) => inOrder(rows), pruned(a));
            }),
            { numRuns },
          );
        });

        it('aggregates over the pruned shards: COUNT, SUM, MIN, MAX, AVG, GROUP BY, DISTINCT', async () => {
          const sumOfIds = backend === 'mariadb' && t.integer; // SQLite's SUM overflows on ids near 2^63 (and the plain source would throw)
          const aggregates = <Q extends SelectQueryBuilder<ObjectLiteral>>(qb: Q): Q => {
            qb.addSelect('COUNT(*)', 'n').addSelect('SUM(o.amount)', 's').addSelect('MIN(o.id)', 'min_id').addSelect('MAX(o.id)', 'max_id').addSelect('MAX(o.amount)', 'mx').addSelect('AVG(o.amount)', 'av');
            if (sumOfIds) qb.addSelect('SUM(o.id)', 'sum_id');
            return qb;
          };
          await fc.assert(
            fc.asyncProperty(nonEmptyIdsArb, fc.integer({ min: 1, max: 6 }), async (ids, take) => {
              const where = `where('o.id IN (:...ids)', ${JSON.stringify(ids)})`;
              await env.oracle(
                `qb.select(COUNT, SUM, MIN(id), MAX(id), MAX, AVG).${where}.getRawOne()`,
                (ds) => aggregates(repo(ds).createQueryBuilder('o').select([])).where('o.id IN (:...ids)', { ids }).getRawOne(),
                (r) => (r === undefined ? r : normalizeRow(r)),
                pruned(ids),
              );
              await env.oracle(
                `qb.select(buyerId, COUNT, SUM, MIN(id), MAX(id), MAX, AVG).${where}.groupBy(buyerId).orderBy(buyerId).getRawMany()`,
                (ds) => aggregates(repo(ds).createQueryBuilder('o').select('o.buyerId', 'b')).where('o.id IN (:...ids)', { ids }).groupBy('o.buyerId').orderBy('o.buyerId', 'ASC').getRawMany(),
                inOrder,
                pruned(ids),
              );
              // groups span shards, ordered by an aggregate, then a page: the limit can only be cut after the merge
              await env.oracle(
                `qb.select(buyerId, COUNT(*) n).${where}.groupBy(buyerId).orderBy(n DESC).addOrderBy(buyerId ASC).limit(${take})`,
                (ds) => repo(ds).createQueryBuilder('o').select('o.buyerId', 'b').addSelect('COUNT(*)', 'n').where('o.id IN (:...ids)', { ids }).groupBy('o.buyerId').orderBy('n', 'DESC').addOrderBy('b', 'ASC').limit(take).getRawMany(),
                inOrder,
              );
              await env.oracle(
                `qb.select(DISTINCT amount).${where}.orderBy(amount DESC).getRawMany()`,
                (ds) => repo(ds).createQueryBuilder('o').select('DISTINCT o.amount', 'a').where('o.id IN (:...ids)', { ids }).orderBy('a', 'DESC').getRawMany(),
                inOrder,
                pruned(ids),
              );
              await env.oracle(`sum('amount', { id: In(${JSON.stringify(ids)}) })`, (ds) => repo(ds).sum('amount', { id: In(ids) }), (x) => x, pruned(ids));
              await env.oracle(`average('amount', { id: In(${JSON.stringify(ids)}) })`, (ds) => repo(ds).average('amount', { id: In(ids) }), (x) => x, pruned(ids));
              await env.oracle(`maximum('id', { id: In(${JSON.stringify(ids)}) })`, (ds) => repo(ds).maximum('id', { id: In(ids) }), (x) => (x === null ? x : String(x)), pruned(ids));
            }),
            { numRuns: Math.ceil(numRuns / 2) },
          );
        });

        // Routed "nowhere" (In([]), IN (NULL), 1 = 0): no statement needs to run, but one database still
        // answers an aggregate without GROUP BY with one row: COUNT 0, SUM / MAX NULL.
        const nowhere: [string, (ds: DataSource) => Promise<unknown>][] = [
          ["sum('amount', { id: In([]) })", (ds) => repo(ds).sum('amount', { id: In([]) })],
          ["maximum('amount', { id: In([]) })", (ds) => repo(ds).maximum('amount', { id: In([]) })],
          [
            "qb.select('COUNT(*)', 'n').addSelect('SUM(o.amount)', 's').where({ id: In([]) }).getRawOne()",
            (ds) => repo(ds).createQueryBuilder('o').select('COUNT(*)', 'n').addSelect('SUM(o.amount)', 's').where({ id: In([]) }).getRawOne(),
          ],
          [`query(SELECT COUNT(*) AS n, MAX(amount) AS m FROM ${t.table} WHERE id IN (NULL))`, (ds) => ds.query(`SELECT COUNT(*) AS n, MAX(amount) AS m FROM ${t.table} WHERE id IN (NULL)`)],
          [`query(SELECT COUNT(*) AS n FROM ${t.table} WHERE 1 = 0)`, (ds) => ds.query(`SELECT COUNT(*) AS n FROM ${t.table} WHERE 1 = 0`)],
        ];
        for (const [label, call] of nowhere) {
          it(`a query that can match nothing answers like one database: ${label}`, async () => {
            await env.oracle(label, call, (r) => r);
          });
        }

        it.runIf(t.items !== undefined)('relations + skip/take (the DISTINCT page query, then the page by ids)', async () => {
          /** An order with its items sorted by id (their order inside one entity is not defined by the query). */
          const withItems = (rows: ObjectLiteral[]) => rows.map((r) => ({ ...normalizeRow({ ...r, items: undefined }), items: asSet((r.items as unknown[]) ?? []) }));
          await fc.assert(
            fc.asyncProperty(idsArb, orderArb, skipArb, takeArb, async (ids, order, skip, take) => {
              // MariaDB 10.11 itself answers wrongly when the WHERE pins a single primary key (a "const"
              // table): `SELECT DISTINCT … FROM (… LEFT JOIN order_items …) ORDER BY … LIMIT 1 OFFSET 1`
              // returns the row although there is only one distinct row. The plain source (and a sharded
              // statement passed through to one shard) would then be wrong, so on MariaDB a page after the
              // first is asked for two or more distinct ids.
              fc.pre(backend !== 'mariadb' || !skip || new Set(ids).size >= 2);
              const options = { where: { id: In(ids) }, relations: { items: true }, order, skip, take };
              const text = `{ where: { id: In(${JSON.stringify(ids)}) }, relations: { items: true }, order: ${JSON.stringify(order)}, skip: ${skip}, take: ${take} }`;
              await env.oracle(`find(${text})`, (ds) => repo(ds).find(options), withItems);
              await env.oracle(`findAndCount(${text})`, (ds) => repo(ds).findAndCount(options), ([rows, n]) => [withItems(rows), n]);
              await env.oracle(`count({ where: { id: In(${JSON.stringify(ids)}) }, relations: { items: true } })`, (ds) => repo(ds).count({ where: { id: In(ids) }, relations: { items: true } }), (n) => n);
            }),
            { numRuns: Math.ceil(numRuns / 2) },
          );
          await env.oracle(
            'find({ relations: { items: true }, order: { amount: "DESC", id: "ASC" }, skip: 20, take: 20 })',
            (ds) => repo(ds).find({ relations: { items: true }, order: { amount: 'DESC', id: 'ASC' }, skip: 20, take: 20 }),
            withItems,
          );
        });

        it('raw ORDER BY … LIMIT in its forms, and ORDER BY a column that is not selected', async () => {
          await fc.assert(
            fc.asyncProperty(nonEmptyIdsArb, fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 30 }), async (ids, skip, take) => {
              const list = ids.map(literal).join(', ');
              const base = `SELECT id, amount FROM ${t.table} WHERE id IN (${list}) ORDER BY amount DESC, id ASC`;
              for (const [sql, params] of [
                [`${base} LIMIT ${take}`, []],
                [`${base} LIMIT ${take} OFFSET ${skip}`, []],
                [`${base} LIMIT ${skip}, ${take}`, []],
                [`${base} LIMIT ? OFFSET ?`, [take, skip]],
                [`SELECT amount FROM ${t.table} WHERE id IN (${list}) ORDER BY id DESC LIMIT ${take} OFFSET ${skip}`, []],
              ] as [string, unknown[]][]) {
                await env.oracle(`query(${sql}, ${JSON.stringify(params)})`, (ds) => ds.query(sql, params), (rows: unknown[]) => inOrder(rows), pruned(ids));
              }
              await env.oracle(
                `qb.select(['o.id']).whereInIds(${JSON.stringify(ids)}).orderBy('o.amount', 'ASC').addOrderBy('o.id', 'DESC').offset(${skip}).limit(${take}).getRawMany()`,
                (ds) => repo(ds).createQueryBuilder('o').select('o.id', 'id').whereInIds(ids).orderBy('o.amount', 'ASC').addOrderBy('o.id', 'DESC').offset(skip).limit(take).getRawMany(),
                inOrder,
                pruned(ids),
              );
            }),
            { numRuns: Math.ceil(numRuns / 2) },
          );
        });

        it('raw ORDER BY a select-list alias (`o.id AS oid … ORDER BY oid`)', async () => {
          await fc.assert(
            fc.asyncProperty(nonEmptyIdsArb, fc.integer({ min: 1, max: 30 }), async (ids, take) => {
              const sql = `SELECT o.id AS oid, o.amount FROM ${t.table} o WHERE o.id IN (${ids.map(literal).join(', ')}) ORDER BY oid DESC LIMIT ${take}`;
              await env.oracle(`query(${sql})`, (ds) => ds.query(sql), (rows: unknown[]) => inOrder(rows), pruned(ids));
            }),
            { numRuns: Math.ceil(numRuns / 2), examples: [[trap, 1]] },
          );
        });

        it('find with select + order + skip/take (TypeORM then orders by the select aliases)', async () => {
          await fc.assert(
            fc.asyncProperty(idsArb, orderArb, skipArb, takeArb, async (ids, order, skip, take) => {
              // select the id and every ORDER BY column; TypeORM writes ORDER BY `Order_id` instead of `Order`.`id`
              const select = Object.fromEntries(['id', ...Object.keys(order)].map((c) => [c, true]));
              const text = `find({ where: { id: In(${JSON.stringify(ids)}) }, select: ${JSON.stringify(select)}, order: ${JSON.stringify(order)}, skip: ${skip}, take: ${take} })`;
              await env.oracle(text, (ds) => repo(ds).find({ where: { id: In(ids) }, select, order, skip, take }), inOrder, pruned(ids));
            }),
            { numRuns, examples: [[trap, { id: 'DESC' }, undefined, undefined], [trap, { id: 'ASC' }, undefined, 1]] },
          );
        });
      });
    }
  });
}
