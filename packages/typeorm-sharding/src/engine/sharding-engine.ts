import type { QueryResult } from 'typeorm';
import { ShardingInternalError, UnreadableStatementError, UnsupportedShardingError } from '../errors/index.js';
import { executeInOrder } from '../execute/execute-in-order.js';
import { executeStatements, type ExecutorSettings } from '../execute/executor.js';
import { shardFailure } from '../execute/shard-failure.js';
import type { ShardTarget } from '../execute/shard-target.js';
import { shardsHolding } from '../execute/shards-holding.js';
import { streamStatements } from '../execute/stream-statements.js';
import { buildMerge, cappedInputsProven, collectRows, concatBuffered, createRowComparator, type MergeSpec, type Row, type SortKey } from '../merge/index.js';
import { locatePage } from '../merge/locate-page.js';
import { ParameterizeCache, type ParameterizedSql, type SqlDialect } from '../parameterize/index.js';
import { analyze } from '../plan/analyze.js';
import { PlanCache, type PlanCacheStats } from '../plan/plan-cache.js';
import type { PhysicalStatement } from '../rewrite/physical-statement.js';
import { partitionOf, placeOf, type ShardingRules } from '../rules/index.js';
import type { ShardSession } from '../session/shard-session.js';
import { commitsImplicitly } from '../session/implicit-commit.js';
import { conflictClausesOf } from '../plan/write/conflict-clause.js';
import { insertHeadOf } from '../plan/write/insert-head.js';
import { indexedWrite, LookupReads, lookupSiteOf, lookupValuesOf, maintainIndexes, OwnerMemory, ownerShardsOf, type LookupSite } from '../indexes/index.js';
import type { Plan } from '../plan/plan.js';
import { copiesResult } from './copies-result.js';
import { asLogicalError, withLogicalErrors } from './logical-error.js';
import { readingExactValues, statementsOf, withStatementsOf, type PhysicalPlan, type PhysicalRead, type PhysicalWrites } from './physical-plan.js';
import { PhysicalPlanner, type EngineSettings } from './physical-planner.js';
import { rowsResult, writesResult } from './query-result.js';
import { explainCompound, runCompound, type CompoundHost } from './run-compound.js';
import { explainPulled, runPulled, withSubqueryValues, type PulledRun } from './run-pulled.js';

export type { EngineSettings } from './physical-planner.js';

/** What `explain()` returns for one physical statement. */
export interface ExplainedStatement {
  readonly shard: string;
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /** What the statement depends on, when it is not known yet (a subquery's result): see `explainPulled`. */
  readonly note?: string;
  /** A coalesced statement: the shards whose statements it carries (`shard` is the first). */
  readonly shards?: readonly string[];
}

/**
 * The pipeline of DESIGN.md §2 wired together: parameterize → plan cache → physical plan
 * (route, rewrite, merge binding, coalescing: `physical-planner.ts`) → execute → merge. One
 * engine per ShardedDataSource; stateless per query apart from its caches, so it is shared by
 * every QueryRunner.
 */
export class ShardingEngine {
  private readonly plans: PlanCache;
  private readonly texts: ParameterizeCache;
  private readonly planner: PhysicalPlanner;
  private readonly executor: ExecutorSettings;
  /** UNION / EXCEPT / INTERSECT: each SELECT is planned as a logical statement of its own (see run-compound.ts). */
  private readonly compound: CompoundHost;
  /** Per SELECT shape: where its WHERE pins a globally indexed column (null: nowhere). */
  private lookupSites = new WeakMap<Plan, LookupSite | null>();
  /** Lookup tables of indexes being built: maintained by every write, used by no read. */
  private readonly writeOnly = new Set<string>();
  /** Plans whose original text the default shard accepted (`SelectPlan.checkOriginal`). */
  private readonly checked = new WeakSet<object>();
  /** The lookup reads' statements, written without the planner. */
  private readonly lookupReads: LookupReads;
  /** Owners that lookups of unique indexes found, read first next time (see `OwnerMemory`). */
  private readonly owners: OwnerMemory;

