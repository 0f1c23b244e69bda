import 'reflect-metadata';
import { DataSource, type DataSourceOptions, type EntityManager, type EntityMetadata, type EntityTarget, type ObjectLiteral, type QueryRunner, type ReplicationMode } from 'typeorm';
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver.js';
import type { BetterSqlite3Driver } from 'typeorm/driver/better-sqlite3/BetterSqlite3Driver.js';
import { ShardConnectionError, ShardingConfigError, ShardingError } from '../errors/index.js';
import { ShardingEngine, type ExplainedStatement } from '../engine/sharding-engine.js';
import PQueue from 'p-queue';
import { dataSourceTarget, serverShardTarget, type ShardTarget } from '../execute/shard-target.js';
import { ServerPool, type Mysql2Pool } from '../servers/server-pool.js';
import type { Topology } from '../servers/topology.js';
import type { SqlDialect } from '../parameterize/index.js';
import type { PlanCacheStats } from '../plan/plan-cache.js';
import { foldOf, resolveKeyPartitioning, resolveShardingRules, withLookupTables, type KeyPartitioning, type ShardingRules } from '../rules/index.js';
import { partitionTables } from './partition-tables.js';
import { unbuiltIndexes } from '../indexes/check-built.js';
import { buildIndexes, type BuildIndexesOptions, type IndexBuildReport } from '../indexes/build/build-indexes.js';
import { createStateTableSql, readBuildStates, writeBuildState } from '../indexes/build/build-state.js';
import { registerLookupTables } from '../indexes/register-lookups.js';
import type { ShardConnectionOptions, ShardedDataSourceOptions } from './options.js';
import { resolveShardingOptions, validateShards } from './resolve-options.js';
import { MysqlShardingQueryRunner, SqliteShardingQueryRunner } from './sharding-query-runner.js';
import { detachDriverConnections } from './detached-driver.js';
import { connectThroughServer, missingDatabases } from './connect-through-server.js';
import { physicalQueryLog } from '../log/physical-query-log.js';
import { ShardLogger } from '../log/shard-logger.js';
import { inTurnWithTransactions, ShardedEntityManager } from './sharded-entity-manager.js';
import { physicalMetadatas } from './layout-metadata.js';
import { checkKeyGeneratorOptions } from '../keys/key-generator-options.js';
import { planGlobalKeys, type GlobalKeys } from '../keys/global-keys.js';
import type { KeyGenerator } from '../keys/snowflake-generator.js';
import { resolveLayout, revealPassword, type Layout } from './resolve-layout.js';
import { RouterRuntime, trackGtidsOnPrimary } from './router-runtime.js';
import type { QueryRouter } from '../router/query-router.js';
import type { RouterMetrics } from '../router/metrics.js';
import { withRouting, type RoutingScopeOptions } from '../router/hints/routing-scope.js';
import { loadRouterYaml, type LoadYamlOptions } from '../router/config/load-yaml.js';
import type { YamlDataSourceOptions } from './yaml-options.js';
import { resolveTransactionOptions } from '../transactions/transaction-options.js';
import { startCrossServerTransactions } from '../transactions/start-cross-server.js';
import type { XaCoordinator } from '../transactions/xa-coordinator.js';
import type { ResolveReport } from '../transactions/xa-resolver.js';
import type { CommitProtocol } from '../session/commit-protocol.js';
import type { EngineSettings } from '../engine/sharding-engine.js';
import type { GovernedPlacement } from '../rules/resolve-rules.js';
import { resolveTopologyOptions, type ResolvedTopologyOptions } from '../topology/topology-options.js';
import { TopologyStore } from '../topology/topology-store.js';
import { TopologyRuntime, type TopologyView } from '../topology/topology-runtime.js';
import { validateTopologyDocument, type TopologyDocument } from '../topology/topology-document.js';
import type { EngineSource } from './sharding-query-runner.js';
import { declaredBucketCount, initialDocument, shardEntriesOf, storeSource } from './topology-setup.js';
import { IndexMetrics } from '../indexes/index-metrics.js';
import { checkIndexes, type CheckHost, type CheckIndexesOptions, type IndexCheckReport } from '../indexes/check/check-indexes.js';

/** Schema steps the ShardedDataSource drives itself, so neither its base nor a shard may run them on its own. */
const DRIVEN_BY_SHARDED_SOURCE = { synchronize: false, migrationsRun: false, dropSchema: false };
/** Shards are plain connections: migrations and subscribers belong to the ShardedDataSource. */
const SHARD_ONLY = { ...DRIVEN_BY_SHARDED_SOURCE, migrations: [], subscribers: [] };

/**
 * A TypeORM DataSource whose tables are spread over several databases (shards).
 *
 * Use it as any DataSource: repositories, QueryBuilder, `save`, `transaction` and raw
 * `query` all go through one QueryRunner that routes each statement to the shards that can
 * hold its rows (see DESIGN.md §2). Each shard is an ordinary TypeORM DataSource, reachable
 * with `getShardDataSource(name)`.
 */
