/**
 * From a cached plan and one statement's values to its physical plan: route, rewrite, bind the
 * merge, coalesce per server. Each decision is its stage's (`route/`, `rewrite/`,
 * `plan/select/pagination.ts`, `plan/select/bind-merge.ts`); this file only hands their outputs on.
 */
import type { IndexMetrics } from '../indexes/index-metrics.js';
import type PQueue from 'p-queue';
import type { PhysicalQueryEvent } from '../data-source/options.js';
import type { ShardTarget } from '../execute/shard-target.js';
import type { StatementRouting } from '../execute/routing/statement-routing.js';
import type { PhysicalQueryLog } from '../log/physical-query-log.js';
import { inputOrderOf } from '../merge/index.js';
import type { ParameterizedSql, SqlDialect } from '../parameterize/index.js';
import { bindMerge } from '../plan/select/bind-merge.js';
import { hasNegativeLimit, isDeepPage, paginationOf, rowsPerInput, type Pagination } from '../plan/select/pagination.js';
import { cappedInputRows, pageWindowOf, type PageWindow } from '../plan/select/page-window.js';
import type { InsertPlan, Plan, SelectPlan, WritePlan } from '../plan/plan.js';
import { coalesceRead } from '../rewrite/coalesce-read.js';
import { BRANCH_TAG } from '../rewrite/tokens/branch-tag.js';
import type { PhysicalStatement } from '../rewrite/physical-statement.js';
import { rewriteUnits, unitStatement, type Addressing } from '../rewrite/rewriter.js';
import { QualificationSites, type AddressShape } from '../rewrite/tokens/qualify.js';
import { LayoutNamings, tableNameTokens, type LayoutNaming } from '../rewrite/tokens/table-names.js';
import { applyTokens } from '../rewrite/sql-token.js';
import { checkKeyAssignment, ownerRoute, routeByKey, type Route, type RouteSettings, type RouteUnit } from '../route/index.js';
import { checkScatter } from '../route/scatter-check.js';
import type { ShardingRules } from '../rules/index.js';
import { insertRowsOf } from '../write/insert-rows.js';
import { insertRowTokens } from '../write/rewrite-insert.js';
import { routeInsert } from '../write/route-insert.js';
import type { MergedRead, PhysicalPlan, PhysicalRead, PhysicalWrites } from './physical-plan.js';

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
  /**
   * A deep page over several shards is read by windows around its expected place in each shard
   * (`plan/select/page-window.ts`), when that is cheaper than `LIMIT offset+count`. @default true
   */
  readonly pageWindows?: boolean;
  /** Most distinct values an `IN (SELECT …)` run first may put into its statement. @default 10000 */
  readonly maxSubqueryValues?: number;
  readonly concurrency: number;
  readonly planCacheSize: number;
  readonly globalQueue: PQueue | undefined;
  readonly onPhysicalQuery: ((event: PhysicalQueryEvent) => void) | undefined;
  /** Logs physical statements through the data source's logger; undefined when they are not logged. */
  readonly logPhysical?: PhysicalQueryLog | undefined;
  /** With the query router: gives each physical statement what the router decides its node on. */
  readonly routing?: StatementRouting | undefined;
  /** How the driver returns BIGINT values (mysql2 with `supportBigNumbers` and `bigNumberStrings`: text). @default 'number' */
  readonly bigintForm?: 'text' | 'number';
  /** Counts the lookup reads' hits and misses. */
  readonly indexMetrics?: IndexMetrics | undefined;
  /** Owners of unique global index values remembered (see `OwnerMemory`); 0: none. @default 0 */
  readonly rememberedOwners?: number;
}

/** Physical plans of one ShardedDataSource's statements. */
export class PhysicalPlanner {
  private readonly qualification: QualificationSites;
  /** Undefined when no table has a table-per-shard layout: nothing to look for then. */
  private readonly layouts: LayoutNamings | undefined;

