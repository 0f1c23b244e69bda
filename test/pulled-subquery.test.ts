import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryFailedError, type DataSource } from 'typeorm';
import { UnsupportedShardingError } from '../packages/typeorm-sharding/src/index.js';
import { Buyer, ENTITIES, Order, OrderItem, Region } from './support/entities.js';
import { Account, Payment, SUBQUERY_ENTITIES } from './support/subquery-entities.js';
import { openFixture, type Backend, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';
import { BUYERS, ITEMS, ORDERS, REGIONS } from './support/subquery-rows.js';

// Uncorrelated `x IN (SELECT …)` / `x = (SELECT …)` over sharded tables (Vitess's pulled-out
// subquery): the subquery runs first across the shards, its values take its place in the
// statement, which then runs (pruned by them when they are shard keys). Every answer must be
// the plain DataSource's: rows and their JS types, errors, affected counts.

const backends: Backend[] = (await mariadbAvailable()) ? ['sqlite', 'mariadb'] : ['sqlite'];


/** Beyond 2^53: neighbours a JS number cannot tell apart. */
const BIG = ['9007199254740993', '9007199254740994', '9007199254740995', '9223372036854775807'];
const PAYMENTS = Array.from({ length: 24 }, (_, k) => ({
  id: String(k + 1),
  accountId: k % 6,
  ref: BIG[k % BIG.length]!,
  // Decimals that differ only in the tenth fraction digit (a double cannot tell them apart).
  amount: `12345678901234567.${String(1234567890 + (k % 3)).padStart(10, '0')}`,
  rate: [0.1, 0.30000000000000004, 1 / 3, 2.5][k % 4]!,
  paidAt: new Date(Date.UTC(2024, 1, 1 + (k % 5), 10, 0, 0, [0, 123, 999][k % 3]!)),
  method: k % 5 === 0 ? null : ['card', 'cash', 'wire'][k % 3]!,
}));
const ACCOUNTS = Array.from({ length: 8 }, (_, i) => ({
  id: i,
  ref: i < 4 ? BIG[i]! : '9007199254740992',
  amount: `12345678901234567.${String(1234567890 + (i % 4)).padStart(10, '0')}`,
  rate: [0.1, 0.3, 1 / 3, 2.5][i % 4]!,
  paidAt: new Date(Date.UTC(2024, 1, 1 + (i % 5), 10, 0, 0, [0, 123, 999, 500][i % 4]!)),
  method: i % 3 === 0 ? null : ['card', 'cash', 'cheque'][i % 3]!,
}));

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, error };
  }
}

