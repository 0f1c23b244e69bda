import { columnRefOf, textOf, type AstNode } from './ast.js';

const quote = (name: string) => `\`${name.replace(/`/g, '``')}\``;

/**
 * SQL text (backtick identifiers, re-quoted per dialect by the rewrite) of the expressions the
 * planner copies into derived columns: column references, `*`, and aggregates over them.
 * Undefined for anything else, which the caller treats as "cannot merge".
 */
export function expressionText(node: AstNode | null | undefined): string | undefined {
  if (!node) return undefined;
  if (node.type === 'star') return '*';
  const ref = columnRefOf(node);
  if (ref) {
    if (ref.column === '*') return ref.table ? `${quote(ref.table)}.*` : '*';
    return ref.table ? `${quote(ref.table)}.${quote(ref.column)}` : quote(ref.column);
  }
  if (node.type === 'aggr_func') {
    const name = String(node.name).toUpperCase();
    const arg = expressionText(node.args?.expr);
    if (arg === undefined) return undefined;
    return `${name}(${node.args?.distinct ? 'DISTINCT ' : ''}${arg})`;
  }
  return undefined;
}

/** The alias of a select-list item, or its column name when it has none. */
export function aliasOfColumn(item: AstNode): string | undefined {
  if (item.as) return textOf(item.as);
  return columnRefOf(item.expr)?.column;
}
