/**
 * Table-per-shard layouts: each unit's statement names its own physical table wherever the
 * statement names a layout's table (`layout-sites.ts`), keeping the spelling and the quoting it
 * was written with (`` `orders` `` → `` `orders_2` ``, `Orders.id` → `Orders_2.id`). In DDL, the
 * names of the indexes, keys and constraints it declares get the table's index as suffix
 * (`IDX_a` → `IDX_a_2`), as schema sync names them (`data-source/layout-metadata.ts`).
 */
import { UnsupportedShardingError } from '../../errors/index.js';
import { lexedOf, MemoKey, memoOf, TokenKind, type ParameterizedSql, type SqlDialect } from '../../parameterize/index.js';
import type { TableLayout } from '../../algorithms/index.js';
import { ddlNameSitesOf, layoutSitesOf, type LayoutSite, type NameSite } from '../layout-sites.js';
import { applyTokens, type SqlToken } from '../sql-token.js';

/** Where a statement names a layout's tables, and the one layout they share. */
export interface LayoutNaming {
  readonly sites: readonly LayoutSite[];
  /** DDL: the index, key and constraint names it declares. */
  readonly names: readonly NameSite[];
  readonly layout: TableLayout;
}

const DDL_VERBS = new Set(['CREATE', 'ALTER', 'DROP', 'RENAME', 'TRUNCATE']);

/** Finds a statement's layout sites once per text, for one set of tables (one engine's rules). */
export class LayoutNamings {
  private readonly key = new MemoKey<LayoutNaming | null>('layout naming');

  constructor(
    private readonly dialect: SqlDialect,
    private readonly layoutOf: (name: string) => TableLayout | undefined,
    /** The most tables per shard of any layout. */
    private readonly widest = 1,
  ) {}

  /**
   * The naming of `p`, undefined when it names no table with a layout. Throws
   * `UnsupportedShardingError` when it names tables of different layouts: their rows do not
   * pair up table by table.
   */
  of(p: ParameterizedSql): LayoutNaming | undefined {
    return memoOf(p).get(this.key, () => this.find(p) ?? null) ?? undefined;
  }

  /**
   * A schema read (`information_schema`, `sqlite_master`, `PRAGMA table_info(…)` — what
   * TypeORM's `getTable`, `hasTable` and `hasColumn` send) that names a laid-out table by its
   * logical name would find no such table: refused, naming the fix.
   */
  checkSchemaRead(p: ParameterizedSql): void {
    if (!memoOf(p).get(this.schemaKey, () => p.verb === 'PRAGMA' || /information_schema|sqlite_master|sqlite_schema/i.test(p.sql))) return;
    const names: unknown[] = p.slots.map((s) => s.value);
    for (const list of p.inLists) for (const item of list.items) names.push(item.value);
    const tokens = lexedOf(p, this.dialect);
    for (let i = 0; i < tokens.count; i++) if (tokens.kinds[i] === TokenKind.QuotedIdent) names.push(p.sql.slice(tokens.starts[i]! + 1, tokens.ends[i]! - 1));
    const table = names.find((n): n is string => typeof n === 'string' && this.layoutOf(n) !== undefined);
    if (table === undefined) return;
    const layout = this.layoutOf(table)!;
    throw new UnsupportedShardingError(
      `This schema read looks up table "${table}", which has a table-per-shard layout: its rows are in ${layout.physicalName(table, 0)} … ${layout.physicalName(table, layout.count - 1)} of every shard, and no table "${table}" exists. ` +
        `Write the migration step as SQL (e.g. ALTER TABLE ${table} ADD …, CREATE INDEX … ON ${table} …), which runs on every physical table, or read one physical table by its name.`,
      { sql: p.sql, stage: 'route' },
    );
  }

  private readonly schemaKey = new MemoKey<boolean>('schema read');

  /**
   * DDL naming an object without its table (SQLite's `DROP INDEX i`): the statement and the
   * object's name for each table index of the widest layout (`i_0 … i_<n>`), since the object
   * may belong to a laid-out table, whose objects are named per physical table.
   */
  perTableObject(p: ParameterizedSql, name: string): { name: string; statement: { shard: number; sql: string; parameters: readonly unknown[] } }[] {
    const names = ddlNameSitesOf(p.sql, lexedOf(p, this.dialect));
    return Array.from({ length: this.widest }, (_, table) => {
      const tokens: SqlToken[] = names.map((n) => ({ start: n.start, end: n.end, text: quoted(`${n.name}_${table}`, n.quote) }));
      return { name: `${name}_${table}`, statement: { shard: 0, ...applyTokens(p, tokens) } };
    });
  }

  private find(p: ParameterizedSql): LayoutNaming | undefined {
    const tokens = lexedOf(p, this.dialect);
    const sites = layoutSitesOf(p.sql, tokens, this.dialect, this.layoutOf);
    if (sites.length === 0) return undefined;
    const layout = sites[0]!.layout;
    const other = sites.find((s) => s.layout.count !== layout.count);
    if (other) {
      throw new UnsupportedShardingError(
        `This statement names "${sites[0]!.name}" (${layout.count} tables per shard) and "${other.name}" (${other.layout.count} tables per shard): rows of tables with different layouts do not pair up table by table. Give co-located tables the same @Sharded({ tables }), or query them separately.`,
        { sql: p.sql, stage: 'rewrite' },
      );
    }
    return { sites, names: DDL_VERBS.has(p.verb) ? ddlNameSitesOf(p.sql, tokens) : [], layout };
  }
}

function quoted(text: string, quote: string): string {
  return quote === '' ? text : `${quote}${text.split(quote).join(quote + quote)}${quote}`;
}

/** The tokens that make a statement name physical table `table` of its layout. */
export function tableNameTokens(naming: LayoutNaming, table: number): SqlToken[] {
  const tokens: SqlToken[] = naming.sites.map((s) => ({ start: s.start, end: s.end, text: quoted(s.prefix + s.layout.physicalName(s.name, table), s.quote) }));
  for (const n of naming.names) tokens.push({ start: n.start, end: n.end, text: quoted(`${n.name}_${table}`, n.quote) });
  return tokens;
}