export class ShardedDataSource extends DataSource {
  /** The options as given (the base DataSource only sees the default shard's). */
  readonly shardedOptions: ShardedDataSourceOptions;
  private readonly configError: ShardingError | undefined;
  private shardSources: DataSource[] = [];
  /** MySQL: one DataSource per server, whose pool its shards share. */
  private serverSources: DataSource[] = [];
  private serverPools: ServerPool[] = [];
  private targets: ShardTarget[] = [];
  private engine: ShardingEngine | undefined;
  private rules: ShardingRules | undefined;
  /** Tables every shard database holds as MySQL partitions (`@Sharded({ partitions })`). */
  private keyPartitioning: readonly KeyPartitioning[] = [];
  private sqliteRunner: SqliteShardingQueryRunner | undefined;
  private shardLoggers: ShardLogger[] = [];
  private globalKeys: GlobalKeys | undefined;
  /** Servers, shards and the router's configuration, resolved (and checked) at construction. */
  private readonly layout: Layout | undefined;
  private routerRuntime: RouterRuntime | undefined;
  /** MySQL with several servers: XA two-phase commit, its logs and its resolver. */
  private xa: XaCoordinator | undefined;
  /** How sessions commit transactions that reach several servers. */
  private protocol: CommitProtocol | undefined;
  /** `sharding.topology`, checked at construction. */
  private readonly topologySettings: ResolvedTopologyOptions | undefined;
  /** With a topology store: its connection, and the loop that follows it. */
  private storeDataSource: DataSource | undefined;
  private topologyStore: TopologyStore | undefined;
  private topologyRuntime: TopologyRuntime | undefined;
  /** The shards routed by now, in order (the first is the default shard). */
  private currentTopology: Topology | undefined;
  /** Every shard DataSource opened, by name: shards a newer topology dropped stay open until destroy(). */
  private openedShards = new Map<string, DataSource>();
  private engineSettings: EngineSettings | undefined;
  /** What runners run statements with: the engine of the topology version in force. */
  private readonly engineSource: EngineSource = {
    current: () => this.requireEngine(),
    guard: <T>(attempt: () => Promise<T>, inTransaction: () => boolean) => (this.topologyRuntime ? this.topologyRuntime.guard(attempt, inTransaction) : attempt()),
    hold: (engine, delta) => {
      const version = this.engineVersions.get(engine);
      if (version !== undefined) this.topologyRuntime?.hold(version, delta);
    },
  };
  /** The topology version each engine routes by (with a store). */
  private readonly engineVersions = new WeakMap<ShardingEngine, number>();

  constructor(options: ShardedDataSourceOptions) {
    let configError: ShardingError | undefined;
    let layout: Layout | undefined;
    let topologySettings: ResolvedTopologyOptions | undefined;
    try {
      validateShards(options);
      resolveShardingOptions(options.sharding);
      checkKeyGeneratorOptions(options.sharding?.keyGenerator);
      layout = resolveLayout(options, options.type === 'better-sqlite3' ? 'sqlite' : 'mysql');
      resolveTransactionOptions(options.sharding?.transactions);
      topologySettings = resolveTopologyOptions(options.sharding?.topology, options.type === 'better-sqlite3' ? 'sqlite' : 'mysql');
    } catch (error) {
      if (!(error instanceof ShardingError)) throw error;
      configError = error;
    }
    // TypeORM's `replication` belongs to the router: the base driver must not build a pool cluster of it.
    const { shards, sharding: _sharding, servers: _servers, replication: _replication, ...base } = options as ShardedDataSourceOptions & Record<string, unknown>;
    const first = Array.isArray(shards) && shards[0] ? withoutName(shards[0]) : {};
    const baseType = ['mysql', 'mariadb', 'better-sqlite3'].includes(String(base.type)) ? base.type : 'better-sqlite3';
    // The base DataSource gets the default shard's options so that its driver speaks the right
    // dialect; that driver is never connected — statements go through the shard DataSources
    // (see detachDriverConnections for what `ds.driver` answers).
    super({ ...base, ...first, type: baseType, database: (first as { database?: string }).database ?? base.database ?? ':memory:', ...DRIVEN_BY_SHARDED_SOURCE } as unknown as DataSourceOptions);
    this.shardedOptions = options;
    this.configError = configError;
    this.layout = layout;
    this.topologySettings = topologySettings;
    detachDriverConnections(this.driver, baseType === 'better-sqlite3' ? 'sqlite' : 'mysql', (mode) => this.createQueryRunner(mode));
  }

  /** Names of the shards, in configuration order (the first is the default shard). */
  get shardNames(): string[] {
    return (this.currentTopology?.shards ?? this.shardedOptions.shards).map((s) => s.name);
  }

  /** The TypeORM DataSource of one shard (also of a shard a newer topology no longer lists, until destroy()). */
  getShardDataSource(name: string): DataSource {
    const index = this.shardNames.indexOf(name);
    const ds = this.shardSources[index] ?? this.openedShards.get(name);
    if (!ds) {
      throw new ShardingConfigError(`No shard named "${name}"${this.isInitialized ? '' : ' (the data source is not initialised)'}; shards are: ${this.shardNames.join(', ')}.`);
    }
    return ds;
  }

  /** Name of the shard that holds the row of `entity` whose shard key is `key`. */
  shardOf(entity: EntityTarget<ObjectLiteral>, key: unknown): string {
    const rules = this.requireRules();
    const metadata = this.getMetadata(entity);
    const rule = rules.ruleOf(metadata.tableName);
    if (!rule || rule.distribution === 'unsharded') return this.shardNames[0]!;
    if (rule.distribution === 'broadcast') {
      throw new ShardingConfigError(`${metadata.name} is @Broadcast(): every shard holds every row.`);
    }
    return this.shardNames[rule.shardKey!.algorithm.shardIndexOf(key)]!;
  }

