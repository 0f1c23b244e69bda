import 'reflect-metadata';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, expect } from 'vitest';
import type { DataSource, EntityTarget, FindOptionsOrder, ObjectLiteral } from 'typeorm';
import type { PhysicalQueryEvent } from '../../packages/typeorm-sharding/src/index.js';
import { ENTITIES, Order, OrderItem } from './entities.js';
import { CodedOrder, WideOrder } from './oracle-entities.js';
import { openFixture, type Backend, type Fixture } from './backends.js';
import { describeEvents, distinct, expectBroadcast, expectPruned, prng } from './oracle.js';

// The differential oracle of the read path (DESIGN.md §4): the same rows are loaded into
// sharded data sources and into one plain TypeORM DataSource; the same find / QueryBuilder /
// raw query must return the same answer from both. Five sharded sources are compared with
// the plain one: pruning with one statement per shard, pruning with IN lists cut into
// batches of 3, pruning off (the whole list to every shard), and a table-per-shard layout
// (every table of the oracle laid out as 2–4 tables per shard database) with coalescing on
// and off.

/** One table under test: its rows and the id pools the queries draw from. */
export interface TableSpec {
  readonly label: string;
  readonly entity: EntityTarget<ObjectLiteral>;
  readonly table: string;
  /** Integer key: raw literals are unquoted, and safe ids may be spelled as JS numbers. */
  readonly integer: boolean;
  readonly rows: ObjectLiteral[];
  readonly existing: string[];
  readonly missing: string[];
  /** ORDER BY choices beyond the common ones (columns only this table has); all end on the unique id. */
  readonly extraOrders: FindOptionsOrder<ObjectLiteral>[];
  /** Rows of `order_items` (the binding table of `orders`), for the relation queries. */
  readonly items?: ObjectLiteral[];
}

// --- generated data -------------------------------------------------------------------------

function randomBigInt(rand: () => number, min: bigint, max: bigint): bigint {
  const span = max - min + 1n;
  let r = 0n;
  for (let i = 0; i < 4; i++) r = (r << 32n) | BigInt(Math.floor(rand() * 2 ** 32));
  return min + (r % span);
}