  constructor(
    private readonly rules: ShardingRules,
    private readonly targets: readonly ShardTarget[],
    private readonly dialect: SqlDialect,
    private readonly settings: EngineSettings,
  ) {
    this.qualification = new QualificationSites((name) => rules.ruleOf(name) !== undefined);
    const layoutOf = (name: string) => rules.ruleOf(name)?.shardKey?.layout;
    const widest = Math.max(0, ...[...rules.all()].map((r) => r.shardKey?.layout?.count ?? 0));
    this.layouts = widest > 0 ? new LayoutNamings(dialect, layoutOf, widest) : undefined;
  }

  /**
   * @param perServer qualify statements with their databases and send a scattered read's
   *   statements per server (`rewrite/coalesce.ts`); off for a compound's SELECTs, which append
   *   columns to each shard's statement
   * @param onlyShards a SELECT reaches only these shards (the owners a global index's lookup found)
   */
  physicalPlanOf(p: ParameterizedSql, plan: Plan, perServer = true, onlyShards?: ReadonlySet<number>): PhysicalPlan {
    const same = (shard: number): PhysicalStatement => ({ shard, sql: p.sql, parameters: p.parameters });
    switch (plan.kind) {
      case 'session':
        return { kind: 'session', control: plan.control };
      case 'default-shard':
        this.layouts?.checkSchemaRead(p);
        return { kind: 'one', statement: same(0) };
      case 'all-shards': {
        const copies = plan.result === 'sum' ? undefined : { verb: p.verb, sql: p.sql, check: plan.result === 'copies' };
        const statements = this.everyTable(p) ?? this.targets.map((t) => same(t.index));
        // DDL, PRAGMA and a SQLite rebuild's row copy run as they are; a broadcast write's copies change together.
        return { kind: 'writes', statements, sequential: true, copies, atomic: copies?.check === true && reachesSeveral(statements) };
      }
      case 'where-exists':
        return { kind: 'where-exists', plan, statement: same(0), ...(this.layouts ? { perTable: this.layouts.perTableObject(p, plan.name) } : {}) };
      case 'pulled':
        return { kind: 'pulled', plan, p };
      case 'compound':
        return { kind: 'compound', plan, p };
      case 'insert':
        return this.insert(p, plan);
      case 'write': {
        const statements = this.routed(p, plan, undefined, this.addressingOf(p, { kind: 'write' }));
        return { kind: 'writes', statements, sequential: false, atomic: reachesSeveral(statements) };
      }
      case 'select':
        return this.read(p, plan, perServer, onlyShards);
    }
  }

  private insert(p: ParameterizedSql, plan: InsertPlan): PhysicalWrites {
    const rule = this.rules.ruleOf(plan.table)!;
    const addressing = this.addressingOf(p, { kind: 'write' });
    const rows = insertRowsOf(p, this.dialect);
    const units = routeInsert(p, rows, plan.keyColumnIndex!, rule.shardKey!, plan.table);
    const layout = this.layoutOf(p);
    const statements = units.map((u) => unitStatement(u, p, insertRowTokens(p, rows, u), { addressing, layout }));
    return { kind: 'writes', statements, sequential: false, rowsOf: units.map((u) => u.rows), atomic: reachesSeveral(statements) };
  }

