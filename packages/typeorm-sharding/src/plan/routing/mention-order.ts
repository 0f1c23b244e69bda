import type { ColumnNode, SqlNode } from '../nodes/sql-node.js';

/**
 * A WHERE clause that lists rows by their key values, `(a = ? AND b = ?) OR (a = ? AND b = ?) …`
 * (TypeORM writes it for entity ids, e.g. when it re-reads inserted rows for their defaults):
 * the columns and, per listed row, the value slot of each column.
 */
export interface ListedRows {
  readonly columns: readonly ColumnNode[];
  readonly rows: readonly (readonly number[])[];
}

/**
 * The rows a WHERE lists, when it is an OR of the same conjunction of `column = value` terms;
 * undefined for anything else. Without ORDER BY a database may return rows in any order, but
 * TypeORM maps such re-reads back to its entities by position, so the merge returns them in
 * the order they are listed.
 */
export function listedRowsOf(where: SqlNode | undefined): ListedRows | undefined {
  if (!where) return undefined;
  const disjuncts: SqlNode[] = [];
  const split = (n: SqlNode): void => {
    if (n.kind === 'binary' && n.op === 'OR') {
      split(n.left);
      split(n.right);
    } else disjuncts.push(n);
  };
  split(where);
  if (disjuncts.length < 2) return undefined;
  let columns: ColumnNode[] | undefined;
  const rows: number[][] = [];
  for (const disjunct of disjuncts) {
    const terms: { column: ColumnNode; slot: number }[] = [];
    const collect = (n: SqlNode): boolean => {
      if (n.kind === 'binary' && n.op === 'AND') return collect(n.left) && collect(n.right);
      if (n.kind !== 'binary' || n.op !== '=') return false;
      if (n.left.kind === 'column' && n.right.kind === 'slot') terms.push({ column: n.left, slot: n.right.slot });
      else if (n.right.kind === 'column' && n.left.kind === 'slot') terms.push({ column: n.right, slot: n.left.slot });
      else return false;
      return true;
    };
    if (!collect(disjunct)) return undefined;
    const key = (c: ColumnNode) => `${c.table ?? ''}.${c.column}`;
    if (columns === undefined) columns = terms.map((t) => t.column);
    if (terms.length !== columns.length) return undefined;
    const byColumn = new Map(terms.map((t) => [key(t.column), t.slot]));
    const row = columns.map((c) => byColumn.get(key(c)));
    if (row.some((slot) => slot === undefined)) return undefined;
    rows.push(row as number[]);
  }
  return columns ? { columns, rows } : undefined;
}
