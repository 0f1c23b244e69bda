import type { DataSource } from 'typeorm';
import { openFixture, type Backend, type Fixture } from '../backends.js';
import type { Dialect } from './print.js';
import { shapeData, shapeEntities, shapeTables, type ShapeData, type TableDef } from './schema.js';

/** The shape schema loaded into a 4-shard sharded source and one plain source. */
export interface ShapeFixture {
  readonly backend: Backend;
  readonly dialect: Dialect;
  readonly fx: Fixture;
  readonly data: ShapeData;
  readonly tables: { readonly facts: TableDef; readonly lines: TableDef; readonly refs: TableDef };
}

/** The table-per-shard layout of the layout variant: the binding tables share it. */
export const SHAPE_LAYOUTS = { shape_facts: 3, shape_lines: 3 } as const;

/** MySQL partitions of the partitions variant: the one sharded table whose every unique key holds its shard key. */
export const SHAPE_PARTITIONS = { shape_facts: 4 } as const;

/** How the sharded tables sit in each shard database: as one table, laid out as several, or partitioned by the server. */
export type ShapeStorage = 'table' | 'tables' | 'partitions';

/**
 * Opens the sources and loads the same rows into both. IN lists on the key are cut into
 * batches of 3 per statement, so that shards get several statements whose rows the merge
 * must combine as well. With `tables`, the sharded tables are laid out as 3 tables per shard
 * database (`SHAPE_LAYOUTS`), on 3 shards; with `partitions` (MySQL only), `shape_facts` is
 * partitioned by the server in each of 3 shard databases (`SHAPE_PARTITIONS`).
 */
export async function openShapeFixture(backend: Backend, storage: ShapeStorage = 'table'): Promise<ShapeFixture> {
  const { Fact, Line, Ref } = shapeEntities(backend);
  const fx =
    storage === 'tables'
      ? await openFixture(backend, [Fact, Line, Ref], 3, { maxInValuesPerQuery: 3, tables: SHAPE_LAYOUTS })
      : storage === 'partitions'
        ? await openFixture(backend, [Fact, Line, Ref], 3, { maxInValuesPerQuery: 3, partitions: SHAPE_PARTITIONS })
        : await openFixture(backend, [Fact, Line, Ref], 4, { maxInValuesPerQuery: 3 });
  const data = shapeData(backend);
  const load = async (ds: DataSource) => {
    await ds.getRepository(Fact).insert(data.facts);
    for (let i = 0; i < data.lines.length; i += 200) await ds.getRepository(Line).insert(data.lines.slice(i, i + 200));
    await ds.getRepository(Ref).insert(data.refs);
  };
  await load(fx.plain);
  await load(fx.sharded);
  fx.physical.length = 0;
  return { backend, dialect: backend === 'mariadb' ? 'mysql' : 'sqlite', fx, data, tables: shapeTables(backend) };
}
