import type { ParameterizedSql, ValueSlot } from '../../parameterize/index.js';
import type { RouteUnit } from '../../route/index.js';
import type { SqlToken } from '../sql-token.js';

/**
 * The IN lists a route unit cuts down (`id IN (?, ?, ?)` → `id IN (?)` on the shard holding
 * one of the values): each list's items become the unit's own, in their own spellings.
 */
export function inListTokens(p: ParameterizedSql, unit: RouteUnit): SqlToken[] {
  const tokens: SqlToken[] = [];
  // Plain loops, values sized up front: this runs once per physical statement.
  for (const [listIndex, keep] of unit.lists) {
    const list = p.inLists[listIndex]!;
    if (keep.length === list.items.length) continue;
    let placeholders = 0;
    for (let i = 0; i < keep.length; i++) if (keep[i]!.paramIndex !== undefined) placeholders++;
    const values = new Array<unknown>(placeholders);
    for (let i = 0, v = 0; i < keep.length; i++) {
      const paramIndex = keep[i]!.paramIndex;
      if (paramIndex !== undefined) values[v++] = p.parameters[paramIndex];
    }
    tokens.push({ start: list.open + 1, end: list.close, text: listText(p.sql, keep), values });
  }
  return tokens;
}

/** `?, ?, …, ?` by item count, made once per count (TypeORM's lists are all placeholders). */
const placeholderLists: string[] = [''];

function placeholderList(count: number): string {
  let text = placeholderLists[count];
  if (text === undefined) {
    text = `${'?, '.repeat(count - 1)}?`;
    // The usual counts are small; a huge list's text is not kept.
    if (count <= 1024) placeholderLists[count] = text;
  }
  return text;
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
  if (allPlaceholders) return placeholderList(keep.length);
  let text = '';
  for (let i = 0; i < keep.length; i++) text += i === 0 ? sql.slice(keep[i]!.start, keep[i]!.end) : `, ${sql.slice(keep[i]!.start, keep[i]!.end)}`;
  return text;
}
