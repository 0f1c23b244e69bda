import type { DataSourceOptions } from 'typeorm';
import { DataSource } from 'typeorm';
import { ShardedDataSource, type PhysicalQueryEvent, type ShardingOptions } from '../../packages/typeorm-sharding/src/index.js';
import { createDatabases, dropDatabases, MARIADB } from './mariadb.js';

/** A database kind the integration tests run on. */
export type Backend = 'sqlite' | 'mariadb';

/** A sharded data source plus one plain data source (the oracle) and the statements seen. */
export interface Fixture {
  readonly sharded: ShardedDataSource;
  readonly plain: DataSource;
  /**
   * Physical statements per shard: a coalesced round trip (one UNION ALL for several shards of
   * a server) appears as one entry per shard it carried, with that shard's own statement, so
   * that pruning and routing checks read per shard whatever the coalescing.
   */
  readonly physical: PhysicalQueryEvent[];
  /** Round trips as `onPhysicalQuery` reported them (one per coalesced statement). */
  readonly roundTrips: PhysicalQueryEvent[];
  close(): Promise<void>;
}

let counter = 0;

/**
 * Opens `shardCount` shards and one plain database with the same entities. SQLite uses
 * in-memory databases; MariaDB uses fresh databases named after the test, dropped on close.
 */
export async function openFixture(
  backend: Backend,
  entities: Function[],
  shardCount: number,
  sharding: ShardingOptions = {},
  extra: Record<string, unknown> = {},
  /** Options of the plain data source only (e.g. its own logger). */
  plainExtra: Record<string, unknown> = {},
  /** Options of one shard beyond its name and database (e.g. the `server` it is on). */
  perShard: (index: number) => Record<string, unknown> = () => ({}),
): Promise<Fixture> {
  const physical: PhysicalQueryEvent[] = [];
  const roundTrips: PhysicalQueryEvent[] = [];
  const onPhysicalQuery = (e: PhysicalQueryEvent) => {
    roundTrips.push(e);
    if (e.branches) for (const b of e.branches) physical.push({ ...e, shard: b.shard, shards: [b.shard], sql: b.sql, parameters: b.parameters, branches: undefined });
    else physical.push(e);
    sharding.onPhysicalQuery?.(e);
  };
  const prefix = `tsh_${process.pid}_${++counter}`;
  const names = Array.from({ length: shardCount }, (_, i) => `${prefix}_s${i}`);
  let plainOptions: DataSourceOptions;
  let sharded: ShardedDataSource;
  if (backend === 'sqlite') {
    sharded = new ShardedDataSource({
      type: 'better-sqlite3',
      entities,
      synchronize: true,
      shards: names.map((_, i) => ({ name: `s${i}`, database: ':memory:', ...perShard(i) })),
      sharding: { ...sharding, onPhysicalQuery },
      ...extra,
    });
    plainOptions = { type: 'better-sqlite3', database: ':memory:', entities, synchronize: true, ...plainExtra } as DataSourceOptions;
  } else {
    await createDatabases([...names, `${prefix}_plain`]);
    sharded = new ShardedDataSource({
      type: 'mariadb',
      ...MARIADB,
      username: MARIADB.user,
      entities,
      synchronize: true,
      shards: names.map((database, i) => ({ name: `s${i}`, database, ...perShard(i) })),
      sharding: { ...sharding, onPhysicalQuery },
      ...extra,
    } as never);
    plainOptions = { type: 'mariadb', host: MARIADB.host, port: MARIADB.port, username: MARIADB.user, password: '', database: `${prefix}_plain`, entities, synchronize: true, ...plainExtra } as DataSourceOptions;
  }
  let plain: DataSource;
  try {
    await sharded.initialize();
    plain = await new DataSource(plainOptions).initialize();
  } catch (error) {
    // The caller never gets a fixture to close: drop what was created here.
    await sharded.destroy().catch(() => undefined);
    if (backend === 'mariadb') await dropDatabases([...names, `${prefix}_plain`]);
    throw error;
  }
  physical.length = 0;
  roundTrips.length = 0;
  return {
    sharded,
    plain,
    physical,
    roundTrips,
    async close() {
      await sharded.destroy().catch(() => undefined);
      await plain.destroy().catch(() => undefined);
      if (backend === 'mariadb') await dropDatabases([...names, `${prefix}_plain`]);
    },
  };
}

/** A sharded data source and the plain one it is compared with. */
export interface OraclePair {
  readonly sharded: ShardedDataSource;
  readonly plain: DataSource;
  close(): Promise<void>;
}

/**
 * `shardCount` shards on the test MariaDB addressed as two servers `a` and `b` (shards
 * alternate between them), so that every transaction over both is two-phase (two connections,
 * two XA branches), and one plain database with the same entities; `prefix` names the
 * databases, dropped on close. The decision log's resolver does not run on a timer.
 */
export async function openTwoServerPair(prefix: string, entities: DataSourceOptions['entities'], shardCount: number): Promise<OraclePair> {
  const names = Array.from({ length: shardCount }, (_, i) => `${prefix}_s${i}`);
  await createDatabases([...names, `${prefix}_plain`]);
  const server = { host: MARIADB.host, port: MARIADB.port, username: MARIADB.user, password: '' };
  const sharded = new ShardedDataSource({
    type: 'mariadb',
    username: MARIADB.user,
    password: '',
    entities,
    synchronize: true,
    servers: [{ name: 'a', ...server }, { name: 'b', ...server }],
    shards: names.map((database, i) => ({ name: `s${i}`, server: i % 2 ? 'b' : 'a', database })),
    sharding: { transactions: { resolveIntervalMs: false } },
  } as never);
  const plain = new DataSource({ type: 'mariadb', ...server, database: `${prefix}_plain`, entities, synchronize: true });
  await sharded.initialize();
  await plain.initialize();
  return {
    sharded,
    plain,
    close: async () => {
      await sharded.destroy();
      await plain.destroy();
      await dropDatabases([...names, `${prefix}_plain`]);
    },
  };
}