  /**
   * Name of the physical table that holds the row of `entity` whose shard key is `key` (in the
   * database of `shardOf(entity, key)`): under a table-per-shard layout (`@Sharded({ tables })`)
   * one of `orders_0 … orders_3`, else the entity's own table.
   */
  tableOf(entity: EntityTarget<ObjectLiteral>, key: unknown): string {
    const rules = this.requireRules();
    const metadata = this.getMetadata(entity);
    const layout = rules.ruleOf(metadata.tableName)?.shardKey?.layout;
    return layout ? layout.physicalName(metadata.tableName, layout.tableIndexOf(key)) : metadata.tableName;
  }

  /** The physical statements `sql` would run, per shard, without running them. */
  explain(sql: string, parameters: readonly unknown[] = []): ExplainedStatement[] {
    return this.requireEngine().explain(sql, parameters);
  }

  /**
   * Runs the resolver of cross-server transactions now (it also runs in `initialize()` and every
   * `sharding.transactions.resolveIntervalMs`): commits or rolls back the XA branches a dead
   * process left prepared, by the decision log. MySQL/MariaDB with several servers only; elsewhere
   * there is nothing to resolve.
   */
  async resolveTransactions(): Promise<ResolveReport> {
    this.requireEngine();
    return this.xa ? this.xa.resolve() : { committed: 0, rolledBack: 0, pending: 0 };
  }

  /**
   * Compares every global index (unique and lookup) with its owner rows and reports dangling
   * entries (no owner row), missing ones (an owner row without its entry), miscounted lookup
   * entries and values of a unique index owned twice. With `repair: true` it fixes all but the
   * last, each in a transaction of its own after reading its rows again under locks, and reports
   * what it did; a value owned twice is never repaired (which row keeps it is yours to decide).
   * Reads whole tables: an operation, not a request.
   */
  async checkIndexes(options: CheckIndexesOptions = {}): Promise<IndexCheckReport> {
    return checkIndexes(this.requireRules().globalIndexes, this.checkHost(), options);
  }

  /**
   * Builds the global indexes that are write-only because they were added to tables that
   * already held rows (`initialize()` found their lookup tables empty and said so): backfills
   * each in chunks (resumable: the cursor commits with each chunk, a killed build goes on from
   * there), verifies it with `checkIndexes({ repair: true })`, and from then on routes reads
   * through it. An index whose values are owned twice stays write-only (`phase: 'conflicts'`):
   * resolve the rows the report names and run it again.
   */
  async buildIndexes(options: BuildIndexesOptions = {}): Promise<IndexBuildReport[]> {
    this.requireEngine();
    // Through `this`: a newer topology version may swap the engine while the build runs.
    return buildIndexes(this.requireRules().globalIndexes, { ...this.checkHost(), onPhase: (table, phase) => this.requireEngine().setWriteOnly(table, phase !== 'ready') }, options);
  }

  /**
   * At `initialize()`: an index whose lookup table is empty beside owner rows gets a build
   * (recorded in `tsh_index_builds` on the default shard); every index whose build is not done
   * is write-only, and the log says how to finish it.
   */
  private async startIndexBuilds(): Promise<void> {
    const indexes = this.requireRules().globalIndexes;
    if (indexes.length === 0) return;
    const query = (sql: string, parameters: readonly unknown[]) => this.query(sql, [...parameters]) as Promise<Record<string, unknown>[]>;
    const states = new Map((await readBuildStates(query, this.dialect)).map((s) => [s.lookupTable, s]));
    const pending = indexes.filter((g) => states.get(g.lookupTable)?.phase === 'backfilling' || states.get(g.lookupTable)?.phase === 'conflicts');
    const fresh = await unbuiltIndexes(indexes.filter((g) => !pending.includes(g)), (sql) => this.query(sql), (name) => this.driver.escape(name));
    if (fresh.length > 0) await this.query(createStateTableSql(this.dialect));
    for (const index of fresh) await writeBuildState(query, this.dialect, { lookupTable: index.lookupTable, phase: 'backfilling' });
    for (const index of [...pending, ...fresh]) {
      this.engine!.setWriteOnly(index.lookupTable, true);
      const conflicts = states.get(index.lookupTable)?.phase === 'conflicts';
      this.logger.log(
        'warn',
        `typeorm-sharding: the global ${index.unique ? 'unique ' : 'lookup '}index of "${index.table}" (${index.label}, lookup table "${index.lookupTable}") is write-only: ` +
          (conflicts
            ? 'its last build found values owned by two rows; resolve them (ds.checkIndexes() names them) and run `await ds.buildIndexes()` again.'
            : 'it was added to a table that already held rows. Writes maintain it, but reads by its columns scatter to every shard' +
              `${index.unique ? ', and a new row may still repeat the value of a row not backfilled yet' : ''}, until you run \`await ds.buildIndexes()\` (chunked and resumable; it reports values owned twice).`),
      );
    }
  }

  /** What the index checker and builder run their statements through. */
  private checkHost(): CheckHost {
    return {
      dialect: this.dialect,
      query: (sql, parameters) => this.query(sql, [...parameters]),
      transaction: (work) => this.transaction((em) => work((sql, parameters) => em.query(sql, [...parameters]))),
      metrics: this.indexMetrics,
      foldOf: (index, column) => foldOf(index, column, (m, p) => this.normalizedTypeOf(m, p), this.dialect),
    };
  }

