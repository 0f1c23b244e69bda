import type PQueue from 'p-queue';
import type { QueryResult } from 'typeorm';
import type { PhysicalQueryEvent } from '../data-source/options.js';
import type { PhysicalQueryLog } from '../log/physical-query-log.js';
import { ShardingInternalError, UnreadableStatementError, UnsupportedShardingError } from '../errors/index.js';
import { shardFailure } from '../execute/shard-failure.js';
import { executeStatements, type ExecutorSettings } from '../execute/executor.js';
import { streamStatements } from '../execute/stream-statements.js';
import type { ShardTarget } from '../execute/shard-target.js';
import { buildMerge, collectRows, inputOrderOf, type MergeSpec, type Row } from '../merge/index.js';
import { ParameterizeCache, type ParameterizedSql, type SqlDialect } from '../parameterize/index.js';
import { analyze } from '../plan/analyze.js';
import type { CompoundPlan } from '../plan/compound-plan.js';
import { PlanCache, type PlanCacheStats } from '../plan/plan-cache.js';
import type { Plan, PulledSubqueriesPlan, SelectPlan, WhereExistsPlan, WritePlan } from '../plan/plan.js';
import { isDeepPage, paginationOf, rowsPerInput, type Pagination } from '../plan/pagination.js';
import { rewriteUnits, unitStatement, type Addressing } from '../rewrite/rewriter.js';
import { QualificationSites, type AddressShape } from '../rewrite/tokens/qualify.js';
import { coalesce } from '../rewrite/coalesce.js';
import type { PhysicalStatement } from '../rewrite/physical-statement.js';
import { checkKeyAssignment, routeByKey, type RouteSettings } from '../route/index.js';
import { schemaObjectProbe } from '../route/schema-object-probe.js';
import type { ShardingRules } from '../rules/index.js';
import type { ShardSession } from '../session/shard-session.js';
import { insertRowsOf } from '../write/insert-rows.js';
import { insertRowTokens } from '../write/rewrite-insert.js';
import { routeInsert } from '../write/route-insert.js';
import { bindMerge } from './bind-merge.js';
import { copiesResult, type CopiesStatement } from './copies-result.js';
import { asLogicalError, withLogicalErrors } from './logical-error.js';
import { rowsResult, writesResult } from './query-result.js';
import { explainPulled, runPulled, withSubqueryValues, type PulledRun } from './run-pulled.js';
import { explainCompound, runCompound, type CompoundHost } from './run-compound.js';

/** Resolved settings of the engine. */
export interface EngineSettings extends RouteSettings {
  /**
   * MySQL: the statements of a scattered read that go to shards of one server are sent as one
   * UNION ALL of at most `maxBranches` statements (see `rewrite/coalesce.ts`); undefined: one
   * statement per shard.
   */
  readonly coalesce?: { readonly maxBranches: number } | undefined;
  /** Scattered pages whose offset+count exceed this many rows are streamed from the shards (MySQL). */
  readonly streamThreshold?: number;
  /** Most distinct values an `IN (SELECT …)` run first may put into its statement. @default 10000 */
  readonly maxSubqueryValues?: number;
  readonly concurrency: number;
  readonly planCacheSize: number;
  readonly globalQueue: PQueue | undefined;
  readonly onPhysicalQuery: ((event: PhysicalQueryEvent) => void) | undefined;
  /** Logs physical statements through the data source's logger; undefined when they are not logged. */
  readonly logPhysical?: PhysicalQueryLog | undefined;
}

/**
 * Sort key types whose order MySQL applies to a UNION's result column exactly as the merge
 * compares them: numbers, dates, bytes, MariaDB UUIDs. Text weights are compared pad-aware by
 * the merge but byte-wise by the server (see `values/mysql-weight.ts`).
 */
const UNION_SORTABLE: ReadonlySet<string> = new Set(['numeric', 'date', 'binary', 'mariadb-uuid', 'mariadb-uuid-swap-all']);

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

