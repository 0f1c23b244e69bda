import type { ParameterizedSql, ValueSlot } from '../../parameterize/index.js';
import type { RouteUnit } from '../../route/index.js';
import type { SqlToken } from '../sql-token.js';

/**
 * The IN lists a route unit cuts down (`id IN (?, ?, ?)` → `id IN (?)` on the shard holding
 * one of the values): each list's items become the unit's own, in their own spellings.
 */
export function inListTokens(p: ParameterizedSql, unit: RouteUnit): SqlToken[] {
  const tokens: SqlToken[] = [];
  for (const [listIndex, keep] of unit.lists) {
    const list = p.inLists[listIndex]!;
    if (keep.length === list.items.length) continue;
    const values: unknown[] = [];
    for (const item of keep) if (item.paramIndex !== undefined) values.push(p.parameters[item.paramIndex]);
    tokens.push({ start: list.open + 1, end: list.close, text: listText(p.sql, keep), values });
  }
  return tokens;
}

/** The text of a cut IN list: its kept items' own spellings, comma-separated. */
function listText(sql: string, keep: readonly ValueSlot[]): string {
  let allPlaceholders = true;
  for (const item of keep) {
    if (item.end - item.start !== 1 || sql.charCodeAt(item.start) !== 63 /* ? */) {
      allPlaceholders = false;
      break;
    }
  }
  // The usual list is all `?`: no slicing and joining needed.
  if (allPlaceholders) return keep.length === 0 ? '' : `${'?, '.repeat(keep.length - 1)}?`;
  return keep.map((i) => sql.slice(i.start, i.end)).join(', ');
}