/** Ids drawn from several ranges, split into rows that exist and ids that do not. */
function integerIds(rand: () => number, ranges: [bigint, bigint, number][], pinnedExisting: string[], pinnedMissing: string[]): { existing: string[]; missing: string[] } {
  const existing = new Set<string>(pinnedExisting);
  const missing = new Set<string>(pinnedMissing);
  for (const [min, max, n] of ranges) {
    for (let i = 0; i < n; i++) {
      const id = randomBigInt(rand, min, max).toString();
      if (existing.has(id) || missing.has(id)) continue;
      (rand() < 0.75 ? existing : missing).add(id);
    }
  }
  return { existing: [...existing], missing: [...missing] };
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const SAFE_RANGES: [bigint, bigint, number][] = [
  [1n, 3000n, 700],
  [1_000_000n, 1_000_000_000_000n, 300],
  [1_000_000_000_000_000n, MAX_SAFE, 300],
  [-1_000_000n, -1n, 150],
];

/** Rows of one table: few distinct amounts and buyers, so ORDER BY meets many ties. */
function rowsOf(ids: readonly string[], rand: () => number, withOrderColumns: boolean, tiedAmount: ReadonlySet<string>): ObjectLiteral[] {
  return ids.map((id, i) => {
    const row: ObjectLiteral = { id, buyerId: Math.floor(rand() * 16), amount: tiedAmount.has(id) ? 7 : Math.floor(rand() * 31) };
    if (withOrderColumns) {
      row.note = i % 5 === 0 ? null : `n${i % 7}`;
      row.createdAt = new Date(Date.UTC(2024, 0, 1) + (i % 500) * 60_000);
    }
    return row;
  });
}

function orderTable(backend: Backend): TableSpec {
  const rand = prng(backend === 'sqlite' ? 11 : 12);
  // SQLite hands BIGINT back as a JS number: only ids up to 2^53 − 1 can exist there.
  const beyondSafe = ['9007199254740992', '9007199254740993', '9007199254740994', '9223372036854775807', '-9223372036854775808', '-9007199254740993'];
  const pinnedExisting = ['0', '1', '2', '4', '5', '9', '-1', '9007199254740991', '9007199254740990', '-9007199254740991', ...(backend === 'mariadb' ? beyondSafe : [])];
  const pinnedMissing = ['3', '18446744073709551000', '18446744073709551615', ...(backend === 'sqlite' ? beyondSafe : [])];
  const ranges: [bigint, bigint, number][] = backend === 'mariadb'
    ? [...SAFE_RANGES, [MAX_SAFE + 1n, 9223372036854775807n, 200], [-9223372036854775808n, -MAX_SAFE - 1n, 50]]
    : SAFE_RANGES;
  const { existing, missing } = integerIds(rand, ranges, pinnedExisting, pinnedMissing);
  const tied = new Set(['9007199254740990', '9007199254740991', '9007199254740992', '9007199254740993', '9007199254740994', '9223372036854775807', '0', '1', '-1']);
  const rows = rowsOf(existing, rand, true, tied);
  // Every order but one in four has 1 to 3 items; item ids are unique and below 2^53.
  const items = existing.flatMap((orderId, i) =>
    Array.from({ length: i % 4 === 0 ? 0 : 1 + (i % 3) }, (_, j) => ({ id: String(1_000_000 + i * 4 + j), orderId, sku: `sku-${(i * 7 + j) % 13}` })),
  );
  return {
    label: 'orders (bigint key)',
    entity: Order,
    table: 'orders',
    integer: true,
    rows,
    existing,
    missing,
    extraOrders: [{ note: 'ASC', id: 'DESC' }, { createdAt: 'DESC', id: 'ASC' }, { note: 'DESC', amount: 'ASC', id: 'ASC' }],
    items,
  };
}

function wideTable(): TableSpec {
  const rand = prng(13);
  const pinnedExisting = ['0', '1', '18446744073709551615', '18446744073709551614', '18446744073709551000', '9223372036854775808', '9223372036854775807', '9007199254740993', '9007199254740992'];
  const pinnedMissing = ['18446744073709551001', '9223372036854775809', '9007199254740994', '2'];
  const { existing, missing } = integerIds(rand, [[0n, 5000n, 300], [0n, 18446744073709551615n, 700]], pinnedExisting, pinnedMissing);
  return { label: 'wide_orders (unsigned bigint key up to 2^64-1)', entity: WideOrder, table: 'wide_orders', integer: true, rows: rowsOf(existing, rand, false, new Set(pinnedExisting)), existing, missing, extraOrders: [] };
}

function codedTable(backend: Backend): TableSpec {
  const rand = prng(backend === 'sqlite' ? 14 : 15);
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_';
  const folded = new Set<string>(); // MariaDB's default collation ignores case: keep ids distinct when folded
  const existing: string[] = [];
  const missing: string[] = [];
  const add = (id: string, exists: boolean) => {
    if (folded.has(id.toLowerCase())) return;
    folded.add(id.toLowerCase());
    (exists ? existing : missing).push(id);
  };
  for (const id of ['5', '05', '10', 'a', 'b', 'Zed', 'ab-c', '0']) add(id, true);
  for (const id of ['6', '005', 'zz', 'nope']) add(id, false);
  for (let i = 0; i < 1200; i++) {
    const length = 1 + Math.floor(rand() * 14);
    let id = '';
    for (let j = 0; j < length; j++) id += alphabet[Math.floor(rand() * alphabet.length)];
    add(id, rand() < 0.75);
  }
  return { label: 'coded_orders (varchar key)', entity: CodedOrder, table: 'coded_orders', integer: false, rows: rowsOf(existing, rand, false, new Set()), existing, missing, extraOrders: [{ id: 'ASC' }] };
}

export function tablesFor(backend: Backend): TableSpec[] {
  return backend === 'sqlite' ? [orderTable(backend), codedTable(backend)] : [orderTable(backend), wideTable(), codedTable(backend)];
}

// --- the sources compared ---------------------------------------------------------------------

export interface ShardedSource {
  readonly name: string;
  readonly fx: Fixture;
  /** IN values per statement: Infinity-like for `main`, 3 for `tiny`; undefined when pruning is off. */
  readonly max: number | undefined;
  /** Its tables have table-per-shard layouts (`sharding.tables`): statements are routed to a shard's table. */
  readonly layout?: boolean;
}

/** The layouts of the layout sources: binding tables share one. */
export function oracleLayouts(backend: Backend): Record<string, number> {
  return backend === 'sqlite' ? { orders: 3, order_items: 3, coded_orders: 2 } : { orders: 3, order_items: 3, coded_orders: 2, wide_orders: 4 };
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

async function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error);
}

