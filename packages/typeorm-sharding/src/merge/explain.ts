import type { Describable, MergeOperator, Row } from './row.js';

function isDescribable(node: unknown): node is Describable {
  return typeof (node as Partial<Describable>).describe === 'function';
}

function isOperator(node: AsyncIterable<Row>): node is MergeOperator {
  return isDescribable(node) && Array.isArray((node as Partial<MergeOperator>).inputs);
}

/**
 * Prints an operator and everything below it as a tree, one `describe()` per line:
 *
 * ```text
 * Limit(offset=20, count=20)
 * └─ MergeSort(1 key: create_time DESC) over 2 inputs
 *    ├─ input 0
 *    └─ input 1
 * ```
 *
 * Inputs that are not operators print their own `describe()` when they have one (an
 * executor stream may name its shard and SQL), else `input <n>`.
 */
export function explainTree(root: AsyncIterable<Row>): string {
  const lines: string[] = [];
  const visit = (node: AsyncIterable<Row>, index: number, lead: string, indent: string): void => {
    lines.push(lead + (isDescribable(node) ? node.describe() : `input ${index}`));
    if (!isOperator(node)) return;
    node.inputs.forEach((input, i) => {
      const last = i === node.inputs.length - 1;
      visit(input, i, `${indent}${last ? '└─ ' : '├─ '}`, `${indent}${last ? '   ' : '│  '}`);
    });
  };
  visit(root, 0, '', '');
  return lines.join('\n');
}