/** The physical work of one logical statement. */
type Work =
  | { readonly kind: 'session'; readonly plan: Extract<Plan, { kind: 'session' }> }
  /** A read: `merge` is defined exactly when the rows come from several shards (several statements, or one coalesced). */
  | { readonly kind: 'rows'; readonly statements: readonly PhysicalStatement[]; readonly merge: MergeSpec | undefined; readonly plan?: SelectPlan; readonly page?: Pagination | undefined }
  | {
      readonly kind: 'writes';
      readonly statements: readonly PhysicalStatement[];
      readonly sequential: boolean;
      readonly copies?: CopiesStatement;
      /** INSERT: the VALUES rows each statement carries, so that returned rows come back in their order. */
      readonly rowsOf?: readonly (readonly number[])[];
    }
  | { readonly kind: 'where-exists'; readonly plan: WhereExistsPlan; readonly statement: PhysicalStatement }
  | { readonly kind: 'pulled'; readonly plan: PulledSubqueriesPlan; readonly p: ParameterizedSql }
  | { readonly kind: 'compound'; readonly plan: CompoundPlan; readonly p: ParameterizedSql };

/**
 * The pipeline of DESIGN.md §2 wired together: parameterize → plan cache → route → rewrite →
 * execute → merge. One engine per ShardedDataSource; stateless per query apart from the
 * plan cache, so it is shared by every QueryRunner.
 */
export class ShardingEngine {
  private readonly plans: PlanCache;
  private readonly texts: ParameterizeCache;
  private readonly executor: ExecutorSettings;
  /** UNION / EXCEPT / INTERSECT: each SELECT is planned as a logical statement of its own (see run-compound.ts). */
  private readonly compound: CompoundHost;
  /** Plans whose original text the default shard accepted (`SelectPlan.checkOriginal`). */
  private readonly checked = new WeakSet<object>();