  constructor(
    readonly rules: ShardingRules,
    readonly targets: readonly ShardTarget[],
    readonly dialect: SqlDialect,
    readonly settings: EngineSettings,
  ) {
    this.plans = new PlanCache(settings.planCacheSize);
    this.texts = new ParameterizeCache(dialect);
    this.planner = new PhysicalPlanner(rules, targets, dialect, settings);
    const qualified = dialect === 'mysql' && targets[0]?.database !== undefined;
    this.lookupReads = new LookupReads(rules, dialect, {
      shardCount: targets.length,
      databaseOf: (shard) => (qualified ? targets[shard]!.database : undefined),
      coalesce: qualified && settings.coalesce ? { serverOf: (shard) => targets[shard]!.server, maxBranches: settings.coalesce.maxBranches } : undefined,
    });
    this.owners = new OwnerMemory(settings.rememberedOwners ?? 0);
    this.executor = { concurrency: settings.concurrency, globalQueue: settings.globalQueue, onPhysicalQuery: settings.onPhysicalQuery, logPhysical: settings.logPhysical };
    this.compound = {
      dialect,
      // Neither qualified nor coalesced: the compound appends its key columns to each shard's
      // statement, and runs the whole compound as written when every SELECT reaches one shard.
      branch: (sql, parameters) => {
        const work = this.plan(sql, parameters, false);
        if (work.kind === 'pulled') {
          throw new UnsupportedShardingError('explain() of a compound SELECT one of whose SELECTs holds a subquery over sharded tables: that SELECT is planned with the subquery\'s values, known only when it runs.', { sql });
        }
        if (work.kind !== 'no-rows' && work.kind !== 'one' && work.kind !== 'merged') throw new ShardingInternalError(`a SELECT of a compound was planned as ${work.kind}`, { sql });
        return work;
      },
      withSubqueryValues: async (sql, parameters, session) => {
        const work = this.plan(sql, parameters);
        if (work.kind !== 'pulled') return { sql, parameters };
        return withSubqueryValues(work.plan, work.p, this.pulledRun(session));
      },
      execute: (statements, session) => executeStatements(statements, this.targets, session, this.executor),
    };
  }

  /** What running subqueries first needs: their statements run on `session`. */
  private pulledRun(session: ShardSession): PulledRun {
    return { dialect: this.dialect, maxValues: this.settings.maxSubqueryValues ?? 10_000, run: (s, ps, e) => this.run(s, ps, session, e) };
  }

  /** The lookup tables that are write-only now (a newer engine of a topology version keeps them so). */
  get writeOnlyLookups(): readonly string[] {
    return [...this.writeOnly];
  }

  /**
   * Makes a global index write-only (its build is not done: reads scatter) or readable again;
   * the plans' lookup sites are worked out again.
   */
  setWriteOnly(lookupTable: string, writeOnly: boolean): void {
    if (writeOnly) this.writeOnly.add(lookupTable);
    else this.writeOnly.delete(lookupTable);
    this.lookupSites = new WeakMap();
  }

  /** Plan-cache counters. */
  get planCacheStats(): PlanCacheStats {
    return this.plans.stats;
  }

  /**
   * Runs one logical statement and returns what the driver's own runner would have returned;
   * a shard's failure is reported for this logical statement (see `asLogicalError`).
   */
  async query(sql: string, parameters: readonly unknown[] | undefined, session: ShardSession): Promise<QueryResult> {
    try {
      return await session.serially(() => this.run(sql, parameters, session));
    } catch (error) {
      throw asLogicalError(error, sql, parameters, this.dialect);
    }
  }

