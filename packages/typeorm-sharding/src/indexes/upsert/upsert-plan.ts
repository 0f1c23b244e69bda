import { UnsupportedShardingError } from '../../errors/index.js';
import type { ParameterizedSql } from '../../parameterize/index.js';
import { hasColumn, sameColumnSet } from '../../rules/column-set.js';
import type { EntityMetadata } from 'typeorm';
import type { GlobalIndex, TableRule } from '../../rules/index.js';
import type { TextPart, UpsertStatement } from './upsert-statement.js';

/** A unique key an upsert's row may conflict on, checked in this order. */
export interface ConflictKey {
  readonly columns: readonly string[];
  /** Its global index (the owner is found through the lookup table); undefined: the key contains the shard key (the row's own shard holds any conflict). */
  readonly index?: GlobalIndex;
  /** True for the table's primary key (MySQL meets it first: InnoDB's clustered index). */
  readonly primary: boolean;
}

/** An upsert into a table with global indexes, planned to run row by row. */
export interface UpsertPlan {
  readonly statement: UpsertStatement;
  readonly keys: readonly ConflictKey[];
  /** The shard-key column (database name). */
  readonly keyColumn: string;
  /** The primary-key columns: what names one existing row. */
  readonly primary: readonly string[];
  /** The table's entity. */
  readonly owner: EntityMetadata;
}

/**
 * Plans an upsert (ON DUPLICATE KEY UPDATE, ON CONFLICT, INSERT IGNORE) of a sharded table whose
 * unique keys are each either globally indexed or shard-key-containing: which keys a row may
 * conflict on (the ON CONFLICT target; on MySQL and for an untargeted clause, every unique key,
 * the primary key first) and whether every value the route needs is known before it runs.
 * Throws `UnsupportedShardingError` naming the fix for anything it cannot repeat exactly.
 */
export function planUpsert(statement: UpsertStatement, p: ParameterizedSql, rule: TableRule, indexes: readonly GlobalIndex[]): UpsertPlan {
  const table = statement.table;
  const refuse = (what: string, fix: string): never => {
    throw new UnsupportedShardingError(`${statement.clause} into "${table}", a table with a global index: ${what}; ${fix}.`, { sql: p.sql, stage: 'write' });
  };
  if (statement.unsupported) refuse(`${statement.unsupported} cannot be routed row by row through the lookup table`, 'use ON DUPLICATE KEY UPDATE / ON CONFLICT (columns) DO UPDATE SET … / INSERT IGNORE, or read the row first and then insert or update it');
  const keyColumn = rule.shardKey!.columnName;
  const primary = rule.metadata.primaryColumns.map((c) => c.databaseName);
  const keyOf = (columns: readonly string[], label: string): ConflictKey => {
    const index = indexes.find((g) => g.unique && sameColumnSet(g.columns, columns));
    const isPrimary = sameColumnSet(columns, primary);
    if (index) return { columns: index.columns, index, primary: isPrimary };
    if (hasColumn(columns, keyColumn)) return { columns, primary: isPrimary };
    return refuse(
      `its ${label} (${columns.join(', ')}) does not contain the shard key "${keyColumn}" and has no global index (uniquePerShard), so a row conflicting on it may live on another shard`,
      `remove the key from uniquePerShard so that it gets a global index, or read the row first and then insert or update it`,
    );
  };
  let keys: ConflictKey[];
  if (statement.target === 'any-unique-key') {
    keys = rule.uniqueKeys.map((u) => keyOf(u.columns, u.label));
  } else {
    const target = statement.target;
    const unique = rule.uniqueKeys.find((u) => sameColumnSet(u.columns, target));
    if (!unique) refuse(`its conflict target (${target.join(', ')}) is no unique key of the table`, 'name the columns of a primary key or unique key');
    keys = [keyOf(unique!.columns, unique!.label)];
  }
  const at = (column: string) => statement.columns.findIndex((c) => c.toLowerCase() === column.toLowerCase());
  if (at(keyColumn) < 0) refuse(`the shard key "${keyColumn}" is not listed`, 'give every row its shard key');
  for (const row of statement.rows) if (!row[at(keyColumn)]?.value) refuse(`a row gives the shard key "${keyColumn}" the expression ${row[at(keyColumn)]?.text ?? '?'}`, 'give it a value');
  const defaultsToNull = (column: string) => {
    const metadata = rule.metadata.columns.find((c) => c.databaseName === column);
    return metadata !== undefined && metadata.default === undefined && metadata.isNullable && !metadata.isGenerated;
  };
  for (const key of keys) {
    for (const column of key.columns) {
      const i = at(column);
      if (i < 0) {
        if (defaultsToNull(column)) continue; // NULL: no conflict on this key
        refuse(`"${column}" of its ${key.primary ? 'primary key' : 'unique key'} is left to a default the plugin cannot know`, 'give it a value');
      }
      for (const row of statement.rows) {
        if (row[i]!.value || (isDefault(row[i]!) && defaultsToNull(column))) continue;
        refuse(`"${column}" of a conflict key is given ${row[i]!.text}`, 'give it a value (the owner is looked up by it before the row is written)');
      }
    }
  }
  // The values that decide where the row lives and which lookup rows change must be known.
  const decisive = new Set([keyColumn, ...primary, ...indexes.flatMap((g) => g.columns)].map((c) => c.toLowerCase()));
  for (const a of statement.assignments) {
    if (a.value.kind === 'row') {
      const i = at(a.value.column);
      if (i < 0) refuse(`its update part reads "${a.value.column}" of the new row, which the row does not list`, 'list the column in the INSERT');
      if (decisive.has(a.column.toLowerCase())) for (const row of statement.rows) if (!row[i]!.value) refuse(`its update part sets "${a.column}" to the expression ${row[i]!.text}`, 'give the row a value for it');
    } else if (a.value.kind === 'text') {
      if (/\b(VALUES\s*\(|EXCLUDED\s*\.)/i.test(a.value.part.text) && !a.value.part.value) {
        refuse(`its update part sets "${a.column}" to ${a.value.part.text}, an expression over the new row`, 'set it to VALUES(column) / EXCLUDED.column, a value, or an expression over the existing row only');
      }
      if (decisive.has(a.column.toLowerCase()) && !a.value.part.value) {
        refuse(`its update part sets "${a.column}", a shard key, primary key or global index column, to the expression ${a.value.part.text}`, 'set it to a value or to the new row\'s value');
      }
    }
  }
  return { statement, keys, keyColumn, primary, owner: rule.metadata };
}

/** A row's value of `column`: the slot's value, or null when the row leaves it out or to DEFAULT (a nullable column without default, checked by the plan). */
export function rowValueOf(plan: UpsertPlan, row: readonly TextPart[], column: string): unknown {
  const i = plan.statement.columns.findIndex((c) => c.toLowerCase() === column.toLowerCase());
  return i < 0 ? null : (row[i]!.value?.v ?? null);
}

function isDefault(part: TextPart): boolean {
  return /^DEFAULT(\(\))?$/i.test(part.text.trim());
}