  /** The global indexes' Prometheus metrics (`indexMetrics.registry.metrics()` gives the text format; see `IndexMetrics`). */
  get indexMetrics(): IndexMetrics {
    return (this.indexMetricsOf ??= new IndexMetrics(this.shardedOptions.sharding?.indexMetrics));
  }

  private indexMetricsOf: IndexMetrics | undefined;

  /** Plan-cache counters: one entry per statement shape. */
  get planCacheStats(): PlanCacheStats {
    return this.requireEngine().planCacheStats;
  }

  /**
   * The query router (MySQL/MariaDB servers with replicas, TypeORM's `replication`, or
   * `sharding.router`): its state (`snapshot()`), events (`on('node-down', …)`), failover
   * times and metrics. See docs/router.md.
   */
  get router(): QueryRouter {
    if (!this.routerRuntime) {
      throw new ShardingConfigError(this.isInitialized ? 'No query router: give a server `replicas` or `analytics`, TypeORM\'s `replication`, or `sharding.router`.' : 'The ShardedDataSource is not initialised; call initialize() first.');
    }
    return this.routerRuntime.router;
  }

  /** The router's Prometheus metrics (`routerMetrics.registry.metrics()` gives the text format). */
  get routerMetrics(): RouterMetrics {
    return this.router.metrics;
  }

  /**
   * Runs `fn` with routing hints for every statement it issues, directly or through code it
   * awaits: `forceMaster`, `forceSlave`, `consistentRead` (read your writes), `sticky`,
   * `masterOnly`. The scope is also the "same async context" of `readYourWrites: 'session'`.
   */
  withRouting<T>(options: RoutingScopeOptions, fn: () => T): T {
    return withRouting(options, fn);
  }

  /**
   * A ShardedDataSource configured by a YAML file shaped like the PolarDB router article's
   * (docs/router.md §2): the servers and their nodes, the router's options, and the
   * `sharding:` section (shards and plugin options). Entities and any other TypeORM options come
   * from `options`; `${ENV}` references in the file are read from `options.env` (default
   * `process.env`). Not initialised yet: call `initialize()`.
   */
  static async fromYaml(file: string, options: YamlDataSourceOptions): Promise<ShardedDataSource> {
    const { env, sharding, type, ...typeorm } = options;
    const { routerMetrics, ...plugin } = sharding ?? {};
    const doc = await loadRouterYaml(file, env === undefined ? {} : ({ env } satisfies LoadYamlOptions));
    if (!doc.sharding || doc.sharding.shards.length === 0) {
      throw new ShardingConfigError(`${file}: the configuration lists no shards: add \`sharding: { shards: [{ name, server, database }] }\`.`);
    }
    const source = new ShardedDataSource({
      ...typeorm,
      type: type ?? 'mysql',
      shards: doc.sharding.shards,
      sharding: { ...doc.sharding.options, ...plugin, router: { config: doc.router, ...(routerMetrics ? { metrics: routerMetrics } : {}) } },
    } as ShardedDataSourceOptions);
    if (source.configError) throw source.configError;
    return source;
  }

  /** The resolved table rules (distribution and shard key per table). */
  get shardingRules(): ShardingRules {
    return this.requireRules();
  }

  override createQueryRunner(mode: ReplicationMode = 'master'): QueryRunner {
    this.requireEngine();
    // Like TypeORM's own SQLite driver, SQLite shares one runner (each shard is one connection).
    const runner = this.dialect === 'mysql'
      ? new MysqlShardingQueryRunner(this.driver as MysqlDriver, mode, this.engineSource, this.protocol)
      : (this.sqliteRunner ??= new SqliteShardingQueryRunner(this.driver as BetterSqlite3Driver, 'master', this.engineSource, { protocol: this.protocol, serialize: (work) => inTurnWithTransactions(this, work) }));
    Object.assign(runner, { manager: this.createEntityManager(runner) });
    return runner;
  }

  /** Managers whose `transaction()` runs SQLite transactions one at a time (see ShardedEntityManager). */
  override createEntityManager(queryRunner?: QueryRunner): EntityManager {
    return new ShardedEntityManager(this, queryRunner);
  }

