import { Column, Entity, PrimaryColumn, type ColumnType } from 'typeorm';
import { Broadcast, Sharded, ShardKey } from '../../../packages/typeorm-sharding/src/index.js';
import type { Backend } from '../backends.js';

// The small fixed schema the random query shapes run over (DESIGN.md §4): a sharded fact
// table with a column of nearly every type, a second sharded table co-located with it by the
// same key values (a binding join on `lines.factId = facts.id`), and a broadcast table.
// Every column names its type (vitest emits no decorator metadata); MariaDB gets the types
// SQLite does not have (ENUM, SET, BIT, YEAR, JSON, signed TIME).

/** What a column's values are, as far as comparing and ordering them is concerned. */
export type ValueType =
  | 'int'
  | 'bigint'
  | 'decimal'
  | 'double'
  | 'text'
  | 'enum'
  | 'set'
  | 'bit'
  | 'year'
  | 'date'
  | 'datetime'
  | 'time'
  | 'binary'
  | 'json';

/** One column of the shape schema, as the generator sees it. */
export interface ColumnDef {
  readonly name: string;
  readonly type: ValueType;
  readonly nullable: boolean;
  /** Unique in its table (a primary key): a tiebreaker that makes an order total. */
  readonly unique: boolean;
  /** The table's shard key. */
  readonly key: boolean;
  /** May appear inside arithmetic without overflowing (BIGINT near 2^62 may not). */
  readonly arithmetic: boolean;
  /** Literal values a predicate on this column may compare with (taken from the data). */
  readonly samples: readonly (string | number)[];
  /** Columns of a derived table: the value may differ in its last digits (see `Typed.exact`). */
  readonly inexact?: boolean;
  /** Columns of a derived table: any case variant may be shown (see `Typed.anyCase`). */
  readonly anyCase?: boolean;
}

/** One table of the shape schema. */
export interface TableDef {
  readonly name: string;
  readonly distribution: 'sharded' | 'broadcast';
  readonly columns: readonly ColumnDef[];
}

const KINDS = ['beta', 'alpha', 'gamma', 'delta'] as const; // declaration order differs from label order
const TAGS = ['x', 'y', 'z'] as const;
const TITLES = ['apple', 'Apple', 'APPLE', 'banana', 'Banana', 'cherry', '', 'b', 'B', 'zeta', 'Zeta', 'a'];
const SKUS = ['sku-1', 'SKU-1', 'sku-2', 'Sku-3', 'sku-3', 'x'];
const NAMES = ['north', 'North', 'south', null, 'east'];
const PRICES = ['0.00', '1.50', '2.25', '9.99', '10.00', '10.01', '99.90', '100.00', '123.45', '250.50', '999.99'];
const RATIOS = [0.1, 0.2, 1 / 3, 2.5, -1.75, 0.001, 1e6 / 7, 3, -0.5];
const DAYS = ['2024-01-01', '2024-01-02', '2024-02-29', '2023-12-31', '2024-10-10', '1999-05-05'];
const TIMES_SQLITE = ['00:00:00', '09:05:00', '12:00:00', '23:59:59', '08:30:15'];
const TIMES_MARIADB = [...TIMES_SQLITE, '-01:30:00', '100:00:00', '-100:00:00'];
const DOCS = ['{"a":1}', '[1,2]', '"str"', '3', '{"b":[true,null]}', '"Str"'];
const BINS = ['00', 'ff', '41', '61', '4142', '80', '', '0001'];

function col(name: string, type: ValueType, samples: readonly (string | number)[], extra: Partial<ColumnDef> = {}): ColumnDef {
  return { name, type, nullable: true, unique: false, key: false, arithmetic: true, samples, ...extra };
}