export type Check = (source: ShardedSource, events: readonly PhysicalQueryEvent[], label: string) => void;


/** Everything a test of one backend needs: the sources, the oracle, per-table helpers. */
export interface OracleEnv {
  readonly backend: Backend;
  readonly tables: readonly TableSpec[];
  readonly sources: readonly ShardedSource[];
  readonly plain: DataSource;
  /**
   * Runs `call` on the plain source and on every sharded one and compares the answers after
   * `norm`; `check` then looks at the physical statements of each sharded run. When the plain
   * source throws, every sharded one must throw too.
   */
  /**
   * Runs `call` on the plain source and on every sharded one: each must answer what the plain
   * one answers (after `norm`), or fail as it fails. `refusal` accepts a sharded source's
   * refusal instead (a typed refusal that depends on where the statement is routed).
   */
  oracle<T>(label: string, call: (ds: DataSource) => Promise<T>, norm: (value: T) => unknown, check?: Check, refusal?: (error: unknown) => boolean): Promise<void>;
}

/**
 * Registers beforeAll/afterAll hooks (call it inside a describe) that open the three sharded
 * sources and the plain one on `backend` and load every table of `tablesFor(backend)`.
 */
export function useOracleEnv(backend: Backend): OracleEnv {
  const tables = tablesFor(backend);
  const entities = backend === 'sqlite' ? [...ENTITIES, CodedOrder] : [...ENTITIES, CodedOrder, WideOrder];
  const sources: ShardedSource[] = [];
  let plain: DataSource | undefined;

  beforeAll(async () => {
    const main = await openFixture(backend, entities, 4, { maxInValuesPerQuery: 1_000_000 });
    sources.push({ name: 'main (pruning, one round trip per server)', fx: main, max: 1_000_000 });
    // MySQL: statements to the shards of one server are one UNION ALL by default; this one sends a statement per shard.
    sources.push({ name: 'tiny (pruning, maxInValuesPerQuery 3, one statement per shard)', fx: await openFixture(backend, entities, 4, { maxInValuesPerQuery: 3, coalesce: false }), max: 3 });
    sources.push({ name: 'noPrune (pruning: false)', fx: await openFixture(backend, entities, 4, { pruning: false }), max: undefined });
    const layouts = oracleLayouts(backend);
    sources.push({ name: 'layout (2–4 tables per shard, one round trip per server)', fx: await openFixture(backend, entities, 3, { maxInValuesPerQuery: 1_000_000, tables: layouts }), max: 1_000_000, layout: true });
    sources.push({ name: 'layout, maxInValuesPerQuery 3, one statement per table', fx: await openFixture(backend, entities, 3, { maxInValuesPerQuery: 3, coalesce: false, tables: layouts }), max: 3, layout: true });
    plain = main.plain;
    for (const t of tables) {
      const targets: DataSource[] = [plain, ...sources.map((s) => s.fx.sharded)];
      for (const ds of targets) {
        const repo = ds.getRepository(t.entity);
        // The first rows go through save() (a SELECT of existing ids, then INSERTs), the rest through insert() in chunks.
        await repo.save(t.rows.slice(0, 40).map((r) => repo.create(r)));
        for (let i = 40; i < t.rows.length; i += 250) await repo.insert(t.rows.slice(i, i + 250));
        for (let i = 0; i < (t.items ?? []).length; i += 250) await ds.getRepository(OrderItem).insert(t.items!.slice(i, i + 250));
      }
    }
    for (const s of sources) s.fx.physical.length = 0;
  });

  afterAll(async () => {
    for (const s of sources.splice(0)) await s.fx.close();
  });

  return {
    backend,
    tables,
    sources,
    get plain(): DataSource {
      if (!plain) throw new Error('the oracle environment is not open yet');
      return plain;
    },
    async oracle<T>(label: string, call: (ds: DataSource) => Promise<T>, norm: (value: T) => unknown, check?: Check, refusal?: (error: unknown) => boolean): Promise<void> {
      const expected = await settle(call(this.plain));
      for (const s of sources) {
        s.fx.physical.length = 0;
        const got = await settle(call(s.fx.sharded));
        const events = [...s.fx.physical];
        const where = () => `${label} [${s.name}]\nphysical:\n${describeEvents(events.slice(0, 40))}`;
        if (!expected.ok) {
          if (got.ok) expect.fail(`${where()}\nthe plain source threw ${errorText(expected.error)}; the sharded one answered ${JSON.stringify(got.value).slice(0, 300)}`);
          continue;
        }
        if (!got.ok && refusal?.(got.error)) continue;
        if (!got.ok) expect.fail(`${where()}\nthe sharded source threw ${errorText(got.error)} (the plain source answered ${JSON.stringify(norm(expected.value)).slice(0, 300)})`);
        const actual = norm(got.value);
        const wanted = norm(expected.value);
        if (!isDeepStrictEqual(actual, wanted)) expect(actual, where()).toEqual(wanted);
        check?.(s, events, label);
      }
    },
  };
}