  /**
   * Connects every shard (in parallel), builds entity metadata, checks the sharding
   * decorators, and synchronizes / migrates when asked. On any failure every shard that did
   * connect is closed again before the error is thrown.
   */
  override async initialize(): Promise<this> {
    if (this.configError) throw this.configError;
    if (this.isInitialized) throw new ShardingConfigError('This ShardedDataSource is already initialised.');
    // With a topology store, its current version says which shards exist and where.
    const current = await this.openTopologyStore();
    let topology: Topology;
    try {
      topology = current ? this.topologyOf(current.document) : this.layout!.topology;
    } catch (error) {
      await this.closeTopologyStore().catch(() => undefined);
      throw error;
    }
    const settings = resolveShardingOptions(this.shardedOptions.sharding, widestServer(topology));
    const shards = topology.shards;
    const routing = this.layout!.routing;
    this.currentTopology = topology;
    this.shardLoggers = shards.map((shard) => new ShardLogger(() => this.logger, shard.name));
    const shardOptions = (i: number) => ({ ...revealPassword(topology.shards[i]!.options), ...SHARD_ONLY, logger: this.shardLoggers[i] }) as unknown as DataSourceOptions;
    this.shardSources = topology.shards.map((_, i) => new DataSource(shardOptions(i)));
    this.openedShards = new Map(topology.shards.map((shard, i) => [shard.name, this.shardSources[i]!]));

    try {
      if (this.dialect === 'mysql') {
        // One pool per server, shared by its shards' DataSources (see servers/server-pool.ts).
        this.serverSources = topology.servers.map((server) => new DataSource({ ...revealPassword(server.options), ...SHARD_ONLY, entities: [], logger: new ShardLogger(() => this.logger, server.name) } as unknown as DataSourceOptions));
        // Read-your-writes: each write's GTID comes back with its result (see router/lag/capture-gtid.ts).
        if (routing) this.serverSources.forEach(trackGtidsOnPrimary);
        await initializeAll(this.serverSources, (i) => {
          const names = topology.shards.filter((shard) => shard.server === i).map((shard) => shard.name);
          return { label: `shard${names.length > 1 ? 's' : ''} ${names.join(', ')} (server ${topology.servers[i]!.name})`, shard: names[0]! };
        });
        this.serverPools = topology.servers.map((server, i) => new ServerPool(server.name, () => (this.serverSources[i]!.driver as unknown as { pool: Mysql2Pool }).pool));
        topology.shards.forEach((shard, i) => {
          const database = shard.database;
          if (database === undefined) throw new ShardingConfigError(`Shard "${shard.name}" needs \`database\`: the database that holds its tables on its server.`, { shard: shard.name });
          const view = this.serverPools[shard.server]!.databaseView(database);
          connectThroughServer(this.shardSources[i]!.driver as MysqlDriver, this.serverSources[shard.server]!.driver as MysqlDriver, view);
        });
        await checkDatabasesExist(topology, this.serverPools);
        if (routing) {
          const servers = topology.servers.map((server, i) => ({ name: server.name, pool: this.serverPools[i]!, source: this.serverSources[i]! }));
          this.routerRuntime = await RouterRuntime.open(routing, servers, (message) => this.logger.log('warn', message));
        }
      }
      await initializeAll(this.shardSources, (i) => ({ label: `shard ${shards[i]!.name}`, shard: shards[i]!.name }), SHARDS_INITIALIZED_AT_ONCE);
    } catch (error) {
      await this.closeShards().catch(() => undefined);
      await this.closeTopologyStore().catch(() => undefined);
      throw error;
    }
    try {
      await this.buildMetadatas();
      this.copyDriverCapabilities(this.shardSources[0]!);
      const governed = current ? governedBy(current.document) : undefined;
      this.rules = resolveShardingRules(this.entityMetadatas, this.shardNames, (m, p) => this.normalizedTypeOf(m, p), this.shardedOptions.sharding?.tables, governed);
      // Global unique indexes: their lookup tables are entities of this source and of every shard.
      const indexes = this.rules.globalIndexes;
      await registerLookupTables(this, indexes);
      for (const ds of this.shardSources) await registerLookupTables(ds, indexes);
      this.rules = withLookupTables(this.rules, this.entityMetadatas, (m, p) => this.normalizedTypeOf(m, p), this.dialect, governed);
      this.keyPartitioning = resolveKeyPartitioning(this.entityMetadatas, this.rules, this.dialect, this.shardedOptions.sharding?.partitions);
      const keys = planGlobalKeys(this.shardedOptions.sharding?.keyGenerator, this.entityMetadatas, this.dialect, (c) => String(this.driver.normalizeType(c)), (m) => this.logger.log('warn', m));
      this.targets = this.targetsOf(topology, this.shardSources);
      const logPhysical = physicalQueryLog(() => this.logger, this.shardedOptions.sharding?.logPhysicalQueries ?? false, this.shardedOptions.maxQueryExecutionTime);
      const coalesce = this.dialect === 'mysql' ? settings.coalesce : undefined;
      // TypeORM's MySQL driver turns both on unless told otherwise: mysql2 then returns every BIGINT as text.
      const mysqlOptions = this.shardedOptions as { supportBigNumbers?: boolean; bigNumberStrings?: boolean };
      const bigintForm = this.dialect === 'mysql' && mysqlOptions.supportBigNumbers !== false && mysqlOptions.bigNumberStrings !== false ? 'text' : 'number';
      this.engineSettings = { ...settings, coalesce, logPhysical, routing: this.routerRuntime?.routing, bigintForm, indexMetrics: this.rules.globalIndexes.length > 0 ? this.indexMetrics : undefined };
      this.engine = new ShardingEngine(this.rules, this.targets, this.dialect, this.engineSettings);
      if (current) this.engineVersions.set(this.engine, current.version);
      // Read through `this`: a newer topology version swaps the engine (and its plan cache).
      this.routerRuntime?.router.metrics.readPlanCache(() => this.requireEngine().planCacheStats);
      Object.assign(this, { isInitialized: true });
      // Before any schema change: a prepared branch left by a dead process holds its rows' locks.
      const transactions = await startCrossServerTransactions(this.dialect, topology, this.serverPools, this.shardedOptions.sharding?.transactions, (level, message) => this.logger.log(level, message));
      this.xa = transactions.xa;
      this.protocol = transactions.protocol;
      if (this.shardedOptions.dropSchema) {
        await this.dropDatabase();
        await this.xa?.ensureLogs();
      }
      if (this.shardedOptions.migrationsRun) await this.runMigrations({ transaction: this.shardedOptions.migrationsTransactionMode });
      if (this.shardedOptions.synchronize) await this.synchronize();
      await this.startIndexBuilds();
      // Last, so that dropSchema and synchronize cannot remove the worker-id lease table under it.
      this.globalKeys = await keys?.start(this.shardSources[0]!);
      if (this.globalKeys) this.subscribers.unshift(this.globalKeys.subscriber);
      // Last: heartbeats, lag checks and load sampling run while the data source is open.
      await this.routerRuntime?.start();
      if (current) {
        this.topologyRuntime = new TopologyRuntime(this.topologyStore!, this.topologySettings!, current, (document) => this.adoptTopology(document), (message) => this.logger.log('warn', message));
        await this.topologyRuntime.start();
      }
    } catch (error) {
      Object.assign(this, { isInitialized: false });
      this.engine = undefined;
      await this.closeTopologyStore().catch(() => undefined);
      await this.xa?.stop().catch(() => undefined);
      this.xa = undefined;
      await this.closeShards();
      throw error;
    }
    return this;
  }

