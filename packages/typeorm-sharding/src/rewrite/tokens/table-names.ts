/**
 * Table-per-shard layouts: each unit's statement names its own physical table wherever the
 * statement names a layout's table (`layout-sites.ts`), keeping the spelling and the quoting it
 * was written with (`` `orders` `` → `` `orders_2` ``, `Orders.id` → `Orders_2.id`). In DDL, the
 * names of the indexes, keys and constraints it declares get the table's index as suffix
 * (`IDX_a` → `IDX_a_2`), as schema sync names them (`data-source/layout-metadata.ts`).
 */
import { UnsupportedShardingError } from '../../errors/index.js';
import { lexedOf, MemoKey, memoOf, type ParameterizedSql, type SqlDialect } from '../../parameterize/index.js';
import type { TableLayout } from '../../algorithms/index.js';
import { ddlNameSitesOf, layoutSitesOf, type LayoutSite, type NameSite } from '../layout-sites.js';
import type { SqlToken } from '../sql-token.js';

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
  ) {}

  /**
   * The naming of `p`, undefined when it names no table with a layout. Throws
   * `UnsupportedShardingError` when it names tables of different layouts: their rows do not
   * pair up table by table.
   */
  of(p: ParameterizedSql): LayoutNaming | undefined {
    return memoOf(p).get(this.key, () => this.find(p) ?? null) ?? undefined;
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