/** The tables of the shape schema on `backend` (MariaDB has more column types). */
export function shapeTables(backend: Backend): { facts: TableDef; lines: TableDef; refs: TableDef } {
  const maria = backend === 'mariadb';
  const facts: ColumnDef[] = [
    col('id', 'bigint', [1, 2, 7, 40], { nullable: false, unique: true, key: true, arithmetic: false }),
    col('grp', 'int', [0, 1, 2, 3, 5], { nullable: false }),
    col('qty', 'int', [0, 1, 3, 7, -2]),
    col('big', 'bigint', maria ? ['4611686018427387904', '-9007199254740993', 12] : [8796093022208, 12], { arithmetic: false }),
    col('price', 'decimal', ['9.99', '10.00', '100.00']),
    col('ratio', 'double', [0.1, 2.5, 3]),
    col('title', 'text', ['apple', 'B', 'zeta', '']),
    col('kind', 'enum', ['alpha', 'beta', 'gamma']),
    col('day', 'date', ['2024-01-02', '2024-02-29']),
    col('stamp', 'datetime', ['2024-01-01 10:00:00', '2024-01-02 00:00:00'], { nullable: false }),
    col('tm', 'time', ['09:05:00', '12:00:00']),
    col('bin', 'binary', []),
    col('doc', 'json', []),
    ...(maria ? [col('tags', 'set', ['x', 'x,z']), col('flags', 'bit', []), col('yr', 'year', [2000, 2024], { arithmetic: false })] : []),
  ];
  const lines: ColumnDef[] = [
    col('id', 'bigint', [1000, 1001], { nullable: false, unique: true, arithmetic: false }),
    col('factId', 'bigint', [1, 2, 7, 40], { nullable: false, key: true, arithmetic: false }),
    col('qty', 'int', [0, 1, 3]),
    col('price', 'decimal', ['1.50', '10.00']),
    col('sku', 'text', ['sku-1', 'x']),
  ];
  const refs: ColumnDef[] = [
    col('id', 'int', [0, 1, 3], { nullable: false, unique: true }),
    col('name', 'text', ['north', 'east']),
    col('weight', 'int', [1, 2]),
  ];
  return {
    facts: { name: 'shape_facts', distribution: 'sharded', columns: facts },
    lines: { name: 'shape_lines', distribution: 'sharded', columns: lines },
    refs: { name: 'shape_refs', distribution: 'broadcast', columns: refs },
  };
}

/** The entity classes of the shape schema for `backend` (column types differ per backend). */
export function shapeEntities(backend: Backend): { Fact: Function; Line: Function; Ref: Function } {
  const maria = backend === 'mariadb';
  const pickType = (mariadb: ColumnType, sqlite: ColumnType): ColumnType => (maria ? mariadb : sqlite);

  @Entity('shape_facts')
  @Sharded()
  class Fact {
    @PrimaryColumn('bigint') @ShardKey() id!: string;
    @Column('int') grp!: number;
    @Column('int', { nullable: true }) qty!: number | null;
    @Column('bigint', { nullable: true }) big!: string | null;
    @Column('decimal', { precision: 10, scale: 2, nullable: true }) price!: string | null;
    @Column({ type: pickType('double', 'real'), nullable: true }) ratio!: number | null;
    @Column('varchar', { length: 40, nullable: true }) title!: string | null;
    @Column({ type: pickType('enum', 'simple-enum'), enum: [...KINDS], nullable: true }) kind!: string | null;
    @Column('date', { nullable: true }) day!: string | null;
    @Column('datetime') stamp!: Date;
    @Column('time', { nullable: true }) tm!: string | null;
    @Column({ type: pickType('varbinary', 'blob'), length: maria ? 8 : undefined, nullable: true }) bin!: Buffer | null;
    @Column('json', { nullable: true }) doc!: unknown;
  }

  // The MariaDB-only types live on a subclass so that SQLite never sees them.
  @Entity('shape_facts')
  @Sharded()
  class MariaFact extends Fact {
    @Column('set', { enum: [...TAGS], nullable: true }) tags!: string[] | null;
    @Column({ type: 'bit', precision: 4, nullable: true }) flags!: number | null;
    @Column('year', { nullable: true }) yr!: number | null;
  }

  @Entity('shape_lines')
  @Sharded({ uniquePerShard: ['id'] })
  class Line {
    @PrimaryColumn('bigint') id!: string;
    @Column('bigint') @ShardKey() factId!: string;
    @Column('int', { nullable: true }) qty!: number | null;
    @Column('decimal', { precision: 10, scale: 2, nullable: true }) price!: string | null;
    @Column('varchar', { length: 20, nullable: true }) sku!: string | null;
  }

  @Entity('shape_refs')
  @Broadcast()
  class Ref {
    @PrimaryColumn('int') id!: number;
    @Column('varchar', { length: 20, nullable: true }) name!: string | null;
    @Column('int', { nullable: true }) weight!: number | null;
  }

  return { Fact: maria ? MariaFact : Fact, Line, Ref };
}