  /**
   * Creates the schema on every shard: sharded and broadcast tables everywhere, unsharded
   * tables on the default shard only; a table-per-shard layout's every physical table.
   */
  override async synchronize(dropBeforeSync = false): Promise<void> {
    this.requireEngine();
    if (dropBeforeSync) await this.dropDatabase();
    const layoutOf = (m: EntityMetadata) => this.rules!.ruleOf(m.tableName)?.shardKey?.layout;
    await this.loggingShardQueries(() => Promise.all(this.shardSources.map(async (ds, index) => {
      const keep = this.entityMetadatas.filter((m) => index === 0 || this.rules!.distributionOf(m.tableName) !== 'unsharded');
      const own = ds.entityMetadatas.filter((m) => keep.some((k) => k.tableName === m.tableName));
      Object.assign(ds, { entityMetadatas: own, entityMetadatasMap: new Map(own.map((m) => [m.target, m])) });
      try {
        // The schema builder sees each physical table of a layout as an entity of its own, for the sync only.
        Object.assign(ds, { entityMetadatas: physicalMetadatas(own, layoutOf, (t, schema, database) => ds.driver.buildTableName(t, schema, database)) });
        await ds.synchronize();
        const database = this.currentTopology?.shards[index]?.database;
        if (this.dialect === 'mysql' && database !== undefined) await partitionTables(ds, database, this.keyPartitioning);
      } catch (cause) {
        throw new ShardConnectionError(`Schema synchronization failed on shard ${this.shardNames[index]}: ${(cause as Error).message}`, {
          shard: this.shardNames[index],
          cause,
        });
      } finally {
        Object.assign(ds, { entityMetadatas: own });
      }
    })));
  }

  /** Drops every table on every shard. */
  override async dropDatabase(): Promise<void> {
    await this.loggingShardQueries(() => Promise.all(this.shardSources.map((ds) => ds.dropDatabase())));
  }

  /**
   * Runs schema work that goes through the shards' own runners with their statements logged
   * (as a plain DataSource logs its synchronize): there is no logical statement to log instead.
   */
  private async loggingShardQueries<T>(work: () => Promise<T>): Promise<T> {
    for (const logger of this.shardLoggers) logger.forwardQueries = true;
    try {
      return await work();
    } finally {
      for (const logger of this.shardLoggers) logger.forwardQueries = false;
    }
  }

  /**
   * The Snowflake generator of `sharding.keyGenerator`, e.g. for an id needed before the insert
   * (a parent's id for its co-located children) or for raw SQL.
   */
  get keyGenerator(): KeyGenerator {
    if (!this.globalKeys) {
      throw new ShardingConfigError(this.isInitialized ? 'No key generator: set sharding.keyGenerator ({ workerId } or { workerId: \'lease\' }).' : 'The ShardedDataSource is not initialised; call initialize() first.');
    }
    return this.globalKeys.generator;
  }

  /**
   * The shared topology (with `sharding.topology`): the version routed by, its document, and
   * `refresh()` / `onChange()`. See README, "Online resharding".
   */
  get topology(): TopologyView {
    const runtime = this.topologyRuntime;
    if (!runtime) {
      throw new ShardingConfigError(this.isInitialized ? 'No topology store: set sharding.topology to share a versioned topology.' : 'The ShardedDataSource is not initialised; call initialize() first.');
    }
    return {
      get version() {
        return runtime.version;
      },
      get document() {
        return runtime.document;
      },
      refresh: () => runtime.refresh(),
      onChange: (listener) => runtime.onChange(listener),
    };
  }

  /**
   * Publishes `document` as the next topology version (its `version` must be the current one + 1)
   * and adopts it. Refused with `TopologyDocumentError` unless every bucket belongs to exactly one
   * listed shard and every shard is on a server of this data source; `TopologyConflictError` when
   * another process published that version first.
   */
  async publishTopology(document: TopologyDocument, comment?: string): Promise<void> {
    const store = this.topologyStore;
    if (!store || !this.topologyRuntime) throw new ShardingConfigError('No topology store: set sharding.topology to publish topology versions.');
    const servers = this.dialect === 'sqlite' ? document.shards?.map((s) => s.name) : this.layout!.topology.servers.map((s) => s.name);
    validateTopologyDocument(document, { servers, previous: this.topologyRuntime.document });
    // Checks that this data source can open every shard of it before anyone routes by it.
    this.topologyOf(document);
    await store.publish(document, comment, servers);
    await this.topologyRuntime.refresh();
  }

