/**
 * Prints an expression of the statement back as SQL, for the columns the merge adds to a
 * shard's select list (`… , CHAR_LENGTH(o.title) AS __shard_sort_0`). The physical
 * statement itself is never regenerated from a tree — it is the original text with these
 * columns spliced in — so only what such columns need is printable; anything else returns
 * undefined and the caller refuses the statement.
 */
import { UnsupportedShardingError } from '../../errors/index.js';
import type { SqlDialect } from '../../parameterize/index.js';
import type { SqlNode } from './sql-node.js';

/**
 * The deepest tree printed (printing recurses per level). The converter refuses deeper
 * expressions first (`from-parser.ts`, `MAX_NESTING`); this bound keeps a tree made another way
 * from overflowing the stack.
 */
export const MAX_PRINT_DEPTH = 1000;

/** Marks slot `n` in printed text; the rewrite replaces it with the statement's own text for that slot. */
export const slotMarker = (n: number): string => `\u0000${n}\u0000`;

/** Printed SQL whose value slots are written with {@link slotMarker}, to be filled with each statement's own text. */
export interface PrintedSql {
  readonly text: string;
  /** The slots referenced, in text order (a slot may occur twice). */
  readonly slots: readonly number[];
}

/** Quotes an identifier for the dialect. */
export function quoteIdentifier(name: string, dialect: SqlDialect): string {
  return dialect === 'mysql' ? `\`${name.replace(/`/g, '``')}\`` : `"${name.replace(/"/g, '""')}"`;
}

const WORD_OPERATORS = /^[A-Z ]+$/;

/** Prints `node`, or undefined when it holds something that is not printed (a subquery, an unmodelled construct, an IN list). */
export function printSql(node: SqlNode, dialect: SqlDialect): PrintedSql | undefined {
  const slots: number[] = [];
  const q = (name: string) => quoteIdentifier(name, dialect);
  const literal = (value: string | number | boolean | null): string => {
    if (value === null) return 'NULL';
    if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
    if (typeof value === 'number') return String(value);
    return `'${value.replace(/'/g, "''")}'`;
  };
  let depth = 0;
  const print = (n: SqlNode): string | undefined => {
    if (depth >= MAX_PRINT_DEPTH) {
      throw new UnsupportedShardingError(`An expression nested more than ${MAX_PRINT_DEPTH} levels deep cannot be added to the shards' select list; write it flatter.`, { stage: 'plan' });
    }
    depth++;
    try {
      return printNode(n);
    } finally {
      depth--;
    }
  };
  const printNode = (n: SqlNode): string | undefined => {
    switch (n.kind) {
      case 'column':
        return `${n.table !== undefined ? `${q(n.table)}.` : ''}${q(n.column)}${n.collate ? ` COLLATE ${n.collate}` : ''}`;
      case 'star':
        return n.table !== undefined ? `${q(n.table)}.*` : '*';
      case 'slot':
        slots.push(n.slot);
        return slotMarker(n.slot);
      case 'literal':
        return literal(n.value);
      case 'binary': {
        const left = print(n.left);
        const right = print(n.right);
        if (left === undefined || right === undefined) return undefined;
        if (n.op === 'BETWEEN' || n.op === 'NOT BETWEEN') {
          if (n.right.kind !== 'list' || n.right.items.length !== 2) return undefined;
          const [lo, hi] = n.right.items.map(print);
          return lo === undefined || hi === undefined ? undefined : `(${left} ${n.op} ${lo} AND ${hi})`;
        }
        return `(${left} ${n.op} ${right})`;
      }
      case 'unary': {
        const operand = print(n.operand);
        if (operand === undefined) return undefined;
        return WORD_OPERATORS.test(n.op) ? `(${n.op} ${operand})` : `(${n.op}${operand})`;
      }
      case 'function': {
        if (n.over) return undefined;
        const args = n.args.map(print);
        return args.some((a) => a === undefined) ? undefined : `${n.name}(${args.join(', ')})`;
      }
      case 'aggregate': {
        if (n.over || n.orderBy.length > 0 || n.separator !== undefined) return undefined;
        const args = n.args.map(print);
        return args.some((a) => a === undefined) ? undefined : `${n.name}(${n.distinct ? 'DISTINCT ' : ''}${args.join(', ')})`;
      }
      case 'case': {
        const parts: string[] = ['CASE'];
        if (n.operand) {
          const operand = print(n.operand);
          if (operand === undefined) return undefined;
          parts.push(operand);
        }
        for (const b of n.branches) {
          const when = print(b.when);
          const then = print(b.then);
          if (when === undefined || then === undefined) return undefined;
          parts.push(`WHEN ${when} THEN ${then}`);
        }
        if (n.otherwise) {
          const otherwise = print(n.otherwise);
          if (otherwise === undefined) return undefined;
          parts.push(`ELSE ${otherwise}`);
        }
        parts.push('END');
        return parts.join(' ');
      }
      case 'cast': {
        const operand = print(n.operand);
        return operand === undefined ? undefined : `CAST(${operand} AS ${n.target})`;
      }
      case 'list': {
        const items = n.items.map(print);
        return items.some((i) => i === undefined) ? undefined : `(${items.join(', ')})`;
      }
      case 'interval': {
        const value = print(n.value);
        return value === undefined ? undefined : `INTERVAL ${value} ${n.unit}`;
      }
      case 'in-list':
      case 'subquery':
      case 'keyword':
      case 'shard-evaluated':
        return undefined;
    }
  };
  const text = print(node);
  return text === undefined ? undefined : { text, slots };
}