  /**
   * `exact`: values read as stored (SQLite INTEGER as bigint, MySQL dates as the server's text), for a subquery whose values are written back.
   * `maintained`: a write whose global indexes are taken care of (the lookup rows are written beside it).
   */
  private async run(sql: string, parameters: readonly unknown[] | undefined, session: ShardSession, exact = false, maintained = false): Promise<QueryResult> {
    // Parameterized once here when global indexes need it first (a write to maintain, a read to look up).
    const p = !maintained && this.rules.globalIndexes.length > 0 ? this.texts.parameterize(sql, parameters ?? []) : undefined;
    if (p) {
      const indexed = indexedWrite(p, this.rules, this.dialect, (p) => this.plans.getOrCreate(p.key, () => analyze(p, this.rules, this.dialect)));
      if (indexed) {
        return maintainIndexes(
          indexed.p,
          indexed.plan,
          indexed.indexes,
          {
            dialect: this.dialect,
            run: (s, ps) => this.run(s, ps, session, false, true),
            atomically: (work) => session.atomically(work),
            runIndexed: (s, ps) => this.run(s, ps, session),
            readExact: (s, ps) => this.run(s, ps, session, true, true),
            isWriteOnly: (g) => this.writeOnly.has(g.lookupTable),
            inTransaction: () => session.inTransaction,
          },
          indexed.rule,
        );
      }
    }
    const lookup = p ? this.lookupOf(p) : undefined;
    if (lookup === undefined) return this.runPlanned(sql, parameters, session, exact, undefined, p);
    const remembered = session.inTransaction ? undefined : this.owners.keyOf(lookup.site, lookup.values);
    if (remembered !== undefined) {
      const owner = this.owners.ownerOf(remembered);
      if (owner !== undefined) {
        // A guess the read checks (see `OwnerMemory`): a row proves it, no row sends the read through the lookup table.
        const result = await this.runPlanned(sql, parameters, session, exact, new Set([this.shardOfOwner(lookup.site, owner)]), p);
        const metrics = this.settings.indexMetrics;
        if ((result.records?.length ?? 0) > 0) {
          metrics?.rememberedHits.inc({ index: lookup.site.index.lookupTable });
          return result;
        }
        metrics?.rememberedStale.inc({ index: lookup.site.index.lookupTable });
        this.owners.forget(remembered);
      }
    }
    const found = await this.lookedUp(lookup, session);
    const result = await this.runPlanned(sql, parameters, session, exact, found.shards, p);
    // Remembered once the owner's read found its row: a dangling entry is never remembered.
    if (remembered !== undefined && (result.records?.length ?? 0) > 0) this.owners.remember(remembered, lookup.site, lookup.values, found.rows);
    return result;
  }

  /** `run` after the lookup routing: the statement's plan, run (`onlyShards`: a SELECT reaches only these shards). */
  private async runPlanned(sql: string, parameters: readonly unknown[] | undefined, session: ShardSession, exact: boolean, onlyShards?: ReadonlySet<number>, p?: ParameterizedSql): Promise<QueryResult> {
    const work = await this.checkedPlan(sql, parameters ?? [], onlyShards, p);
    switch (work.kind) {
      case 'pulled':
        return runPulled(work.plan, work.p, this.pulledRun(session), exact);
      case 'session':
        await session.control({ sql, parameters: parameters ?? [] }, work.control);
        return rowsResult([]);
    }
    // As on one MySQL server, DDL commits the open transaction first (an XA branch would refuse it).
    if (this.dialect === 'mysql' && session.inTransaction && commitsImplicitly(this.texts.parameterize(sql, parameters ?? []).verb, sql)) await session.commitImplicitly();
    switch (work.kind) {
      case 'compound':
        return runCompound(work.plan, work.p, this.compound, session);
      case 'where-exists': {
        const holding = (name: string, statement: PhysicalStatement) => shardsHolding(work.plan.object, name, statement, this.dialect, this.targets, session, this.executor);
        const statements = await holding(work.plan.name, work.statement);
        // A laid-out table's objects are named per physical table (`IDX_a_2`).
        if (statements.length === 0) for (const other of work.perTable ?? []) statements.push(...(await holding(other.name, other.statement)));
        return writesResult(await executeInOrder(statements.length > 0 ? statements : [work.statement], this.targets, session, this.executor), this.dialect);
      }
      case 'writes':
        return this.write(work, session);
      case 'no-rows':
      case 'one':
      case 'merged':
        return this.read(exact ? readingExactValues(work, this.dialect) : work, session);
    }
  }

