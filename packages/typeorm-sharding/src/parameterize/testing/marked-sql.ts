/**
 * Test SQL with its expected slots drawn in: `⟦…⟧` around each value slot and `⟨(…)⟩`
 * around each IN list (whose items are marked `⟦…⟧` too). The markers are removed and
 * their offsets kept, so a test case shows where the slots are instead of listing numbers.
 */

export interface MarkedRange {
  readonly start: number;
  readonly end: number;
}

export interface MarkedList {
  readonly open: number;
  readonly close: number;
  readonly items: MarkedRange[];
}

export interface MarkedSql {
  readonly sql: string;
  /** Value slots outside IN lists, in text order. */
  readonly slots: MarkedRange[];
  readonly lists: MarkedList[];
}

/** Strips the markers from `marked` and returns the plain SQL with the marked ranges. */
export function unmark(marked: string): MarkedSql {
  let sql = '';
  const slots: MarkedRange[] = [];
  const lists: MarkedList[] = [];
  let slotStart = -1;
  let list: { open: number; items: MarkedRange[] } | undefined;
  for (const ch of marked) {
    switch (ch) {
      case '⟦':
        slotStart = sql.length;
        break;
      case '⟧':
        (list ? list.items : slots).push({ start: slotStart, end: sql.length });
        break;
      case '⟨':
        list = { open: sql.length, items: [] };
        break;
      case '⟩':
        if (!list) throw new Error('unbalanced ⟩');
        lists.push({ open: list.open, close: sql.length - 1, items: list.items });
        list = undefined;
        break;
      default:
        sql += ch;
    }
  }
  return { sql, slots, lists };
}
