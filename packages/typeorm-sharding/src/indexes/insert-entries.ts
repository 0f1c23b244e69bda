import { UnsupportedShardingError } from '../errors/index.js';
import type { ParameterizedSql, SqlDialect } from '../parameterize/index.js';
import { insertHeadOf } from '../plan/write/insert-head.js';
import type { GlobalIndex } from '../rules/index.js';
import { insertRowsOf } from '../write/insert-rows.js';

/** The lookup rows of one index for the rows of an INSERT: its key values and each row's shard key. */
export function insertEntries(p: ParameterizedSql, dialect: SqlDialect, index: GlobalIndex, keyColumnIndex: number): { values: unknown[]; owner: unknown }[] {
  const head = insertHeadOf(p.sql, dialect);
  const columns = head.columns ?? [];
  const slotAt = new Map(p.slots.map((s) => [s.start, s]));
  const positions = index.columns.map((c) => columns.findIndex((x) => x.toLowerCase() === c.toLowerCase()));
  return insertRowsOf(p, dialect).rows.map((row) => {
    const valueAt = (at: number, column: string): unknown => {
      const item = at < 0 ? undefined : row.items[at];
      if (item) {
        const slot = slotAt.get(item.start);
        if (slot && slot.end === item.end) return slot.value;
        if (!/^DEFAULT(\(\))?$/i.test(p.sql.slice(item.start, item.end))) {
          throw new UnsupportedShardingError(
            `INSERT into "${index.table}" gives "${column}", a column of its global index ${index.lookupTable}, the expression ${p.sql.slice(item.start, item.end)}; give it a value (the lookup row is written before the row).`,
            { sql: p.sql, stage: 'write' },
          );
        }
      }
      return defaultOf(index, column, p.sql);
    };
    return { values: index.columns.map((c, i) => valueAt(positions[i]!, c)), owner: valueAt(keyColumnIndex, index.ownerColumn) };
  });
}

/** A column left to its default: NULL (not indexed) when it has no other default. */
function defaultOf(index: GlobalIndex, column: string, sql: string): unknown {
  const metadata = index.owner.columns.find((c) => c.databaseName === column);
  if (metadata && metadata.default === undefined && metadata.isNullable && !metadata.isGenerated) return null;
  throw new UnsupportedShardingError(
    `INSERT into "${index.table}" leaves "${column}", a column of its global index ${index.lookupTable}, to a default the plugin cannot know; give it a value.`,
    { sql, stage: 'write' },
  );
}
