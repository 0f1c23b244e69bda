import { hasColumn } from './column-set.js';
import type { TableRule } from './table-rule.js';

/** The conflict handling of an INSERT, as far as where its rows go is concerned. */
export interface ConflictHandling {
  /** How the statement spells it, for messages (`ON DUPLICATE KEY UPDATE`, `ON CONFLICT DO UPDATE`, `INSERT IGNORE` …). */
  readonly clause: string;
  /**
   * The columns of the conflict target (`ON CONFLICT ("userId", "email")`), or `'any-unique-key'`
   * when the database fires it on whichever unique key a row violates (MySQL's ON DUPLICATE KEY
   * UPDATE, INSERT IGNORE and REPLACE; SQLite's OR IGNORE / OR REPLACE and an untargeted ON CONFLICT).
   */
  readonly target: readonly string[] | 'any-unique-key';
  /** The update part's assignments: column (unquoted) and the text of its value. */
  readonly assignments: readonly { readonly column: string; readonly value: string }[];
}

/**
 * Why an upsert-like INSERT into a sharded table could answer differently from one database,
 * or undefined when it cannot. The INSERT goes to the shard of its row's key and can only
 * conflict with rows there: that is the whole answer only when every key the conflict can fire
 * on contains the shard key (equal values then share a shard). And the update part must not
 * give the shard key a new value, which would leave the row on the wrong shard.
 */
export function conflictProblem(rule: TableRule, conflict: ConflictHandling): string | undefined {
  const key = rule.shardKey!;
  const table = rule.tableName;
  if (conflict.target !== 'any-unique-key') {
    if (!hasColumn(conflict.target, key.columnName)) {
      return (
        `${conflict.clause} on (${conflict.target.join(', ')}) into sharded table "${table}": the conflict target does not contain the shard key "${key.columnName}", ` +
        'so the row it should update may live on another shard, and a duplicate would be inserted here instead. ' +
        `Use a conflict target that contains "${key.columnName}", backed by a unique key that contains it (e.g. upsert(…, [${[...conflict.target, key.columnName].map((c) => `'${c}'`).join(', ')}])).`
      );
    }
  } else {
    const outside = rule.uniqueKeys.find((u) => !hasColumn(u.columns, key.columnName));
    if (outside) {
      return (
        `${conflict.clause} into sharded table "${table}" fires on any unique key, and its ${outside.label} (${outside.columns.join(', ')}) does not contain the shard key "${key.columnName}": ` +
        'a row conflicting on it may live on another shard, where nothing would be updated or ignored. ' +
        `Make every unique key of "${table}" contain "${key.columnName}" (e.g. a primary key (${[...outside.columns, key.columnName].join(', ')})), or read the row first and update or insert it.`
      );
    }
  }
  const moved = conflict.assignments.find((a) => a.column.toLowerCase() === key.columnName.toLowerCase() && !keepsValue(a.value, key.columnName, table));
  if (moved) {
    return `${conflict.clause} into sharded table "${table}" sets the shard key "${key.columnName}" to ${moved.value}, which would leave the row on the wrong shard; delete and insert it instead.`;
  }
  return undefined;
}

/** `VALUES(key)`, `EXCLUDED.key`, `key` or `table.key`: the key keeps its value (equal on both rows of a conflict). */
function keepsValue(value: string, column: string, table: string): boolean {
  const text = value.replace(/[`"\s]/g, '').toLowerCase();
  const c = column.toLowerCase();
  return text === c || text === `values(${c})` || text === `excluded.${c}` || text === `${table.toLowerCase()}.${c}`;
}
