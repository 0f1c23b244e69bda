import type { Expr, Typed } from './ast.js';
import { Choices } from './choices.js';
import type { ShapeClass } from './classes.js';
import type { Dialect } from './print.js';
import type { ColumnDef, ShapeData, TableDef } from './schema.js';

/** A column visible in a select: the FROM item's alias and the column. */
export interface ScopeColumn {
  readonly table: string;
  readonly def: ColumnDef;
}

/** What a select can reference, and which columns identify its rows. */
export interface Scope {
  readonly columns: readonly ScopeColumn[];
  /**
   * Expressions that together identify a row of the FROM clause (a unique tiebreaker for
   * ORDER BY), `[]` when there is at most one row, undefined when nothing does.
   */
  readonly unique: readonly Expr[] | undefined;
  /** The alias of the fact table when it is read directly (subqueries correlate with it). */
  readonly facts: string | undefined;
}

/** Everything one query generation shares: the random choices, the class, the dialect, the schema. */
export class Gen {
  private aliasCount = 0;
  private subqueryCount = 0;

  constructor(
    readonly c: Choices,
    readonly cls: ShapeClass,
    readonly dialect: Dialect,
    readonly tables: { readonly facts: TableDef; readonly lines: TableDef; readonly refs: TableDef },
    readonly data: ShapeData,
  ) {}

  /** A fresh select-list alias (never a column name of the schema). */
  alias(hint: string): string {
    return `${hint}${++this.aliasCount}`;
  }

  /** A fresh table alias for a subquery (`f2`, `l3`, …), so that it never shadows the outer one. */
  subAlias(prefix: string): string {
    return `${prefix}${++this.subqueryCount + 1}`;
  }
}

export function columnExpr(c: ScopeColumn): Expr {
  return { kind: 'column', table: c.table, column: c.def };
}

/** The scope of one base table under `alias`. */
export function tableScope(table: TableDef, alias: string, isFacts: boolean): Scope {
  const columns = table.columns.map((def) => ({ table: alias, def }));
  const unique = columns.filter((c) => c.def.unique).map(columnExpr);
  return { columns, unique, facts: isFacts ? alias : undefined };
}

/** The columns of a derived table `alias` whose select list has these aliases and types. */
export function derivedColumns(alias: string, items: readonly { name: string; typed: Typed; samples: readonly (string | number)[]; overflowRisk: boolean }[]): ScopeColumn[] {
  return items.map(({ name, typed, samples, overflowRisk }) => {
    const type = typed.type === 'bool' ? 'int' : typed.type;
    const def: ColumnDef = {
      name,
      type,
      nullable: true,
      unique: false,
      key: false,
      arithmetic: (type === 'int' || type === 'decimal' || type === 'double') && !overflowRisk,
      samples,
      inexact: !typed.exact,
      anyCase: typed.anyCase,
    };
    return { table: alias, def };
  });
}

/** Special column types: the ones whose order and comparison are not plain numbers or text. */
export const SPECIAL_TYPES: ReadonlySet<string> = new Set(['enum', 'set', 'bit', 'year', 'date', 'datetime', 'time', 'binary', 'json']);