  private read(p: ParameterizedSql, plan: SelectPlan, perServer: boolean, onlyShards?: ReadonlySet<number>): PhysicalRead {
    // MySQL rejects a negative LIMIT or OFFSET as a syntax error: the default shard is sent the
    // statement as written, and says so in the server's own words, as one database would.
    if (this.dialect === 'mysql' && hasNegativeLimit(plan.limit, p)) return { kind: 'one', statement: unitStatement({ shard: 0, table: 0 }, p, [], { addressing: undefined, layout: this.layoutOf(p) }) };
    const addressing = perServer && plan.tableReferences !== undefined ? this.addressingOf(p, { kind: 'select', references: plan.tableReferences }) : undefined;
    const page = paginationOf(plan.limit, plan.pushLimit, p);
    const statements = this.routed(p, plan, page, addressing, onlyShards);
    if (statements.length === 0) return { kind: 'no-rows' };
    if (statements.length === 1) return { kind: 'one', statement: statements[0]! };
    const merged: MergedRead = {
      kind: 'merged',
      statements,
      merge: this.settings.bigintForm === 'text' ? { ...bindMerge(plan, p, this.dialect, page), bigintForm: 'text' } : bindMerge(plan, p, this.dialect, page),
      deep: this.dialect === 'mysql' && isDeepPage(page, this.settings.streamThreshold ?? 1000),
      checkOriginal: plan.checkOriginal ? plan : undefined,
    };
    if (!perServer) return merged;
    const plain = this.coalesced(merged, plan, page);
    // A compound's SELECTs (perServer off) merge their statements themselves: only a read of its own is windowed.
    // Only deep pages: a shallow one is coalesced into one round trip per server, which windows would undo.
    const windowed = this.settings.pageWindows !== false && isDeepPage(page, this.settings.streamThreshold ?? 1000);
    if (!windowed) return this.capped(p, plan, page, addressing, onlyShards, merged, plain);
    const shape = pageWindowOf(page, plan.limit?.offsetSlot !== undefined, merged.merge, statements.length);
    if (!shape) return plain;
    return { ...merged, deep: false, statements: this.routed(p, plan, page, addressing, onlyShards, shape), window: { shape, fallback: plain } };
  }

  /**
   * A shallow page coalesced per server, each shard sent fewer rows than offset+count (see
   * `cappedInputRows`): the server still merges and cuts its shards' rows to offset+count, but
   * reads fewer of them. Only when coalescing sorts every server's rows (the proof reads the
   * server's cut); `plain` otherwise, and as the fallback.
   */
  private capped(p: ParameterizedSql, plan: SelectPlan, page: Pagination | undefined, addressing: Addressing | undefined, onlyShards: ReadonlySet<number> | undefined, merged: MergedRead, plain: MergedRead): MergedRead {
    if (this.settings.pageWindows === false || plain === merged || !plain.statements.some((s) => s.branches !== undefined)) return plain;
    const rows = cappedInputRows(page, plain.merge, merged.statements.length);
    if (rows === undefined) return plain;
    const statements = this.routed(p, plan, page, addressing, onlyShards, { start: 0, rows }, BRANCH_TAG);
    const read = this.coalesced({ ...merged, statements }, plan, page);
    return { ...read, merge: { ...read.merge, strip: [...(read.merge.strip ?? []), BRANCH_TAG] }, capped: { rows, tag: BRANCH_TAG, fallback: plain } };
  }