  /** Closes every shard connection (after releasing a leased worker id). */
  override async destroy(): Promise<void> {
    await this.closeTopologyStore();
    await this.globalKeys?.stop();
    this.globalKeys = undefined;
    await this.xa?.stop();
    this.xa = undefined;
    this.protocol = undefined;
    await this.closeShards();
    this.engine = undefined;
    this.sqliteRunner = undefined;
    Object.assign(this, { isInitialized: false });
  }

  /** Opens the topology store of `sharding.topology` and reads (or, when empty, publishes) its current version. */
  private async openTopologyStore(): Promise<{ version: number; document: TopologyDocument } | undefined> {
    const settings = this.topologySettings;
    if (!settings) return undefined;
    const configured = this.layout!.topology;
    const source = storeSource(settings, configured);
    this.storeDataSource = source;
    try {
      await source.initialize();
      const store = new TopologyStore(source, this.dialect, settings.dialect === 'mysql' ? settings.database : undefined);
      await store.ensureTables();
      const current = (await store.current()) ?? (await store.publishInitial(initialDocument(configured, declaredBucketCount(this.shardedOptions.entities))));
      this.topologyStore = store;
      return current;
    } catch (error) {
      await this.closeTopologyStore().catch(() => undefined);
      if (error instanceof ShardingError) throw error;
      throw new ShardConnectionError(`Could not read the topology store: ${(error as Error)?.message ?? String(error)}`, { cause: error });
    }
  }

  private async closeTopologyStore(): Promise<void> {
    const runtime = this.topologyRuntime;
    const source = this.storeDataSource;
    this.topologyRuntime = undefined;
    this.topologyStore = undefined;
    this.storeDataSource = undefined;
    try {
      await runtime?.stop();
    } finally {
      if (source?.isInitialized) await source.destroy();
    }
  }

  /** The servers and shards `document` places, on the servers this data source opened. */
  private topologyOf(document: TopologyDocument): Topology {
    const configured = this.layout!.topology;
    const entries = shardEntriesOf(document, this.shardedOptions, configured, this.dialect);
    const resolved = resolveLayout({ ...this.shardedOptions, shards: entries } as unknown as ShardedDataSourceOptions, this.dialect).topology;
    if (this.dialect === 'sqlite') return resolved;
    // Server indexes are those of the configuration (whose servers are the ones opened).
    const shards = resolved.shards.map((shard) => ({ ...shard, server: configured.servers.findIndex((s) => s.name === resolved.servers[shard.server]!.name) }));
    const missing = shards.find((shard) => shard.server < 0);
    if (missing) throw new ShardingConfigError(`Topology version ${document.version}: shard "${missing.name}" is on a server this data source did not open; add it to \`servers\`.`, { shard: missing.name });
    return { servers: configured.servers, shards };
  }

  private targetsOf(topology: Topology, sources: readonly DataSource[]): ShardTarget[] {
    return sources.map((ds, i) => {
      const shard = topology.shards[i]!;
      return this.dialect === 'mysql'
        ? serverShardTarget(shard.name, i, shard.database!, this.serverPools[shard.server]!, this.serverSources[shard.server]!, ds, this.routerRuntime?.nodes[shard.server])
        : dataSourceTarget(shard.name, i, ds);
    });
  }

  /**
   * Swaps in the routing state of a newer topology version: opens the shards it adds, rebuilds
   * the rules (its bucket map), the targets and the engine (a fresh plan cache: no plan of an
   * older version is used again). Statements already running finish on the old engine; a
   * transaction keeps the engine it began with (the fence refuses what it would misplace).
   */
  private async adoptTopology(document: TopologyDocument): Promise<void> {
    const topology = this.topologyOf(document);
    const sources: DataSource[] = [];
    for (const shard of topology.shards) sources.push(this.openedShards.get(shard.name) ?? (await this.openShard(shard)));
    const governed = governedBy(document);
    const names = topology.shards.map((s) => s.name);
    const base = resolveShardingRules(this.entityMetadatas, names, (m, p) => this.normalizedTypeOf(m, p), this.shardedOptions.sharding?.tables, governed);
    const rules = withLookupTables(base, this.entityMetadatas, (m, p) => this.normalizedTypeOf(m, p), this.dialect, governed);
    const targets = this.targetsOf(topology, sources);
    const engine = new ShardingEngine(rules, targets, this.dialect, this.engineSettings!);
    // An index still being built stays write-only under the new version: reads must not use it yet.
    for (const table of this.engine?.writeOnlyLookups ?? []) engine.setWriteOnly(table, true);
    this.engineVersions.set(engine, document.version);
    // One synchronous swap: every statement from here on plans with the new state.
    this.currentTopology = topology;
    this.shardSources = sources;
    this.rules = rules;
    this.targets = targets;
    this.engine = engine;
  }

  /** Opens the DataSource of a shard a newer topology added (MySQL: on its server's pool). */
  private async openShard(shard: Topology['shards'][number]): Promise<DataSource> {
    const logger = new ShardLogger(() => this.logger, shard.name);
    const ds = new DataSource({ ...revealPassword(shard.options), ...SHARD_ONLY, logger } as unknown as DataSourceOptions);
    if (this.dialect === 'mysql') {
      const view = this.serverPools[shard.server]!.databaseView(shard.database!);
      Object.assign(ds.driver, { createPool: async () => view });
    }
    await initializeAll([ds], () => ({ label: `shard ${shard.name} (topology)`, shard: shard.name }));
    await registerLookupTables(ds, this.rules!.globalIndexes);
    this.shardLoggers.push(logger);
    this.openedShards.set(shard.name, ds);
    return ds;
  }