  private async read(read: PhysicalRead, session: ShardSession): Promise<QueryResult> {
    switch (read.kind) {
      case 'no-rows':
        return rowsResult([]);
      case 'one':
        return (await executeStatements([read.statement], this.targets, session, this.executor))[0]!;
      case 'merged': {
        if (read.window) {
          const windows = await executeStatements(read.statements, this.targets, session, this.executor);
          const located = locatePage(windows.map((r) => (r.records ?? []) as Row[]), read.window.shape, createRowComparator(orderOf(read.merge)));
          if (located.kind === 'unproven') return this.read(read.window.fallback, session);
          const merge: MergeSpec = { ...read.merge, limit: { offset: located.skip, count: read.window.shape.count } };
          return rowsResult(await collectRows(buildMerge(merge, located.inputs.map(arrayStream))));
        }
        if (read.capped) {
          const results = await executeStatements(read.statements, this.targets, session, this.executor);
          const inputs = results.map((r) => (r.records ?? []) as Row[]);
          if (!cappedInputsProven(inputs, read.capped.rows, read.capped.tag)) return this.read(read.capped.fallback, session);
          return rowsResult(await collectRows(buildMerge(read.merge, inputs.map(arrayStream))));
        }
        if (read.deep && this.canStream(read.statements, session)) {
          return rowsResult(await collectRows(buildMerge(read.merge, streamStatements(read.statements, this.targets, session, this.executor))));
        }
        const results = await executeStatements(read.statements, this.targets, session, this.executor);
        const parts = results.map((r) => (r.records ?? []) as Row[]);
        return rowsResult(concatBuffered(read.merge, parts) ?? (await collectRows(buildMerge(read.merge, parts.map(arrayStream)))));
      }
    }
  }

  private async write(work: PhysicalWrites, session: ShardSession): Promise<QueryResult> {
    if (work.statements.length === 0) return writesResult([], this.dialect);
    // A result that cannot be told exactly (rows an INSERT … RETURNING gave back whose order is
    // unknown) is made inside the atomic part: its refusal undoes the write. Diverging broadcast
    // copies are reported after it (the write stands; a transaction can roll it back).
    const run = async () => {
      const results = await (work.sequential ? executeInOrder(work.statements, this.targets, session, this.executor) : executeStatements(work.statements, this.targets, session, this.executor));
      return work.copies ? results : writesResult(results, this.dialect, work.rowsOf);
    };
    const done = work.atomic ? await session.atomically(run) : await run();
    if (!work.copies) return done as QueryResult;
    return copiesResult(done as QueryResult[], work.statements.map((st) => this.targets[st.shard]!.name), this.dialect, work.copies);
  }

  /**
   * Runs a logical SELECT as a stream of rows (TypeORM's `QueryBuilder.stream()`). On MySQL the
   * shards are streamed into the merge; elsewhere the merged rows are produced from the
   * buffered results.
   */
  async stream(sql: string, parameters: readonly unknown[] | undefined, session: ShardSession): Promise<AsyncIterable<Row>> {
    const work = this.plan(sql, parameters ?? []);
    if (work.kind === 'merged' && !work.window && !work.capped && this.dialect === 'mysql' && this.canStream(work.statements, session)) {
      return withLogicalErrors(buildMerge(work.merge, streamStatements(work.statements, this.targets, session, this.executor)), sql, parameters, this.dialect);
    }
    const result = await this.query(sql, parameters, session);
    return arrayStream((result.records ?? []) as Row[]);
  }

  /**
   * Streams stay open side by side while the merge reads them, each on its own connection. In a
   * transaction a server has one connection: two statements for one server cannot stream at
   * once (the second would wait for the first to end, which waits for the merge), so they are
   * read in full instead; likewise outside one when a server would need more connections than
   * its pool has.
   */
  private canStream(statements: readonly PhysicalStatement[], session: ShardSession): boolean {
    // A stream reads values as the driver types them, not as the server's text.
    if (statements.some((s) => s.serverText === true)) return false;
    const perServer = new Map<string, number>();
    for (const s of statements) {
      const server = this.targets[s.shard]!.server;
      perServer.set(server, (perServer.get(server) ?? 0) + 1);
    }
    if (session.inTransaction) return perServer.size === statements.length;
    // Outside a transaction each stream holds a connection of its own until the merge has read
    // its first row, and the merge waits for every stream's: more streams than the server's pool
    // has connections would wait for each other forever. With the query router the connections
    // are a node's, taken inside the router: one stream per server there.
    for (const s of statements) {
      const target = this.targets[s.shard]!;
      const limit = target.nodes ? 1 : (target.connectionLimit?.() ?? Infinity);
      if (perServer.get(target.server)! > limit) return false;
    }
    return true;
  }

