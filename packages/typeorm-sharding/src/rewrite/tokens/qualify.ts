/**
 * Database-qualified table names (`shard_3`.`orders`) let a shard's statement run on any
 * connection of its server and share one round trip with the statements of the server's
 * other shards (`coalesce.ts`). The sites are found once per text; each unit's statement then
 * gets its shard's database in front of each, in the same splice as its other tokens.
 */
import { lexedOf, MemoKey, memoOf, type ParameterizedSql } from '../../parameterize/index.js';
import { databasePrefix } from '../address-shard.js';
import type { SqlToken } from '../sql-token.js';
import { singleWriteTarget, tablePositions } from '../table-sites.js';

/** What is known of the statement's tables: a SELECT's count of table references (the planner's), or a write. */
export type AddressShape = { readonly kind: 'select'; readonly references: number } | { readonly kind: 'write' };

/**
 * Finds where a statement's tables are to be qualified, for one set of tables (one engine's
 * rules): the offsets, or undefined when they cannot all be found — a SELECT must have
 * `references` tables in its FROM lists, a write exactly one target and no other table; a CTE
 * is never qualified. Such a statement runs with its shard's database as the connection's
 * default instead (`servers/server-pool.ts`).
 */
export class QualificationSites {
  private readonly key = new MemoKey<readonly number[] | null>('qualification sites');

  constructor(private readonly isTable: (name: string) => boolean) {}

  of(p: ParameterizedSql, shape: AddressShape): readonly number[] | undefined {
    return memoOf(p).get(this.key, () => this.find(p, shape) ?? null) ?? undefined;
  }

  private find(p: ParameterizedSql, shape: AddressShape): readonly number[] | undefined {
    const tokens = lexedOf(p, 'mysql');
    const found = shape.kind === 'select' ? tablePositions(p.sql, tokens, this.isTable) : singleWriteTarget(p.sql, tokens, this.isTable);
    if (!found || found.hasWith || found.positions.length === 0) return undefined;
    if (shape.kind === 'select' && found.positions.length !== shape.references) return undefined;
    return found.positions;
  }
}

/**
 * The tokens of each text's sites by database, made once: the sites of a text are one array
 * (its memo's), and every statement of the text to one shard gets the same tokens.
 */
const tokensBySites = new WeakMap<readonly number[], Map<string, readonly SqlToken[]>>();

/** The shard's database in front of each of `sites` (the array is shared: do not change it). */
export function qualifyTokens(sites: readonly number[], database: string): readonly SqlToken[] {
  let byDatabase = tokensBySites.get(sites);
  if (byDatabase === undefined) tokensBySites.set(sites, (byDatabase = new Map()));
  let tokens = byDatabase.get(database);
  if (tokens === undefined) {
    const text = databasePrefix(database);
    tokens = Object.freeze(sites.map((at) => Object.freeze({ start: at, end: at, text })));
    byDatabase.set(database, tokens);
  }
  return tokens;
}
