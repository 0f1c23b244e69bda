import 'reflect-metadata';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { DataSource, EventSubscriber, Table } from 'typeorm';
import type { DataSourceOptions, EntityMetadata, EntitySubscriberInterface, InsertEvent, Logger, NamingStrategyInterface, QueryRunner, Driver } from 'typeorm';
import type * as Sharding from 'typeorm-sharding';
import { appendFileSync } from 'node:fs';
import { harnessState } from './harness-state';
import { decidableMetadatas, escalate, firstDecisions, type Decision } from './sharding-policy';

/**
 * Our own implementation of the test utilities TypeORM's functional tests import
 * (`createTestingConnections`, `reloadTestingDatabases`, `closeTestingConnections` and the few
 * helpers beside them). TF_MODE says what they hand out: `plain` one TypeORM DataSource of the
 * backend, `sharded` a ShardedDataSource of 4 shards (SQLite in memory, or 4 MariaDB databases
 * on 127.0.0.1:$TSH_MARIADB_PORT) whose entities were given a distribution by the policy of
 * `sharding-policy.ts`, each decision logged.
 */

/** The options a functional test passes; only what the backends here can use is applied. */
export interface TestingOptions {
  __dirname?: string;
  enabledDrivers?: string[];
  disabledDrivers?: string[];
  entities?: DataSourceOptions['entities'];
  migrations?: DataSourceOptions['migrations'];
  subscribers?: DataSourceOptions['subscribers'];
  schemaCreate?: boolean;
  dropSchema?: boolean;
  logging?: boolean;
  schema?: string;
  namingStrategy?: NamingStrategyInterface;
  metadataTableName?: string;
  cache?: DataSourceOptions['cache'];
  driverSpecific?: object;
  createLogger?: () => Logger | 'advanced-console' | 'simple-console' | 'formatted-console' | 'file' | 'debug';
  relationLoadStrategy?: 'join' | 'query';
  isolateWhereStatements?: boolean;
}

export type TestingConnectionOptions = DataSourceOptions & { skip?: boolean };

const SHARD_COUNT = 4;
const MARIADB = { host: '127.0.0.1', port: Number(process.env.TSH_MARIADB_PORT ?? 3314), user: 'root', password: '' } as const;

/** The TypeORM driver type of the run's backend. */
function driverType(): 'better-sqlite3' | 'mariadb' {
  return harnessState().backend === 'sqlite' ? 'better-sqlite3' : 'mariadb';
}

let databaseCounter = 0;
/** MariaDB databases each data source was given, dropped when it closes. */
const databasesOf = new WeakMap<DataSource, string[]>();
/** Plain DataSourceOptions → the MariaDB databases made for them (setupTestingConnections → createDataSource). */
const pendingDatabases = new WeakMap<object, string[]>();

function enabled(options: TestingOptions | undefined): boolean {
  const type = driverType();
  if (options?.disabledDrivers?.includes(type)) return false;
  if (options?.enabledDrivers?.length) return options.enabledDrivers.includes(type);
  return true;
}

/**
 * The DataSourceOptions TypeORM's own utilities would make for this backend (empty when the
 * suite does not run on it). For MariaDB the databases are named here and created by
 * `createDataSource`.
 */
export function setupTestingConnections(options?: TestingOptions): DataSourceOptions[] {
  if (!enabled(options)) return [];
  const o: Record<string, unknown> = {
    type: driverType(),
    ...(options?.driverSpecific ?? {}),
    entities: options?.__dirname ? [path.join(options.__dirname, 'entity/*{.js,.ts}')] : (options?.entities ?? []),
    migrations: options?.__dirname ? [path.join(options.__dirname, 'migration/*{.js,.ts}')] : (options?.migrations ?? []),
    subscribers: options?.subscribers ?? [],
    dropSchema: options?.dropSchema ?? false,
    cache: options?.cache,
    logging: options?.logging ?? false,
  };
  if (options?.schemaCreate) o.synchronize = true;
  if (options?.createLogger) o.logger = options.createLogger();
  if (options?.namingStrategy) o.namingStrategy = options.namingStrategy;
  if (options?.metadataTableName) o.metadataTableName = options.metadataTableName;
  if (options?.relationLoadStrategy) o.relationLoadStrategy = options.relationLoadStrategy;
  if (options?.isolateWhereStatements) o.isolateWhereStatements = options.isolateWhereStatements;
  if (harnessState().backend === 'sqlite') {
    o.database = ':memory:';
  } else {
    const n = ++databaseCounter;
    const prefix = harnessState().mode === 'plain' ? 'tfp' : 'tfs';
    const names = harnessState().mode === 'plain' ? [`${prefix}${n}`] : Array.from({ length: SHARD_COUNT }, (_, i) => `${prefix}${n}_s${i}`);
    Object.assign(o, { host: MARIADB.host, port: MARIADB.port, username: MARIADB.user, password: MARIADB.password, database: names[0] });
    pendingDatabases.set(o, names);
  }
  return [o as unknown as DataSourceOptions];
}