  /**
   * The plan of a statement; one the planner cannot read is first shown to the default shard,
   * so that a statement the database itself rejects (a typo) fails with the database's error,
   * as on one database, and only a valid one with `UnreadableStatementError`.
   */
  private async checkedPlan(sql: string, parameters: readonly unknown[], onlyShards?: ReadonlySet<number>, p?: ParameterizedSql): Promise<PhysicalPlan> {
    try {
      const work = this.plan(sql, parameters, true, onlyShards, p);
      // Once per shape: the database's verdict on a text the shards do not see as written.
      if (work.kind === 'merged' && work.checkOriginal && !this.checked.has(work.checkOriginal)) {
        await this.check(sql, parameters);
        this.checked.add(work.checkOriginal);
      }
      return work;
    } catch (error) {
      if (!(error instanceof UnreadableStatementError)) throw error;
      await this.check(sql, parameters);
      throw error;
    }
  }

  /**
   * Shows `sql` to the default shard without running it (under a table-per-shard layout, as its
   * table 0 would run it); its rejection is the database's own error.
   */
  private async check(sql: string, parameters: readonly unknown[]): Promise<void> {
    const target = this.targets[0]!;
    try {
      await target.check(this.planner.checkedText(this.texts.parameterize(sql, parameters)));
    } catch (rejected) {
      throw shardFailure(rejected, { shard: target.name, physicalQuery: sql, physicalParameters: parameters });
    }
  }

  /** The physical statements a logical statement would run, without running them. */
  explain(sql: string, parameters: readonly unknown[] = []): ExplainedStatement[] {
    if (this.rules.globalIndexes.length > 0) {
      const p = this.texts.parameterize(sql, parameters);
      const table = p.verb === 'INSERT' || p.verb === 'REPLACE' ? insertHeadOf(sql, this.dialect).table : undefined;
      if (table !== undefined && this.rules.globalIndexesOf(table).length > 0 && conflictClausesOf(sql, this.dialect).length > 0) {
        throw new UnsupportedShardingError(
          `explain() of an upsert into "${table}", a table with a global index: it runs row by row (through the lookup table), and its statements depend on what the lookups find (insert, update in place or move). Run it with onPhysicalQuery to see them.`,
          { sql },
        );
      }
    }
    const planned = this.plan(sql, parameters);
    const named = (s: PhysicalStatement): ExplainedStatement =>
      s.branches
        ? { shard: this.targets[s.shard]!.name, sql: s.sql, parameters: s.parameters, shards: [...new Set(s.branches.map((b) => this.targets[b.shard]!.name))] }
        : { shard: this.targets[s.shard]!.name, sql: s.sql, parameters: s.parameters };
    switch (planned.kind) {
      case 'session':
        return [];
      // Which shards hold the object is known only at run time: every shard is a candidate.
      case 'where-exists':
        return this.targets.map((t) => ({ shard: t.name, sql, parameters }));
      case 'pulled':
        return explainPulled(planned.plan, planned.p, this.dialect, (s, ps) => this.explain(s, ps), this.targets.map((t) => t.name));
      case 'compound':
        return explainCompound(planned.plan, planned.p, this.compound).map(named);
      case 'writes':
        return planned.statements.map(named);
      case 'no-rows':
      case 'one':
      case 'merged':
        return statementsOf(planned).map(named);
    }
  }