  private get dialect(): SqlDialect {
    return this.shardedOptions.type === 'better-sqlite3' ? 'sqlite' : 'mysql';
  }

  private async closeShards(): Promise<void> {
    // The router first (its monitors and the replicas' pools), then the shards: their DataSources only borrow their server's pool.
    const runtime = this.routerRuntime;
    this.routerRuntime = undefined;
    await runtime?.close().catch(() => undefined);
    const opened = new Set([...this.shardSources, ...this.openedShards.values()]);
    const shardResults = await Promise.allSettled([...opened].filter((ds) => ds.isInitialized).map((ds) => ds.destroy()));
    const serverResults = await Promise.allSettled(this.serverSources.filter((ds) => ds.isInitialized).map((ds) => ds.destroy()));
    this.shardSources = [];
    this.openedShards = new Map();
    this.currentTopology = undefined;
    this.serverSources = [];
    this.serverPools = [];
    this.targets = [];
    const failed = [...shardResults, ...serverResults].find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
    if (failed) throw new ShardConnectionError(`Closing a shard failed: ${(failed.reason as Error)?.message}`, { cause: failed.reason });
  }

  /** Version-dependent driver features (RETURNING, CTEs) as detected on the default shard. */
  private copyDriverCapabilities(defaultShard: DataSource): void {
    const from = defaultShard.driver as unknown as Record<string, unknown>;
    const to = this.driver as unknown as Record<string, unknown>;
    for (const key of ['version', '_isReturningSqlSupported', 'cteCapabilities', 'uuidColumnTypeSuported']) {
      if (key in from) to[key] = from[key];
    }
  }

  private normalizedTypeOf(metadata: EntityMetadata, propertyName: string): string {
    const column = metadata.columns.find((c) => c.propertyName === propertyName);
    if (!column) return '';
    return String(this.driver.normalizeType(column));
  }

  private requireEngine(): ShardingEngine {
    if (!this.engine) throw new ShardingConfigError('The ShardedDataSource is not initialised; call initialize() first.');
    return this.engine;
  }

  private requireRules(): ShardingRules {
    if (!this.rules) throw new ShardingConfigError('The ShardedDataSource is not initialised; call initialize() first.');
    return this.rules;
  }
}

/** The placement a topology version gives every entity the store governs. */
function governedBy(document: TopologyDocument): GovernedPlacement {
  return { bucketCount: document.bucketCount, bucketMap: document.bucketMap };
}

function withoutName(shard: ShardConnectionOptions): Record<string, unknown> {
  const { name: _name, ...rest } = shard as ShardConnectionOptions & Record<string, unknown>;
  return rest;
}


/** Shard DataSources initialised at once: each asks its server for its version, over the shared pool. */
const SHARDS_INITIALIZED_AT_ONCE = 16;

/**
 * Initialises DataSources, `atOnce` at a time; on any failure closes those that did connect
 * and throws one `ShardConnectionError` naming every one that failed.
 */
/** Most shards on one server. */
function widestServer(topology: Topology): number {
  const counts = new Array<number>(topology.servers.length).fill(0);
  for (const shard of topology.shards) counts[shard.server] = (counts[shard.server] ?? 0) + 1;
  return Math.max(0, ...counts);
}

/** Every shard's database exists on its server (one query per server), else initialize() fails naming the shards. */
async function checkDatabasesExist(topology: Topology, pools: readonly ServerPool[]): Promise<void> {
  const missing: { shard: string; database: string; server: string }[] = [];
  await Promise.all(
    topology.servers.map(async (server, s) => {
      const shards = topology.shards.filter((shard) => shard.server === s);
      const absent = new Set(await missingDatabases(pools[s]!, shards.map((shard) => shard.database!)));
      for (const shard of shards) if (absent.has(shard.database!)) missing.push({ shard: shard.name, database: shard.database!, server: server.name });
    }),
  );
  if (missing.length === 0) return;
  const first = missing[0]!;
  throw new ShardConnectionError(`Could not connect ${missing.map((m) => `shard ${m.shard}`).join(', ')}: unknown database ${missing.map((m) => `'${m.database}' (server ${m.server})`).join(', ')}. Create it first: CREATE DATABASE \`${first.database}\`.`, { shard: first.shard });
}

async function initializeAll(sources: readonly DataSource[], nameOf: (index: number) => { readonly label: string; readonly shard: string }, atOnce = Infinity): Promise<void> {
  const failed: { index: number; reason: unknown }[] = [];
  const queue = new PQueue({ concurrency: atOnce });
  await Promise.all(sources.map((ds, index) => queue.add(() => ds.initialize().then(() => undefined, (reason: unknown) => void failed.push({ index, reason })))));
  if (failed.length === 0) return;
  await Promise.allSettled(sources.filter((ds) => ds.isInitialized).map((ds) => ds.destroy()));
  failed.sort((a, b) => a.index - b.index);
  const first = failed[0]!;
  const reason = first.reason as Error;
  throw new ShardConnectionError(`Could not connect ${failed.map((f) => nameOf(f.index).label).join(', ')}: ${reason?.message ?? String(reason)}`, {
    shard: nameOf(first.index).shard,
    cause: reason,
  });
}