/** Rows of the three tables: few distinct values per column (ties), NULLs, case variants. */
export interface ShapeData {
  readonly facts: Record<string, unknown>[];
  readonly lines: Record<string, unknown>[];
  readonly refs: Record<string, unknown>[];
  /** Fact ids that exist, and ids that do not (for shard-key predicates). */
  readonly factIds: readonly number[];
  readonly missingIds: readonly number[];
}

/** A small deterministic PRNG (mulberry32): the data is the same on every run. */
function mulberry(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The data every run loads. Group 5 has only NULL quantities (so `MAX(qty)` of that group
 * is NULL: HAVING comparisons meet unknown), refs cover groups 0–4 only (LEFT JOIN NULLs),
 * some lines belong to no fact and some facts have no lines.
 */
export function shapeData(backend: Backend): ShapeData {
  const maria = backend === 'mariadb';
  const rand = mulberry(20240817);
  const pick = <T>(values: readonly T[], nullChance = 0): T | null => (rand() < nullChance ? null : values[Math.floor(rand() * values.length)]!);
  const factIds: number[] = [];
  for (let i = 0; i < 180; i++) factIds.push(i < 150 ? i * 3 - 20 : 100_000 + i * 7919);
  const times = maria ? TIMES_MARIADB : TIMES_SQLITE;
  const bigs: readonly (string | number)[] = maria ? ['4611686018427387904', '-4611686018427387904', '9007199254740993', '-9007199254740993', '12', '0', '9223372036854775807'] : [8796093022208, -8796093022208, 12, 0, 4398046511104];
  const facts = factIds.map((id) => {
    const grp = Math.floor(rand() * 6);
    const row: Record<string, unknown> = {
      id: String(id),
      grp,
      qty: grp === 5 ? null : pick([0, 1, 1, 2, 3, 3, 3, 7, 20, -2], 0.15),
      big: pick(bigs, 0.2),
      price: pick(PRICES, 0.15),
      ratio: pick(RATIOS, 0.15),
      title: pick(TITLES, 0.12),
      kind: pick(KINDS, 0.15),
      day: pick(DAYS, 0.1),
      stamp: new Date(Date.UTC(2024, 0, 1 + Math.floor(rand() * 3), Math.floor(rand() * 3) * 5)),
      tm: pick(times, 0.1),
      bin: rand() < 0.15 ? null : Buffer.from(pick(BINS)!, 'hex'),
      doc: rand() < 0.2 ? null : JSON.parse(pick(DOCS)!),
    };
    if (maria) {
      row.tags = rand() < 0.2 ? null : TAGS.filter(() => rand() < 0.5);
      row.flags = rand() < 0.2 ? null : Math.floor(rand() * 16);
      row.yr = pick([1999, 2000, 2024, 1901, 2155], 0.2);
    }
    return row;
  });
  const lines: Record<string, unknown>[] = [];
  let lineId = 1000;
  for (const id of factIds) {
    const n = id % 4 === 0 ? 0 : 1 + Math.floor(rand() * 3);
    for (let j = 0; j < n; j++) lines.push({ id: String(lineId++), factId: String(id), qty: pick([0, 1, 2, 3, 5], 0.1), price: pick(PRICES.slice(0, 6), 0.1), sku: pick(SKUS, 0.1) });
  }
  const missingIds = [-999, 3, 5, 99_999, 100_001];
  for (const id of missingIds.slice(0, 3)) lines.push({ id: String(lineId++), factId: String(id), qty: 4, price: '2.25', sku: 'orphan' });
  const refs = [0, 1, 2, 3, 4].map((id) => ({ id, name: NAMES[id] ?? null, weight: id === 2 ? null : id % 3 }));
  return { facts, lines, refs, factIds, missingIds };
}