  /**
   * A SELECT that pins a globally indexed column (`WHERE email = ?`): its lookup site and the
   * values it asks; undefined for any other statement (and for one the planner cannot read:
   * `checkedPlan` reports it).
   */
  private lookupOf(p: ParameterizedSql): Lookup | undefined {
    if (p.verb !== 'SELECT') return undefined;
    let plan: Plan;
    try {
      plan = this.plans.getOrCreate(p.key, () => analyze(p, this.rules, this.dialect));
    } catch {
      return undefined;
    }
    if (plan.kind !== 'select') return undefined;
    let site = this.lookupSites.get(plan);
    if (site === undefined) this.lookupSites.set(plan, (site = lookupSiteOf(plan, p, this.rules, (g) => !this.writeOnly.has(g.lookupTable)) ?? null));
    if (site === null) return undefined;
    return { site, plan, p, values: lookupValuesOf(site, p) };
  }

  /**
   * The shards of a lookup's rows, read from the lookup table first (Vitess's lookup routing).
   * The lookup statement is written from the index (`indexes/lookup-read.ts`), not planned: it
   * is a plain read (no lock, no transaction of its own), and carries the user's statement's
   * routing (its hints, its shape: a locking read's lookup is read on the primary too).
   * Returns the lookup rows too (see `OwnerMemory.remember`).
   */
  private async lookedUp({ site, plan, p, values }: Lookup, session: ShardSession): Promise<{ shards: ReadonlySet<number>; rows: readonly Record<string, unknown>[] }> {
    // A column given only NULLs (or an empty IN) matches no row: nothing to look up, no shard to read.
    if (values.some((v) => v.length === 0)) return { shards: new Set(), rows: [] };
    const statements = this.lookupReads.statementsOf(site.index, values);
    const routing = this.settings.routing;
    const results = await executeStatements(routing === undefined ? statements : routing.attach(statements, p, plan), this.targets, session, this.executor);
    const rows = results.length === 1 ? ((results[0]!.records ?? []) as Record<string, unknown>[]) : results.flatMap((r) => (r.records ?? []) as Record<string, unknown>[]);
    const found = ownerShardsOf(site, values, rows, this.rules);
    const metrics = this.settings.indexMetrics;
    if (metrics) {
      if (found.hits > 0) metrics.lookupHits.inc({ index: site.index.lookupTable }, found.hits);
      if (found.misses > 0) metrics.lookupMisses.inc({ index: site.index.lookupTable }, found.misses);
    }
    return { shards: found.shards, rows };
  }

  /** The shard of the owner row whose shard key is `owner`, under the current rules. */
  private shardOfOwner(site: LookupSite, owner: unknown): number {
    const key = this.rules.ruleOf(site.index.table)!.shardKey!;
    return placeOf(key, partitionOf(key, owner)).shard;
  }

  /**
   * @param perServer qualify statements and coalesce a scattered read per server (see `PhysicalPlanner`)
   * @param onlyShards a SELECT reaches only these shards (see `lookedUp`)
   * @param given the statement parameterized already (see `run`)
   */
  private plan(sql: string, parameters: readonly unknown[], perServer = true, onlyShards?: ReadonlySet<number>, given?: ParameterizedSql): PhysicalPlan {
    const p = given ?? this.texts.parameterize(sql, parameters);
    const plan = this.plans.getOrCreate(p.key, () => analyze(p, this.rules, this.dialect));
    const physical = this.planner.physicalPlanOf(p, plan, perServer, onlyShards);
    // With the query router: each statement carries what the router decides its node on.
    const routing = this.settings.routing;
    return routing === undefined ? physical : withStatementsOf(physical, (statements) => routing.attach(statements, p, plan));
  }
}

/** A SELECT routed by a global index: where its values are, and the values of this statement. */
interface Lookup {
  readonly site: LookupSite;
  readonly plan: Plan;
  readonly p: ParameterizedSql;
  readonly values: unknown[][];
}

/** The sort keys of a windowed read's merge (always an ordered one: see `pageWindowOf`). */
function orderOf(merge: MergeSpec): readonly SortKey[] {
  if (merge.kind !== 'ordered') throw new ShardingInternalError('a page window over a merge without ORDER BY', { stage: 'merge' });
  return merge.orderBy;
}

async function* arrayStream(rows: readonly Row[]): AsyncIterable<Row> {
  yield* rows;
}