describe.each(backends)('pulled-out subqueries equal one database (%s)', (backend) => {
  let fx: Fixture;
  const sqlite = backend === 'sqlite';

  beforeAll(async () => {
    fx = await openFixture(backend, [...ENTITIES, ...SUBQUERY_ENTITIES], 4, { maxInValuesPerQuery: 4, maxSubqueryValues: 30 });
    for (const ds of [fx.plain, fx.sharded]) {
      await ds.getRepository(Order).insert(ORDERS);
      await ds.getRepository(OrderItem).insert(ITEMS);
      await ds.getRepository(Buyer).insert(BUYERS);
      await ds.getRepository(Region).insert(REGIONS);
      await ds.getRepository(Payment).insert(PAYMENTS);
      await ds.getRepository(Account).insert(ACCOUNTS);
    }
  });
  afterAll(async () => fx?.close());

  /** Runs the statement on both sources; the sharded answer must be the plain one (values, JS types, order). */
  async function same(sql: string, parameters: unknown[] = []): Promise<unknown> {
    const q = (text: string) => (sqlite ? text.replace(/`/g, '"') : text);
    const expected = await fx.plain.query(q(sql), parameters);
    fx.physical.length = 0;
    const got = await fx.sharded.query(q(sql), parameters);
    expect(got, sql).toEqual(expected);

    return got;
  }

  describe('IN / NOT IN', () => {
    it('a sharded statement by shard keys from a subquery: pruned to the shards of the values, each shard only its own', async () => {
      const rows = (await same('SELECT id, amount FROM orders WHERE id IN (SELECT orderId FROM order_items WHERE sku = ?) ORDER BY id', ['s1'])) as { id: unknown }[];
      expect(rows.length).toBeGreaterThan(4);
      const outer = fx.physical.filter((e) => e.sql.startsWith('SELECT id, amount'));
      const ids = rows.map((r) => String(r.id));
      const shards = new Set(ids.map((id) => fx.sharded.shardOf(Order, id)));
      expect(new Set(outer.map((e) => e.shard))).toEqual(shards);
      // Each statement carries only values of its own shard (at most maxInValuesPerQuery = 4 of them), and every value goes somewhere.
      const sent = outer.flatMap((e) => {
        const list = /IN \(([^)]*)\)/.exec(e.sql)![1]!.split(',').map((v) => v.trim());
        expect(list.length).toBeLessThanOrEqual(4);
        for (const v of list) expect(fx.sharded.shardOf(Order, v)).toBe(e.shard);
        return list;
      });
      expect(sent.sort()).toEqual([...ids].sort());
    });

    it('NOT IN, and duplicates in the subquery\'s values', async () => {
      await same('SELECT id FROM orders WHERE id NOT IN (SELECT orderId FROM order_items) ORDER BY id');
      await same('SELECT id FROM orders WHERE buyerId IN (SELECT buyerId FROM orders WHERE amount > ?) AND amount < ? ORDER BY id', [20, 10]);
    });

    it('NULL among the values: x NOT IN (…, NULL) is never true, x IN (…, NULL) is NULL when not found', async () => {
      const none = await same('SELECT id FROM orders WHERE note NOT IN (SELECT note FROM orders WHERE buyerId = ?) ORDER BY id', [2]);
      expect(none).toEqual([]);
      await same('SELECT id, (note IN (SELECT note FROM orders WHERE buyerId = ?)) AS hit FROM orders ORDER BY id', [2]);
    });

    it('an empty result: x IN it is false and x NOT IN it true, also for a NULL x', async () => {
      expect(await same('SELECT id FROM orders WHERE note IN (SELECT sku FROM order_items WHERE sku = ?) ORDER BY id', ['none'])).toEqual([]);
      const all = (await same('SELECT id, note FROM orders WHERE note NOT IN (SELECT sku FROM order_items WHERE sku = ?) ORDER BY id', ['none'])) as unknown[];
      expect(all).toHaveLength(40);
      await same('SELECT id, (note NOT IN (SELECT sku FROM order_items WHERE sku = ?)) AS t, (note IN (SELECT sku FROM order_items WHERE sku = ?)) AS f FROM orders ORDER BY id', ['none', 'none']);
    });

    it('the subquery\'s ORDER BY … LIMIT is global (the subquery is merged as its own statement)', async () => {
      const sql = 'SELECT id, amount FROM orders WHERE id IN (SELECT id FROM orders ORDER BY amount DESC, id LIMIT 5) ORDER BY id';
      if (sqlite) await same(sql);
      else {
        // MariaDB refuses LIMIT inside IN; its answer is that of the derived-table form it accepts.
        await expect(fx.plain.query(sql)).rejects.toThrow(/LIMIT & IN/);
        const expected = await fx.plain.query('SELECT id, amount FROM orders WHERE id IN (SELECT id FROM (SELECT id FROM orders ORDER BY amount DESC, id LIMIT 5) t) ORDER BY id');
        expect(await fx.sharded.query(sql)).toEqual(expected);
      }
    });

    it('parameters before, inside and after, in two subqueries', async () => {
      await same(
        'SELECT id FROM orders WHERE buyerId <> ? AND id IN (SELECT orderId FROM order_items WHERE sku IN (?, ?)) AND amount >= ? AND amount < (SELECT MAX(amount) FROM orders WHERE buyerId = ?) ORDER BY id',
        [4, 's0', 's2', 5, 3],
      );
      // String values travel as parameters, between the statement's own.
      await same('SELECT id FROM orders WHERE amount > ? AND note IN (SELECT note FROM orders WHERE buyerId = ? AND note <> ?) AND buyerId <> ? ORDER BY id', [3, 1, 'n3', 2]);
      await same('SELECT id FROM orders WHERE note = ? OR note = (SELECT MIN(note) FROM orders WHERE amount > ?) OR note = ? ORDER BY id', ['n2', 30, 'n3']);
    });

    it('nested subqueries', async () => {
      await same('SELECT id FROM orders WHERE id IN (SELECT orderId FROM order_items WHERE orderId IN (SELECT id FROM orders WHERE buyerId IN (SELECT id FROM buyers WHERE name = ?))) ORDER BY id', ['b2']);
    });

    it('unsharded and broadcast statements reading a sharded subquery; a sharded one reading an unsharded subquery', async () => {
      await same('SELECT id, name FROM buyers WHERE id IN (SELECT buyerId FROM orders WHERE amount > ?) ORDER BY id', [40]);
      await same('SELECT id, name FROM regions WHERE id NOT IN (SELECT buyerId FROM orders WHERE amount < ?) ORDER BY id', [3]);
      await same('SELECT id FROM orders WHERE buyerId IN (SELECT id FROM buyers WHERE name IN (?, ?)) ORDER BY id', ['b1', 'b3']);
    });

    it('in HAVING, evaluated after the merge of groups spread over shards', async () => {
      await same('SELECT buyerId, COUNT(*) AS n FROM orders GROUP BY buyerId HAVING COUNT(*) >= (SELECT COUNT(*) FROM order_items WHERE sku = ?) - 3 ORDER BY buyerId', ['s1']);
      // The merge cannot evaluate an IN list in HAVING yet (with or without a subquery): refused, not answered per shard.
      await expect(fx.sharded.query('SELECT buyerId, COUNT(*) AS n FROM orders GROUP BY buyerId HAVING buyerId IN (SELECT buyerId FROM orders WHERE amount > ?)', [44])).rejects.toThrow(/HAVING holds IN/);
    });

    it('a QueryBuilder subquery', async () => {
      const find = (ds: DataSource) => {
        const qb = ds.getRepository(Order).createQueryBuilder('o');
        const sub = qb.subQuery().select('i.orderId').from(OrderItem, 'i').where('i.sku = :sku').getQuery();
        return qb.where(`o.id IN ${sub}`).setParameter('sku', 's2').orderBy('o.id').getMany();
      };
      expect(await find(fx.sharded)).toEqual(await find(fx.plain));
    });
  });

  describe('TypeORM shapes around a subquery', () => {
    const withSubquery = (ds: DataSource) => {
      const qb = ds.getRepository(Order).createQueryBuilder('o');
      const sub = qb.subQuery().select('i.orderId').from(OrderItem, 'i').where('i.sku IN (:...skus)').getQuery();
      return qb.where(`o.id IN ${sub}`).setParameter('skus', ['s0', 's2']);
    };

    it('getManyAndCount, relations with skip/take (the page of ids is a derived table holding the subquery), getRawMany with a scalar subquery', async () => {
      const page = (ds: DataSource) => withSubquery(ds).leftJoinAndSelect('o.items', 'it').orderBy('o.amount', 'DESC').addOrderBy('o.id', 'ASC').addOrderBy('it.id', 'ASC').skip(2).take(5).getManyAndCount();
      const [orders, count] = await page(fx.plain);
      expect(orders).toHaveLength(5);
      expect(await page(fx.sharded)).toEqual([orders, count]);
      const raw = (ds: DataSource) =>
        withSubquery(ds)
          .select('o.id', 'id')
          .addSelect((q) => q.subQuery().select('MAX(x.amount)').from(Order, 'x').where('x.buyerId = :b', { b: 2 }), 'top')
          .orderBy('o.id')
          .getRawMany();
      expect(await raw(fx.sharded)).toEqual(await raw(fx.plain));
    });

    // TypeORM's SQLite driver has no stream().
    it.runIf(backend === 'mariadb')('stream()', async () => {
      const rows = async (ds: DataSource) => {
        const out: unknown[] = [];
        for await (const row of await withSubquery(ds).select('o.id', 'id').orderBy('o.id').stream()) out.push(row);
        return out;
      };
      const expected = await rows(fx.plain);
      expect(expected.length).toBeGreaterThan(0);
      expect(await rows(fx.sharded)).toEqual(expected);
    });
  });

  describe('scalar subqueries', () => {
    it('one row: compared, and as select values of every type keeping the driver\'s JS types', async () => {
      await same('SELECT id FROM orders WHERE amount = (SELECT MAX(amount) FROM orders) ORDER BY id');
      await same(
        'SELECT (SELECT COUNT(*) FROM orders) AS n, (SELECT MAX(amount) FROM orders) AS mx, (SELECT SUM(amount) FROM orders) AS s, ' +
          '(SELECT AVG(amount) FROM orders) AS av, (SELECT MIN(note) FROM orders) AS nt, (SELECT MAX(createdAt) FROM orders) AS ca, id FROM regions ORDER BY id',
      );
      await same('SELECT (SELECT MAX(ref) FROM sq_payments) AS r, (SELECT MIN(amount) FROM sq_payments) AS a, (SELECT MAX(rate) FROM sq_payments) AS d, (SELECT MAX(paidAt) FROM sq_payments) AS p FROM regions WHERE id = 1');
      await same('SELECT id, amount - (SELECT MIN(amount) FROM orders WHERE amount > ?) AS d FROM orders WHERE id < ? ORDER BY id', [0, 6]);
    });

    it('no row: NULL', async () => {
      expect(await same('SELECT id FROM orders WHERE amount = (SELECT MAX(amount) FROM orders WHERE id < 0)')).toEqual([]);
      await same('SELECT (SELECT amount FROM orders WHERE id = -1) AS m, id FROM regions ORDER BY id');
    });

    it('two rows: MySQL\'s own error; SQLite\'s first row under ORDER BY, refused without it', async () => {
      if (!sqlite) {
        const sql = 'SELECT id FROM orders WHERE amount = (SELECT amount FROM orders WHERE buyerId = 1)';
        const plain = await outcome(() => fx.plain.query(sql));
        const sharded = await outcome(() => fx.sharded.query(sql));
        expect(plain.ok || sharded.ok).toBe(false);
        const code = (o: Outcome) => (!o.ok && o.error instanceof QueryFailedError ? (o.error.driverError as { code?: string }).code : o);
        expect(code(sharded)).toBe('ER_SUBQUERY_NO_1_ROW');
        expect(code(sharded)).toBe(code(plain));
        return;
      }
      await same('SELECT id FROM orders WHERE amount = (SELECT amount FROM orders WHERE buyerId = 1 ORDER BY amount DESC, id) ORDER BY id');
      await same('SELECT id FROM orders WHERE buyerId = (SELECT buyerId FROM orders WHERE buyerId = 1) ORDER BY id');
      await expect(fx.sharded.query('SELECT id FROM orders WHERE amount = (SELECT amount FROM orders WHERE buyerId = 1)')).rejects.toThrow(/ORDER BY … LIMIT 1/);
    });
  });

  describe('values keep their types', () => {
    it('BIGINT beyond 2^53, DECIMAL to the tenth digit, DOUBLE, DATETIME(3), text with NULLs', async () => {
      await same('SELECT id, ref FROM sq_accounts WHERE ref IN (SELECT ref FROM sq_payments WHERE accountId < ?) ORDER BY id', [3]);
      await same('SELECT id FROM sq_accounts WHERE amount IN (SELECT amount FROM sq_payments) ORDER BY id');
      await same('SELECT id FROM sq_accounts WHERE amount NOT IN (SELECT amount FROM sq_payments WHERE id > ?) ORDER BY id', [20]);
      await same('SELECT id FROM sq_accounts WHERE rate IN (SELECT rate FROM sq_payments) ORDER BY id');
      await same('SELECT id FROM sq_accounts WHERE paidAt IN (SELECT paidAt FROM sq_payments) ORDER BY id');
      await same('SELECT id FROM sq_accounts WHERE method IN (SELECT method FROM sq_payments) ORDER BY id');
      await same('SELECT id FROM sq_accounts WHERE method NOT IN (SELECT method FROM sq_payments WHERE method IS NOT NULL) ORDER BY id');
      await same('SELECT id FROM sq_accounts WHERE ref = (SELECT MAX(ref) FROM sq_payments WHERE ref < ?) ORDER BY id', ['9007199254740995']);
      await same('SELECT id FROM sq_accounts WHERE paidAt > (SELECT MIN(paidAt) FROM sq_payments) ORDER BY id');
    });

    it('numbers compared with a parameter: a number is fine, a string is refused on MySQL (compared as doubles with a literal)', async () => {
      await same('SELECT id FROM orders WHERE (SELECT COUNT(*) FROM order_items) > ? ORDER BY id LIMIT 3', [5]);
      if (sqlite) await same('SELECT id FROM orders WHERE (SELECT COUNT(*) FROM order_items) > ? ORDER BY id LIMIT 3', ['5']);
      else await expect(fx.sharded.query('SELECT id FROM orders WHERE (SELECT COUNT(*) FROM order_items) > ? ORDER BY id LIMIT 3', ['5'])).rejects.toThrow(/a string.*Pass a number/);
    });

    it('a string column against numbers: refused with the fix', async () => {
      await expect(fx.sharded.query(sqlite ? 'SELECT id FROM sq_accounts WHERE method IN (SELECT accountId FROM sq_payments)' : 'SELECT id FROM sq_accounts WHERE method IN (SELECT accountId FROM sq_payments)')).rejects.toThrow(
        sqlite ? /type affinity.*CAST one side/ : /compares numbers with a string.*CAST one side/,
      );
    });
  });

  describe('writes', () => {
    it('UPDATE and DELETE by keys from a subquery, INSERT … VALUES with a subquery: same rows, same affected counts', async () => {
      const steps: [string, (ds: DataSource) => Promise<unknown>][] = [
        ['update', (ds) => ds.createQueryBuilder().update(Order).set({ note: 'touched' }).where('id IN (SELECT orderId FROM order_items WHERE sku = :sku)', { sku: 's0' }).execute().then((r) => r.affected)],
        ['update set', (ds) => ds.createQueryBuilder().update(Order).set({ amount: () => '(SELECT MAX(buyerId) FROM orders)' }).where('id = :id', { id: '3' }).execute().then((r) => r.affected)],
        ['delete', (ds) => ds.createQueryBuilder().delete().from(OrderItem).where('orderId IN (SELECT id FROM orders WHERE amount > :a)', { a: 45 }).execute().then((r) => r.affected)],
        ['delete unsharded', (ds) => ds.createQueryBuilder().delete().from(Buyer).where('id NOT IN (SELECT buyerId FROM orders WHERE amount > :a)', { a: 48 }).execute().then((r) => r.affected)],
        ['insert', (ds) => ds.query(sqlite ? 'INSERT INTO "buyers" ("id", "name") VALUES ((SELECT MAX(amount) FROM orders) + 100, ?)' : 'INSERT INTO `buyers` (`id`, `name`) VALUES ((SELECT MAX(amount) FROM orders) + 100, ?)', ['max'])],
        ['insert into a sharded table, the key from a subquery', (ds) => ds.query(sqlite ? 'INSERT INTO "order_items" ("id", "orderId", "sku") VALUES (?, (SELECT MAX(id) FROM orders), ?)' : 'INSERT INTO `order_items` (`id`, `orderId`, `sku`) VALUES (?, (SELECT MAX(id) FROM orders), ?)', ['5000', 'new'])],
      ];
      for (const [name, step] of steps) {
        const plain = await step(fx.plain);
        const sharded = await step(fx.sharded);
        if (!name.startsWith('insert')) expect(sharded, name).toBe(plain);
      }
      await same('SELECT id, note, amount FROM orders ORDER BY id');
      await same('SELECT id, orderId, sku FROM order_items ORDER BY id');
      await same('SELECT id, name FROM buyers ORDER BY id');
      expect(fx.sharded.shardOf(OrderItem, '40')).toBeDefined();
    });
  });

  describe('transactions', () => {
    it('the subquery runs on the transaction\'s connections: it sees the transaction\'s own writes', async () => {
      const run = async (ds: DataSource) => {
        let seen: unknown;
        await ds
          .transaction(async (em) => {
            await em.getRepository(OrderItem).insert({ id: '7777', orderId: '38', sku: 'tx' });
            seen = await em.query(sqlite ? 'SELECT id, amount FROM orders WHERE id IN (SELECT orderId FROM order_items WHERE sku = ?) ORDER BY id' : 'SELECT id, amount FROM orders WHERE id IN (SELECT orderId FROM order_items WHERE sku = ?) ORDER BY id', ['tx']);
            throw new Error('roll back');
          })
          .catch((e: Error) => expect(e.message).toBe('roll back'));
        return seen;
      };
      const plain = await run(fx.plain);
      expect(plain).toHaveLength(1);
      expect(await run(fx.sharded)).toEqual(plain);
      await same('SELECT id FROM order_items WHERE sku = ?', ['tx']);
    });
  });

  describe('uncorrelated EXISTS runs first', () => {
    it('EXISTS / NOT EXISTS over a sharded table: answered for the whole statement, not per shard', async () => {
      // s1 items live on a few shards only: per shard, EXISTS would count only those shards' orders.
      for (const sku of ['s1', 'none']) {
        await same('SELECT COUNT(*) AS c FROM orders WHERE EXISTS (SELECT 1 FROM order_items WHERE sku = ? AND orderId = 7)', [sku]);
        await same('SELECT id FROM orders WHERE NOT EXISTS (SELECT * FROM order_items WHERE sku = ? AND orderId = 7) ORDER BY id', [sku]);
        await same('SELECT id, EXISTS (SELECT 1 FROM order_items WHERE sku = ? AND orderId = 7) AS e FROM orders WHERE id IN (1, 2, 3) ORDER BY id', [sku]);
      }
    });

    it('an unaliased EXISTS item is refused (its column is named after the text)', async () => {
      await expect(fx.sharded.query('SELECT id, EXISTS (SELECT 1 FROM order_items) FROM orders')).rejects.toThrow(/alias with AS/);
    });
  });

  describe('refused with the fix', () => {
    it('a correlated subquery names the outer column', async () => {
      await expect(fx.sharded.query('SELECT o.id FROM orders o WHERE o.amount IN (SELECT i.orderId FROM order_items i WHERE i.orderId = o.id)')).rejects.toThrow(UnsupportedShardingError);
      await expect(fx.sharded.query('SELECT o.id FROM orders o WHERE o.amount IN (SELECT i.orderId FROM order_items i WHERE i.orderId = o.id)')).rejects.toThrow(/correlated: it refers to "o\.id"/);
    });

    it('a select item without alias, two columns, more values than maxSubqueryValues', async () => {
      await expect(fx.sharded.query('SELECT (SELECT COUNT(*) FROM orders) FROM regions')).rejects.toThrow(/alias with AS/);
      await expect(fx.sharded.query('SELECT id FROM orders WHERE (id, buyerId) IN (SELECT id, buyerId FROM orders)')).rejects.toThrow(/exactly one/);
      await expect(fx.sharded.query('SELECT id FROM orders WHERE id IN (SELECT id FROM orders)')).rejects.toThrow(/more than sharding\.maxSubqueryValues \(30\)/);
    });
  });

  it('explain() lists the subquery first and says the statement waits for its values', async () => {
    const explained = fx.sharded.explain(sqlite ? 'SELECT id FROM orders WHERE id IN (SELECT orderId FROM order_items WHERE sku = ?)' : 'SELECT id FROM orders WHERE id IN (SELECT orderId FROM order_items WHERE sku = ?)', ['s1']);
    // On MySQL the subquery's statements to the shards of one server are one UNION ALL.
    if (sqlite) expect(explained[0]!.sql).toBe('SELECT orderId FROM order_items WHERE sku = ?');
    else expect(explained[0]!.sql).toMatch(/^\(SELECT orderId FROM `[^`]+`\.order_items WHERE sku = \?\) UNION ALL /);
    expect(explained.at(-1)!.note).toMatch(/runs after its subqueries/);
  });
});
