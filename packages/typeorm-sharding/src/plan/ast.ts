/**
 * Small helpers over node-sql-parser's MySQL AST. The parser's own types are loose, so the
 * planner works on `AstNode` and checks shapes where it relies on them.
 */
import nsp from 'node-sql-parser/build/mysql.js';

/** Any node of node-sql-parser's AST. */
export type AstNode = Record<string, any>;

const parser = new nsp.Parser();

/** Parses `parserSql` (MySQL grammar). Throws the parser's error on a syntax it does not know. */
export function parseStatement(parserSql: string): AstNode {
  const ast = parser.astify(parserSql, { database: 'MySQL' }) as AstNode | AstNode[];
  return Array.isArray(ast) ? (ast[0] as AstNode) : ast;
}

/** A column reference, normalized: `table` is the qualifier (alias or table name) or undefined. */
export interface ColumnRef {
  readonly table: string | undefined;
  readonly column: string;
}

/** The column a node refers to, or undefined when the node is not a plain column reference. */
export function columnRefOf(node: AstNode | null | undefined): ColumnRef | undefined {
  if (!node || node.type !== 'column_ref') return undefined;
  const table = textOf(node.table);
  const column = textOf(node.column);
  if (column === undefined) return undefined;
  return { table, column };
}

/** The text of a name node: plain string, `{ value }`, or `{ expr: { value } }`. */
export function textOf(node: unknown): string | undefined {
  if (node === null || node === undefined) return undefined;
  if (typeof node === 'string') return node;
  if (typeof node === 'object') {
    const n = node as AstNode;
    if (typeof n.value === 'string') return n.value;
    if (n.expr) return textOf(n.expr);
  }
  return undefined;
}

/** Slot number of a `:p<n>` param node, or undefined. */
export function slotOf(node: AstNode | null | undefined): number | undefined {
  if (!node || node.type !== 'param' || typeof node.value !== 'string') return undefined;
  const m = /^p(\d+)$/.exec(node.value);
  return m ? Number(m[1]) : undefined;
}

/** IN-list number of an `(:l<k>)` expression list, or undefined. */
export function inListOf(node: AstNode | null | undefined): number | undefined {
  if (!node || node.type !== 'expr_list' || !Array.isArray(node.value) || node.value.length !== 1) return undefined;
  const item = node.value[0] as AstNode;
  if (item?.type !== 'param' || typeof item.value !== 'string') return undefined;
  const m = /^l(\d+)$/.exec(item.value);
  return m ? Number(m[1]) : undefined;
}

/** Calls `visit` for every object in the tree (depth first, parents before children). */
export function walk(node: unknown, visit: (n: AstNode) => void): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const child of node) walk(child, visit);
    return;
  }
  visit(node as AstNode);
  for (const key in node as AstNode) {
    if (key === 'loc' || key === 'tableList' || key === 'columnList') continue;
    walk((node as AstNode)[key], visit);
  }
}

/** Every SELECT node in the tree, the root first (derived tables, subqueries, UNION parts). */
export function selectsOf(root: AstNode): AstNode[] {
  const found: AstNode[] = [];
  walk(root, (n) => {
    if (n.type === 'select') found.push(n);
  });
  return found;
}

/** The FROM items of a SELECT as an array. */
export function fromItemsOf(select: AstNode): AstNode[] {
  const from = select.from;
  if (!from) return [];
  return Array.isArray(from) ? from : [from];
}
