import type { ColumnNode, SqlNode } from '../nodes/sql-node.js';
import { chainOf } from '../nodes/sql-tree.js';

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
 * The rows a WHERE lists: an OR of the same conjunction of `column = value` terms, alone or as
 * one conjunct of an AND whose other conjuncts only filter (TypeORM adds `AND (deletedAt IS
 * NULL)` for an entity with a `@DeleteDateColumn`); undefined for anything else, and when two
 * conjuncts list rows (which order would be meant is unknown). Without ORDER BY a database may
 * return rows in any order, but TypeORM maps such re-reads back to its entities by position,
 * so the merge returns them in the order they are listed.
 *
 * Iterative: TypeORM lists thousands of rows in one OR chain, one level of the tree each.
 */
export function listedRowsOf(where: SqlNode | undefined): ListedRows | undefined {
  if (!where) return undefined;
  let found: ListedRows | undefined;
  for (const conjunct of chainOf(where, 'AND')) {
    const listed = listingOf(conjunct);
    if (!listed) continue;
    if (found) return undefined;
    found = listed;
  }
  return found;
}


function listingOf(node: SqlNode): ListedRows | undefined {
  const disjuncts = chainOf(node, 'OR');
  if (disjuncts.length < 2) return undefined;
  let columns: ColumnNode[] | undefined;
  const rows: number[][] = [];
  const key = (c: ColumnNode) => `${c.table ?? ''}.${c.column}`;
  for (const disjunct of disjuncts) {
    const terms: { column: ColumnNode; slot: number }[] = [];
    for (const n of chainOf(disjunct, 'AND')) {
      if (n.kind !== 'binary' || n.op !== '=') return undefined;
      if (n.left.kind === 'column' && n.right.kind === 'slot') terms.push({ column: n.left, slot: n.right.slot });
      else if (n.right.kind === 'column' && n.left.kind === 'slot') terms.push({ column: n.right, slot: n.left.slot });
      else return undefined;
    }
    if (columns === undefined) columns = terms.map((t) => t.column);
    if (terms.length !== columns.length) return undefined;
    const byColumn = new Map(terms.map((t) => [key(t.column), t.slot]));
    const row = columns.map((c) => byColumn.get(key(c)));
    if (row.some((slot) => slot === undefined)) return undefined;
    rows.push(row as number[]);
  }
  return columns ? { columns, rows } : undefined;
}