export function setupSingleTestingConnection(type: string, options: TestingOptions): DataSourceOptions | undefined {
  return setupTestingConnections({ ...options, enabledDrivers: [type] })[0];
}

/** The configured connections, as TypeORM's ormconfig.json would list them: this backend's one. */
export function getTypeOrmConfig(): TestingConnectionOptions[] {
  return setupTestingConnections({});
}

async function recreateDatabases(names: readonly string[]): Promise<void> {
  const c = await mysql.createConnection(MARIADB);
  try {
    for (const n of names) {
      await c.query(`DROP DATABASE IF EXISTS \`${n}\``);
      await c.query(`CREATE DATABASE \`${n}\``);
    }
  } finally {
    await c.end();
  }
}

async function dropDatabases(names: readonly string[]): Promise<void> {
  const c = await mysql.createConnection(MARIADB);
  try {
    for (const n of names) await c.query(`DROP DATABASE IF EXISTS \`${n}\``);
  } finally {
    await c.end();
  }
}

/**
 * Counts the QueryRunners and QueryBuilders a test body asks for (see HarnessState.runnersInTest):
 * every repository, manager and raw call goes through one of them, and a test that builds SQL
 * only (`getSql()`) uses the data source's dialect too.
 */
function countUses(ds: DataSource): void {
  const runner = ds.createQueryRunner.bind(ds);
  const builder = ds.createQueryBuilder.bind(ds) as (...args: unknown[]) => unknown;
  const used = () => {
    const state = harnessState();
    if (state.inTest) state.runnersInTest++;
  };
  ds.createQueryRunner = (...args: Parameters<DataSource['createQueryRunner']>) => {
    used();
    return runner(...args);
  };
  (ds as unknown as { createQueryBuilder: (...args: unknown[]) => unknown }).createQueryBuilder = (...args: unknown[]) => {
    used();
    return builder(...args);
  };
}

// --- the sharded data source --------------------------------------------------------------

/** Imports the ESM library from this CommonJS harness (a real `import()`, not a `require`). */
const importEsm = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<unknown>;
let library: typeof Sharding | undefined;
async function sharding(): Promise<typeof Sharding> {
  library ??= (await importEsm('typeorm-sharding')) as typeof Sharding;
  return library;
}

const KEYS = {
  sharded: Symbol.for('typeorm-sharding:sharded'),
  shardKey: Symbol.for('typeorm-sharding:shard-key-properties'),
  broadcast: Symbol.for('typeorm-sharding:broadcast'),
};

/** Entity targets whose generated integer key the harness assigns, and the last value per table. */
const assignedKeys = new Set<Function>();
const lastKeyOfTable = new Map<string, number>();

function rootTarget(metadata: EntityMetadata): unknown {
  let m = metadata;
  while (m.tableType === 'entity-child' && m.parentEntityMetadata) m = m.parentEntityMetadata;
  return m.target;
}

/**
 * Gives a sharded entity's generated integer key its value before the INSERT, as an
 * application with a key service would (the shard key must be known to route the row):
 * per table 1, 2, 3 … after the largest value seen, as a fresh auto-increment would.
 */
// @EventSubscriber() registers it in TypeORM's metadata storage, from which `subscribers` are loaded.
@EventSubscriber()
export class IncrementKeyAssigner implements EntitySubscriberInterface {
  beforeInsert(event: InsertEvent<unknown>): void {
    if (!assignedKeys.has(rootTarget(event.metadata) as Function)) return;
    const column = event.metadata.primaryColumns[0];
    if (!column || !event.entity) return;
    const table = event.metadata.tableName;
    const given = column.getEntityValue(event.entity as object) as unknown;
    const last = lastKeyOfTable.get(table) ?? 0;
    if (given === undefined || given === null) {
      lastKeyOfTable.set(table, last + 1);
      column.setEntityValue(event.entity as object, last + 1);
    } else if (Number.isFinite(Number(given))) {
      lastKeyOfTable.set(table, Math.max(last, Number(given)));
    }
  }
}

function applyDecisions(metadatas: readonly EntityMetadata[], decisions: readonly Decision[], lib: typeof Sharding): void {
  for (const m of metadatas) {
    if (typeof m.target !== 'function') continue;
    for (const key of Object.values(KEYS)) Reflect.deleteMetadata(key, m.target);
    assignedKeys.delete(m.target);
  }
  for (const d of decisions) {
    if (!d.target) continue;
    if (d.distribution === 'broadcast') lib.Broadcast()(d.target);
    if (d.distribution === 'sharded') {
      lib.Sharded()(d.target);
      lib.ShardKey()((d.target as { prototype: object }).prototype, d.key!);
      if (d.assignsKey) assignedKeys.add(d.target);
    }
  }
}

function logDecisions(decisions: readonly Decision[], outcome: string): void {
  const state = harnessState();
  if (!state.decisionsFile) return;
  const lines = decisions.map((d) =>
    JSON.stringify({ backend: state.backend, file: state.currentFile, entity: d.entity, distribution: d.distribution, key: d.key, reason: d.reason, outcome }),
  );
  appendFileSync(state.decisionsFile, lines.join('\n') + '\n');
}