/** Arbitraries and checks for the queries on one table. */
export function tableKit(t: TableSpec) {
  const shardOf = (s: ShardedSource) => (v: string) => s.fx.sharded.shardOf(t.entity, v);
  /** Where a value's row lives: its shard, and under a layout its table there (`s1/orders_2`). */
  const placeOfValue = (s: ShardedSource) => (v: string) => (s.layout ? `${s.fx.sharded.shardOf(t.entity, v)}/${s.fx.sharded.tableOf(t.entity, v)}` : s.fx.sharded.shardOf(t.entity, v));
  /** Where a statement ran, in the same terms. */
  const placeOfEvent = (s: ShardedSource) => (e: PhysicalQueryEvent) => (s.layout ? `${e.shard}/${physicalTableIn(e.sql, t.table)}` : e.shard);
  /** One spelling per key: integer keys by value (`'005'`, `'+5'` and `5` are one key), string keys byte for byte. */
  const canon = t.integer ? (v: string) => BigInt(v).toString() : (v: string) => v;
  /** The pruning invariants for a statement whose key IN list held `values`. */
  const pruned = (values: readonly unknown[]): Check => (s, events, label) => {
    const text = values.map(String);
    if (s.max === undefined) expectBroadcast(events, text, s.fx.sharded.shardNames, label, canon);
    else expectPruned(events, text, placeOfValue(s), s.max, label, canon, placeOfEvent(s));
  };
  /**
   * The same invariants for an aggregate without GROUP BY (count, sum): when the list is empty
   * no row can match, yet the answer is one row (COUNT 0, SUM NULL), so exactly one statement
   * runs, unchanged, on the default shard.
   */
  const prunedAggregate = (values: readonly unknown[]): Check => (s, events, label) => {
    if (values.length > 0) return pruned(values)(s, events, label);
    if (events.length !== 1 || events[0]!.shard !== s.fx.sharded.shardNames[0]) {
      expect.fail(`${label} [${s.name}]: expected one statement on the default shard\nphysical:\n${describeEvents(events)}`);
    }
  };
  /** Statements go exactly to the shards of `values`, one each (an OR of equalities is routed, not cut per shard). */
  const routedTo = (values: readonly string[]): Check => (s, events, label) => {
    const shards = s.max === undefined ? s.fx.sharded.shardNames : distinct(values.map(placeOfValue(s)));
    const reached = distinct(events.map(placeOfEvent(s))).sort();
    if (JSON.stringify(reached) !== JSON.stringify([...shards].sort()) || events.length !== shards.length) {
      expect.fail(`${label} [${s.name}]: expected one statement on each of ${JSON.stringify([...shards].sort())}\nphysical:\n${describeEvents(events)}`);
    }
  };
  const idArb = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...t.existing) }, { weight: 1, arbitrary: fc.constantFrom(...t.missing) });
  const idsArb = fc.oneof(
    { weight: 1, arbitrary: fc.constant<string[]>([]) },
    { weight: 2, arbitrary: idArb.map((id) => [id]) },
    { weight: 6, arbitrary: fc.array(idArb, { minLength: 1, maxLength: 60 }) },
    // duplicates, in their own order
    { weight: 2, arbitrary: fc.array(idArb, { minLength: 1, maxLength: 12 }).chain((a) => fc.shuffledSubarray([...a, ...a, ...a], { minLength: a.length })) },
  );
  const nonEmptyIdsArb = idsArb.filter((ids) => ids.length > 0);
  /**
   * Integer keys below 2^53 may also be spelled as JS numbers: all of them, or every other one
   * (SQLite then writes the numbers into the SQL text and keeps the strings as `?`).
   */
  const spellingArb = fc.constantFrom<'strings' | 'numbers' | 'mixed'>('strings', 'numbers', 'mixed');
  const spell = (ids: string[], how: 'strings' | 'numbers' | 'mixed'): string[] =>
    (t.integer ? ids.map((id, i) => (Number.isSafeInteger(Number(id)) && (how === 'numbers' || (how === 'mixed' && i % 2 === 0)) ? Number(id) : id)) : ids) as string[];
  const literal = (id: string) => (t.integer ? id : `'${id.replace(/'/g, "''")}'`);
  const orderArb = fc.constantFrom<FindOptionsOrder<ObjectLiteral>>(
    { amount: 'DESC', id: 'ASC' },
    { buyerId: 'ASC', amount: 'ASC', id: 'DESC' },
    { id: 'DESC' },
    ...t.extraOrders,
  );
  const skipArb = fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined });
  const takeArb = fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined });
  const repo = (ds: DataSource) => ds.getRepository(t.entity);
  return { shardOf, placeOfValue, canon, pruned, prunedAggregate, routedTo, idArb, idsArb, nonEmptyIdsArb, spellingArb, spell, literal, orderArb, skipArb, takeArb, repo };
}

/** The physical table of `table`'s layout a statement names (`orders_2`), or `?` when it names none. */
export function physicalTableIn(sql: string, table: string): string {
  const m = new RegExp(`[\\s\`".(]${table}_(\\d+)[\`"\\s.]`).exec(sql);
  return m ? `${table}_${m[1]}` : '?';
}

/**
 * fast-check runs per property: `base[backend]`, times ORACLE_RUNS_SCALE when set (e.g.
 * `ORACLE_RUNS_SCALE=10` for a long hunt; the defaults keep each file under about a minute).
 */
export function runsFor(base: Record<Backend, number>, backend: Backend): number {
  const scale = Number(process.env.ORACLE_RUNS_SCALE ?? '1');
  return Math.max(1, Math.round(base[backend] * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
}