  /** Routes a SELECT, UPDATE or DELETE of a sharded table and writes each route unit's statement. */
  private routed(p: ParameterizedSql, plan: SelectPlan | WritePlan, page: Pagination | undefined, addressing: Addressing | undefined, onlyShards?: ReadonlySet<number>, window?: Pick<PageWindow, 'start' | 'rows'>, branchTag?: string): PhysicalStatement[] {
    const rule = this.rules.ruleOf(plan.table)!;
    if (plan.kind === 'write') checkKeyAssignment(plan, p, rule.shardKey!);
    // A lookup's owners: routed straight to their shards when nothing else cuts the statement (as cheap as a read by id).
    const owners = onlyShards && ownerRoute(onlyShards, plan.condition, plan.prunableLists, plan.prunableOrs, rule.shardKey!, this.targets.length);
    const routedByKey = owners || routeByKey(plan.condition, plan.prunableLists, p, rule.shardKey!, this.targets.length, this.settings, plan.prunableOrs);
    const route = onlyShards && !owners && routedByKey.kind === 'units' ? onlyUnits(routedByKey.units.filter((u) => onlyShards.has(u.shard))) : routedByKey;
    if (route.kind === 'nowhere') {
      // Nothing can match, but `SELECT COUNT(*) …` still answers one row (0, NULLs): any shard gives it.
      return plan.kind === 'select' && plan.globalAggregate ? [unitStatement({ shard: 0, table: 0 }, p, [], { addressing, layout: this.layoutOf(p) })] : [];
    }
    checkScatter(plan, route.units, p.sql, p.verb);
    const scatter = route.units.length > 1;
    const select = plan.kind === 'select' ? plan : undefined;
    return rewriteUnits(route.units, {
      p,
      dialect: this.dialect,
      scatter,
      limit: select?.limit,
      page,
      window,
      branchTag,
      cutHaving: select?.cutHaving ?? false,
      shardHaving: select?.shardHaving,
      derivedColumns: select?.derivedColumns ?? [],
      extraGroupBy: select?.extraGroupBy ?? [],
      itemAliases: select?.itemAliases ?? [],
      addressing,
      layout: this.layoutOf(p),
      exactIntegers: scatter && select?.exactIntegers === true,
      prunableOrs: plan.prunableOrs,
    });
  }

  /**
   * The text of `p` as the default shard's database can compile it, for checking a statement
   * against the database (`ShardingEngine.check`): under a table-per-shard layout, with its
   * tables named as table 0 of the layout.
   */
  checkedText(p: ParameterizedSql): string {
    let layout: LayoutNaming | undefined;
    try {
      layout = this.layoutOf(p);
    } catch {
      return p.sql;
    }
    return layout ? applyTokens(p, tableNameTokens(layout, 0)).sql : p.sql;
  }

  /** The layout the statement's tables are named by, when it names tables with one. */
  private layoutOf(p: ParameterizedSql): LayoutNaming | undefined {
    return this.layouts?.of(p);
  }

  /**
   * A statement that runs on every shard (DDL) and names a layout's tables: once per physical
   * table of every shard database, one after the other; undefined when it names no such table.
   */
  private everyTable(p: ParameterizedSql): PhysicalStatement[] | undefined {
    const layout = this.layoutOf(p);
    if (!layout) return undefined;
    return this.targets.flatMap((t) => Array.from({ length: layout.layout.count }, (_, table) => unitStatement({ shard: t.index, table }, p, [], { layout })));
  }

  /** One round trip per server for a scattered read, when coalescing is on and the read allows it. */
  private coalesced(read: MergedRead, plan: SelectPlan, page: Pagination | undefined): MergedRead {
    const settings = this.settings.coalesce;
    // A deep page streams each shard's rows into the merge, which stops reading at the page's
    // end; one UNION ALL would make the server sort every shard's offset + count rows first.
    if (!settings || !plan.unionSafe || read.deep) return read;
    const { merge } = read;
    const out = coalesceRead(
      read.statements,
      { order: inputOrderOf(merge), concatenates: merge.kind === 'concat', rowsPerInput: page && rowsPerInput(page) },
      { serverOf: (shard) => this.targets[shard]!.server, maxBranches: settings.maxBranches },
    );
    return { ...read, statements: out.statements, merge: out.unsortedInputs && merge.kind === 'ordered' ? { ...merge, unsortedInputs: true } : merge };
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

  private readonly databaseOf = (shard: number): string => this.targets[shard]!.database!;
}

/**
 * The statements of one write reach several shards, or several tables of one shard under a
 * layout: they must run atomically, as the one statement does on one database.
 */
function reachesSeveral(statements: readonly PhysicalStatement[]): boolean {
  const first = statements[0];
  return statements.some((s) => s.shard !== first!.shard || s.table !== first!.table);
}

/** Units left after a global index's lookup: none is `nowhere`. */
function onlyUnits(units: readonly RouteUnit[]): Route {
  return units.length === 0 ? { kind: 'nowhere' } : { kind: 'units', units };
}