  constructor(
    readonly rules: ShardingRules,
    readonly targets: readonly ShardTarget[],
    readonly dialect: SqlDialect,
    readonly settings: EngineSettings,
  ) {
    this.plans = new PlanCache(settings.planCacheSize);
    this.texts = new ParameterizeCache(dialect);
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
        if (work.kind !== 'rows') throw new ShardingInternalError(`a SELECT of a compound was planned as ${work.kind}`, { sql });
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
      return await this.run(sql, parameters, session);
    } catch (error) {
      throw asLogicalError(error, sql, parameters, this.dialect);
    }
  }

  /** `exact`: SQLite values read as stored (INTEGER as bigint), for a subquery whose values are written back. */
  private async run(sql: string, parameters: readonly unknown[] | undefined, session: ShardSession, exact = false): Promise<QueryResult> {
    let work = await this.checkedPlan(sql, parameters ?? []);
    if (work.kind === 'pulled') return runPulled(work.plan, work.p, this.pulledRun(session), exact);
    if (exact && this.dialect === 'sqlite' && work.kind === 'rows') {
      work = { ...work, statements: work.statements.map((st) => ({ ...st, exactIntegers: true })), merge: work.merge && { ...work.merge, integersAsNumbers: false } };
    }
    if (work.kind === 'session') {
      await session.control({ sql, parameters: parameters ?? [] }, work.plan.control);
      return rowsResult([]);
    }
    if (work.kind === 'compound') return runCompound(work.plan, work.p, this.compound, session);
    if (work.kind === 'where-exists') {
      return writesResult(await this.runSequentially(await this.shardsHolding(work, session), session), this.dialect);
    }
    if (work.statements.length === 0) return work.kind === 'rows' ? rowsResult([]) : writesResult([], this.dialect);
    if (work.kind === 'writes') {
      const results = work.sequential
        ? await this.runSequentially(work.statements, session)
        : await executeStatements(work.statements, this.targets, session, this.executor);
      return work.copies ? copiesResult(results, work.statements.map((st) => this.targets[st.shard]!.name), this.dialect, work.copies) : writesResult(results, this.dialect, work.rowsOf);
    }
    const { merge } = work;
    if (merge && this.shouldStream(work.page) && this.canStream(work.statements, session)) {
      const inputs = streamStatements(work.statements, this.targets, session, this.executor);
      return rowsResult(await collectRows(buildMerge(merge, inputs)));
    }
    const results = await executeStatements(work.statements, this.targets, session, this.executor);
    if (!merge) return results[0]!;
    const inputs = results.map((r) => arrayStream((r.records ?? []) as Row[]));
    return rowsResult(await collectRows(buildMerge(merge, inputs)));
  }

  /**
   * Runs a logical SELECT as a stream of rows (TypeORM's `QueryBuilder.stream()`). On MySQL the
   * shards are streamed into the merge; elsewhere the merged rows are produced from the
   * buffered results.
   */
  async stream(sql: string, parameters: readonly unknown[] | undefined, session: ShardSession): Promise<AsyncIterable<Row>> {
    const work = this.plan(sql, parameters ?? []);
    if (work.kind === 'rows' && work.merge && this.dialect === 'mysql' && this.canStream(work.statements, session)) {
      return withLogicalErrors(buildMerge(work.merge, streamStatements(work.statements, this.targets, session, this.executor)), sql, parameters, this.dialect);
    }
    const result = await this.query(sql, parameters, session);
    return arrayStream((result.records ?? []) as Row[]);
  }

  /**
   * Streams stay open side by side while the merge reads them, each on its own connection. In a
   * transaction a server has one connection: two statements for one server cannot stream at
   * once (the second would wait for the first to end, which waits for the merge), so they are
   * read in full instead.
   */
  private canStream(statements: readonly PhysicalStatement[], session: ShardSession): boolean {
    if (!session.inTransaction) return true;
    const servers = new Set(statements.map((s) => this.targets[s.shard]!.server));
    return servers.size === statements.length;
  }

  /**
   * Deep pages are streamed (MySQL): each shard is sent LIMIT offset+count and only a few
   * rows per shard are held while the merge skips the offset.
   */
  private shouldStream(page: Pagination | undefined): boolean {
    return this.dialect === 'mysql' && isDeepPage(page, this.settings.streamThreshold ?? 1000);
  }

  /**
   * The plan of a statement; one the planner cannot read is first shown to the default shard,
   * so that a statement the database itself rejects (a typo) fails with the database's error,
   * as on one database, and only a valid one with `UnreadableStatementError`.
   */
  private async checkedPlan(sql: string, parameters: readonly unknown[]): Promise<Work> {
    try {
      const work = this.plan(sql, parameters);
      // Once per shape: the database's verdict on a text the shards do not see as written.
      if (work.kind === 'rows' && work.plan?.checkOriginal && work.merge && !this.checked.has(work.plan)) {
        await this.check(sql, parameters);
        this.checked.add(work.plan);
      }
      return work;
    } catch (error) {
      if (!(error instanceof UnreadableStatementError)) throw error;
      await this.check(sql, parameters);
      throw error;
    }
  }

  /** Shows `sql` to the default shard without running it; its rejection is the database's own error. */
  private async check(sql: string, parameters: readonly unknown[]): Promise<void> {
    const target = this.targets[0]!;
    try {
      await target.check(sql);
    } catch (rejected) {
      throw shardFailure(rejected, { shard: target.name, physicalQuery: sql, physicalParameters: parameters });
    }
  }

  /** The physical statements a logical statement would run, without running them. */
  explain(sql: string, parameters: readonly unknown[] = []): ExplainedStatement[] {
    const planned = this.plan(sql, parameters);
    if (planned.kind === 'session') return [];
    // Which shards hold the object is known only at run time: every shard is a candidate.
    if (planned.kind === 'where-exists') return this.targets.map((t) => ({ shard: t.name, sql, parameters }));
    if (planned.kind === 'pulled') return explainPulled(planned.plan, planned.p, this.dialect, (s, ps) => this.explain(s, ps), this.targets.map((t) => t.name));
    if (planned.kind === 'compound') return explainCompound(planned.plan, planned.p, this.compound).map((s) => ({ shard: this.targets[s.shard]!.name, sql: s.sql, parameters: s.parameters }));
    return planned.statements.map((s) => ({ shard: this.targets[s.shard]!.name, sql: s.sql, parameters: s.parameters, ...(s.branches ? { shards: s.branches.map((b) => this.targets[b.shard]!.name) } : {}) }));
  }

  /** @param perServer qualify statements with their databases and send a scattered read's statements per server (`rewrite/coalesce.ts`) */
  private plan(sql: string, parameters: readonly unknown[], perServer = true): Work {
    const p = this.texts.parameterize(sql, parameters);
    const plan = this.plans.getOrCreate(p.key, () => analyze(p, this.rules, this.dialect));
    const same = (shard: number): PhysicalStatement => ({ shard, sql, parameters });
    switch (plan.kind) {
      case 'session':
        return { kind: 'session', plan };
      case 'default-shard':
        return { kind: 'rows', statements: [same(0)], merge: undefined };
      case 'all-shards':
        return { kind: 'writes', statements: this.targets.map((t) => same(t.index)), sequential: true, copies: plan.result === 'sum' ? undefined : { verb: p.verb, sql, check: plan.result === 'copies' } };
      case 'where-exists':
        return { kind: 'where-exists', plan, statement: same(0) };
      case 'pulled':
        return { kind: 'pulled', plan, p };
      case 'compound':
        return { kind: 'compound', plan, p };
      case 'insert': {
        const rule = this.rules.ruleOf(plan.table)!;
        const addressing = this.addressingOf(p, { kind: 'write' });
        const rows = insertRowsOf(p, this.dialect);
        const units = routeInsert(p, rows, plan.keyColumnIndex!, rule.shardKey!, plan.table);
        return { kind: 'writes', statements: units.map((u) => unitStatement(u.shard, p, insertRowTokens(p, rows, u), { addressing })), sequential: false, rowsOf: units.map((u) => u.rows) };
      }
      case 'write':
        return { kind: 'writes', statements: this.routeAndRewrite(p, plan, undefined, this.addressingOf(p, { kind: 'write' })), sequential: false };
      case 'select': {
        const addressing = perServer && plan.tableReferences !== undefined ? this.addressingOf(p, { kind: 'select', references: plan.tableReferences }) : undefined;
        const page = paginationOf(plan.limit, plan.pushLimit, p);
        const statements = this.routeAndRewrite(p, plan, page, addressing);
        const merge = statements.length > 1 ? bindMerge(plan, p, this.dialect, page) : undefined;
        if (!merge || !perServer) return { kind: 'rows', statements, merge, plan, page };
        return { kind: 'rows', ...this.coalesced(statements, merge, plan, page), plan, page };
      }
    }
  }

  private routeAndRewrite(p: ParameterizedSql, plan: SelectPlan | WritePlan, page: Pagination | undefined, addressing: Addressing | undefined): PhysicalStatement[] {
    const rule = this.rules.ruleOf(plan.table)!;
    if (plan.kind === 'write') checkKeyAssignment(plan, p, rule.shardKey!);
    const route = routeByKey(plan.condition, plan.prunableLists, p, rule.shardKey!, this.targets.length, this.settings);
    if (route.kind === 'nowhere') {
      // Nothing can match, but `SELECT COUNT(*) …` still answers one row (0, NULLs): any shard gives it.
      return plan.kind === 'select' && plan.globalAggregate ? [unitStatement(0, p, [], { addressing })] : [];
    }
    const scatter = route.units.length > 1;
    if (scatter && plan.kind === 'write' && plan.limited) {
      throw new UnsupportedShardingError(
        `${p.verb} with ORDER BY / LIMIT reaches ${new Set(route.units.map((u) => u.shard)).size} shards; its row limit cannot be applied across shards. Add a shard-key condition, or select the keys first.`,
        { sql: p.sql, stage: 'route' },
      );
    }
    if (scatter && plan.kind === 'select' && !plan.merge) {
      throw new UnsupportedShardingError(
        `This query needs a cross-shard merge that is not supported yet (${plan.unmergeable ?? 'unknown'}); it reaches ${new Set(route.units.map((u) => u.shard)).size} shards. Add a shard-key condition so it reaches one shard.`,
        { sql: p.sql, stage: 'merge' },
      );
    }
    const ctx = {
      p,
      dialect: this.dialect,
      scatter,
      limit: plan.kind === 'select' ? plan.limit : undefined,
      page,
      cutHaving: plan.kind === 'select' && plan.cutHaving,
      shardHaving: plan.kind === 'select' ? plan.shardHaving : undefined,
      derivedColumns: plan.kind === 'select' ? plan.derivedColumns : [],
      extraGroupBy: plan.kind === 'select' ? plan.extraGroupBy : [],
      itemAliases: plan.kind === 'select' ? plan.itemAliases : [],
      addressing,
      exactIntegers: scatter && plan.kind === 'select' && plan.exactIntegers,
    };
    return rewriteUnits(route.units, ctx);
  }

  /**
   * MySQL: where the statement's tables are to be named with each shard's database, when they
   * can all be found (see `rewrite/tokens/qualify.ts`); undefined on SQLite.
   */
  private addressingOf(p: ParameterizedSql, shape: AddressShape): Addressing | undefined {
    if (this.dialect !== 'mysql' || this.targets[0]?.database === undefined) return undefined;
    const sites = this.qualification.of(p, shape);
    return sites && { sites, databaseOf: this.databaseOf };
  }

  private readonly qualification = new QualificationSites((name) => this.rules.ruleOf(name) !== undefined);
  private readonly databaseOf = (shard: number): string => this.targets[shard]!.database!;

  /**
   * One round trip per server for a scattered read (see `rewrite/coalesce.ts`). When the merge
   * expects sorted inputs but a sort key is one the server cannot sort a UNION by as the merge
   * compares it (text weights of a PAD SPACE collation), the server's rows come unsorted and
   * the merge sorts them in memory.
   */
  private coalesced(statements: PhysicalStatement[], merge: MergeSpec, plan: SelectPlan, page: Pagination | undefined): { statements: PhysicalStatement[]; merge: MergeSpec } {
    const settings = this.settings.coalesce;
    // A deep page streams each shard's rows into the merge, which stops reading at the page's
    // end; one UNION ALL would make the server sort every shard's offset + count rows first.
    if (!settings || statements.length < 2 || !plan.unionSafe || this.shouldStream(page)) return { statements, merge };
    const order = inputOrderOf(merge);
    const sortable = order === undefined || order.every((k) => UNION_SORTABLE.has(k.type ?? 'auto'));
    const rows = page && rowsPerInput(page);
    const rowLimit = rows !== undefined && (order === undefined ? merge.kind === 'concat' : sortable) ? rows : undefined;
    const out = coalesce(statements, {
      serverOf: (shard) => this.targets[shard]!.server,
      maxBranches: settings.maxBranches,
      order: sortable ? order?.map((k) => ({ column: k.column, direction: k.direction })) : undefined,
      rowLimit,
    });
    const coalescedAny = out.some((s) => s.branches !== undefined);
    return { statements: out, merge: coalescedAny && !sortable && merge.kind === 'ordered' ? { ...merge, unsortedInputs: true } : merge };
  }

  /**
   * The statement of a `where-exists` plan for each shard that holds its object (asked with one
   * probe per shard), or for the default shard when none does, so that the database answers
   * as it would alone: its own "no such index" error, or nothing for `IF EXISTS`.
   */
  private async shardsHolding(work: Extract<Work, { kind: 'where-exists' }>, session: ShardSession): Promise<PhysicalStatement[]> {
    const probe = schemaObjectProbe(this.dialect, work.plan.object, work.plan.name);
    const probes = this.targets.map((t) => ({ shard: t.index, sql: probe.sql, parameters: probe.parameters }));
    const found = await executeStatements(probes, this.targets, session, this.executor);
    const holding = this.targets.filter((t, i) => (found[i]!.records?.length ?? 0) > 0).map((t) => t.index);
    return (holding.length > 0 ? holding : [0]).map((shard) => ({ ...work.statement, shard }));
  }

  private async runSequentially(statements: readonly PhysicalStatement[], session: ShardSession): Promise<QueryResult[]> {
    const results: QueryResult[] = [];
    for (const s of statements) results.push(...(await executeStatements([s], this.targets, session, this.executor)));
    return results;
  }
}

async function* arrayStream(rows: readonly Row[]): AsyncIterable<Row> {
  yield* rows;
}
