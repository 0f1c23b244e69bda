import { ShardingInternalError } from '../errors/index.js';
import type { SqlDialect } from '../parameterize/index.js';
import { databasePrefix } from '../rewrite/address-shard.js';
import { coalesce } from '../rewrite/coalesce.js';
import type { PhysicalStatement } from '../rewrite/physical-statement.js';
import { partitionOfValue } from '../route/evaluate-condition.js';
import type { GlobalIndex, ShardingRules } from '../rules/index.js';
import { quoted } from './statement-text.js';

/** Where the lookup reads of one data source go. */
export interface LookupReadTargets {
  readonly shardCount: number;
  /** MySQL: the shard's database (its statements name the table with it); undefined: the shard's own connection. */
  readonly databaseOf: (shard: number) => string | undefined;
  /** Reads of one server's shards as one UNION ALL (see `rewrite/coalesce.ts`); undefined: one statement per shard. */
  readonly coalesce?: { readonly serverOf: (shard: number) => string; readonly maxBranches: number } | undefined;
}

/** Texts kept per index: one per (shard, number of values of each column); a bound keeps odd IN lengths from piling up. */
const MAX_TEXTS = 512;
/** The counts of a one-value read of a one-column index. */
const ONE: readonly number[] = [1];

/**
 * The physical statements of a lookup read, written straight from the index (no parse, no plan,
 * no rewrite: the statement is ours and its shape is fixed): `SELECT value columns, owner column
 * FROM lookup WHERE col = ? [AND …]`, one per lookup shard that holds a value, the values of the
 * first column (the lookup table's shard key) cut to that shard's. Texts are cached per index.
 * A plain read: outside a transaction it needs no lock, and a stale entry only costs a read that
 * finds no row (the owner's read keeps its own WHERE).
 */
export class LookupReads {
  /** Per lookup table: texts by shard (one value) or by `shard:counts`. */
  private readonly texts = new Map<string, Map<number | string, string>>();

  constructor(
    private readonly rules: ShardingRules,
    private readonly dialect: SqlDialect,
    private readonly targets: LookupReadTargets,
  ) {}

  /** `values`: per column of the index, its distinct non-NULL values (none empty). */
  statementsOf(index: GlobalIndex, values: readonly (readonly unknown[])[]): PhysicalStatement[] {
    const key = this.rules.ruleOf(index.lookupTable)?.shardKey;
    if (!key || key.layout) throw new ShardingInternalError(`the lookup table "${index.lookupTable}" has no plain shard key`, { stage: 'route' });
    // The common read, `findOneBy({ email })`: one value, one statement, its text kept per shard.
    if (values.length === 1 && values[0]!.length === 1) {
      const shard = partitionOfValue(values[0]![0], key);
      if (shard !== 'all') return [this.statement(index, shard, values[0]!, ONE)];
    }
    // The first column's values by lookup shard; a value that names no key (`'5abc'` for a number) is asked everywhere, as the planner would.
    const byShard = new Map<number, unknown[]>();
    const everywhere: unknown[] = [];
    for (const value of values[0]!) {
      const shard = partitionOfValue(value, key);
      if (shard === 'all') {
        everywhere.push(value);
        continue;
      }
      const own = byShard.get(shard);
      if (own) own.push(value);
      else byShard.set(shard, [value]);
    }
    const shards = everywhere.length > 0 ? Array.from({ length: this.targets.shardCount }, (_, i) => i) : [...byShard.keys()].sort((a, b) => a - b);
    const rest = values.slice(1);
    const statements = shards.map((shard) => {
      const first = everywhere.length === 0 ? byShard.get(shard)! : [...(byShard.get(shard) ?? []), ...everywhere];
      return this.statement(index, shard, rest.length === 0 ? first : [...first, ...rest.flat()], [first.length, ...rest.map((v) => v.length)]);
    });
    const settings = this.targets.coalesce;
    return settings && statements.length > 1 ? coalesce(statements, { ...settings, order: undefined, rowLimit: undefined }) : statements;
  }

  private statement(index: GlobalIndex, shard: number, parameters: readonly unknown[], counts: readonly number[]): PhysicalStatement {
    const database = this.targets.databaseOf(shard);
    const sql = this.textOf(index, shard, database, counts);
    return database === undefined ? { shard, sql, parameters } : { shard, sql, parameters, qualified: true };
  }

  private textOf(index: GlobalIndex, shard: number, database: string | undefined, counts: readonly number[]): string {
    let texts = this.texts.get(index.lookupTable);
    if (!texts) this.texts.set(index.lookupTable, (texts = new Map()));
    const cacheKey = counts === ONE ? shard : `${shard}:${counts.join(',')}`;
    let sql = texts.get(cacheKey);
    if (sql === undefined) {
      sql = lookupText(index, this.dialect, database, counts);
      if (texts.size >= MAX_TEXTS) texts.clear();
      texts.set(cacheKey, sql);
    }
    return sql;
  }
}

/** `SELECT email, id FROM db.users__gidx_email WHERE email = ?` (`IN (?, …)` for several values of a column). */
export function lookupText(index: GlobalIndex, dialect: SqlDialect, database: string | undefined, counts: readonly number[]): string {
  const q = (c: string) => quoted(c, dialect);
  const table = (database === undefined ? '' : databasePrefix(database)) + q(index.lookupTable);
  const where = index.columns.map((c, i) => (counts[i] === 1 ? `${q(c)} = ?` : `${q(c)} IN (${Array.from({ length: counts[i]! }, () => '?').join(', ')})`)).join(' AND ');
  return `SELECT ${[...index.columns, index.ownerColumn].map(q).join(', ')} FROM ${table} WHERE ${where}`;
}