/** Replaces `initialize()` by: choose distributions, try, and move what initialize() refuses. */
function withPolicy(ds: Sharding.ShardedDataSource, lib: typeof Sharding): void {
  const initialize = ds.initialize.bind(ds);
  ds.initialize = async function initializeWithPolicy() {
    await (ds as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
    const metadatas = ds.entityMetadatas;
    let decisions = firstDecisions(metadatas);
    for (let attempt = 0; ; attempt++) {
      applyDecisions(metadatas, decisions, lib);
      try {
        await initialize();
        logDecisions(decisions, 'accepted');
        return ds;
      } catch (error) {
        const next = error instanceof lib.ShardingConfigError && attempt < 3 * decidableMetadatas(metadatas).length ? escalate(decisions, error.message) : undefined;
        if (!next) {
          logDecisions(decisions, `refused: ${error instanceof Error ? error.message : String(error)}`);
          throw error;
        }
        decisions = next;
      }
    }
  };
}

/** A data source for options of `setupTestingConnections`: plain or sharded as the run says. */
export function createDataSource(options: DataSourceOptions): DataSource {
  const state = harnessState();
  const databases = pendingDatabases.get(options) ?? [];
  let ds: DataSource;
  if (state.mode === 'plain') {
    ds = new DataSource(options);
  } else {
    if (!library) throw new Error('createDataSource: the sharding library is not loaded yet (call createTestingConnections first)');
    const shards = state.backend === 'sqlite'
      ? Array.from({ length: SHARD_COUNT }, (_, i) => ({ name: `s${i}`, database: ':memory:' }))
      : databases.map((database, i) => ({ name: `s${i}`, database }));
    const subscribers = Array.isArray(options.subscribers) ? [...options.subscribers, IncrementKeyAssigner] : [IncrementKeyAssigner];
    const { database: _ignored, ...rest } = options as DataSourceOptions & { database?: string };
    // TF_TRACE=1 prints every logical and physical statement (for a repro of one test).
    const trace = process.env.TF_TRACE ? { logging: ['query', 'error', 'log'], sharding: { logPhysicalQueries: 'log' } } : {};
    const sharded = new library.ShardedDataSource({ ...rest, subscribers, shards, ...trace } as unknown as Sharding.ShardedDataSourceOptions);
    withPolicy(sharded, library);
    ds = sharded;
  }
  if (databases.length > 0) {
    databasesOf.set(ds, databases);
    const initialize = ds.initialize.bind(ds);
    ds.initialize = async () => {
      await recreateDatabases(databases);
      return initialize();
    };
  }
  countUses(ds);
  return ds;
}

export async function createTestingConnections(options?: TestingOptions): Promise<DataSource[]> {
  if (harnessState().mode === 'sharded') await sharding();
  const created: DataSource[] = [];
  for (const o of setupTestingConnections(options)) {
    const ds = createDataSource(o);
    await ds.initialize();
    created.push(ds);
  }
  return created;
}

export async function closeTestingConnections(connections: DataSource[]): Promise<void> {
  await Promise.all(
    (connections ?? []).map(async (ds) => {
      if (ds?.isInitialized) await ds.destroy();
      const databases = databasesOf.get(ds);
      if (databases) await dropDatabases(databases);
    }),
  );
}

export async function reloadTestingDatabases(connections: DataSource[]): Promise<void> {
  lastKeyOfTable.clear();
  await Promise.all(connections.map((ds) => ds.synchronize(true)));
}

export function generateRandomText(length: number): string {
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from({ length: length + 1 }, () => letters[Math.floor(Math.random() * letters.length)]).join('');
}

/** The `typeorm_metadata` table TypeORM keeps views and generated columns in. */
export async function createTypeormMetadataTable(driver: Driver, queryRunner: QueryRunner): Promise<void> {
  const text = (type: unknown) => driver.normalizeType({ type: type as never });
  const types = driver.mappedDataTypes;
  const column = (name: string, type: unknown, isNullable = true) => ({ name, type: text(type), isNullable });
  await queryRunner.createTable(
    new Table({
      database: driver.database,
      schema: driver.schema,
      name: driver.buildTableName('typeorm_metadata', driver.schema, driver.database),
      columns: [
        column('type', types.metadataType, false),
        column('database', types.metadataDatabase),
        column('schema', types.metadataSchema),
        column('table', types.metadataTable),
        column('name', types.metadataName),
        column('value', types.metadataValue),
      ],
    }),
    true,
  );
}

/** Runs `fn` with `process.platform` reading `platform`. */
export function withPlatform<R>(platform: string, fn: () => R): R {
  const real = process.platform;
  Object.defineProperty(process, 'platform', { configurable: true, value: platform });
  try {
    return fn();
  } finally {
    Object.defineProperty(process, 'platform', { configurable: true, value: real });
  }
}
