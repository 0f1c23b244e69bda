/** True when two lists name the same columns, in any order (MySQL column names ignore case). */
export function sameColumnSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.some((y) => y.toLowerCase() === x.toLowerCase()));
}

/** True when `columns` names `column` (ignoring case). */
export function hasColumn(columns: readonly string[], column: string): boolean {
  return columns.some((c) => c.toLowerCase() === column.toLowerCase());
}
