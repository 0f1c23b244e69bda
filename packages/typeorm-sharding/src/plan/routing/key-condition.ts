import type { KeyCondition, PrunableOr, PrunableOrTerm } from '../plan.js';
import type { SqlNode } from '../nodes/sql-node.js';
import { chainOf, forEachNode } from '../nodes/sql-tree.js';

/** Decides whether a column reference is the shard key of the routing table (or of a table bound to it). */
export type IsKeyColumn = (node: SqlNode) => boolean;

const ANY: KeyCondition = { kind: 'any' };

/**
 * Turns a WHERE expression into the key condition it implies. Anything not understood
 * becomes `any` (every shard): that is always safe, only slower. `prunable` collects the
 * IN lists that sit under ANDs only, `ors` the ORs there whose terms each name their own shards.
 */
export function keyConditionOf(where: SqlNode | undefined, isKey: IsKeyColumn, prunable: number[], ors: PrunableOr[] = []): KeyCondition {
  return where ? visit(where, isKey, prunable, true, ors) : ANY;
}

function visit(node: SqlNode, isKey: IsKeyColumn, prunable: number[], andOnly: boolean, ors: PrunableOr[] = []): KeyCondition {
  if (node.kind !== 'binary') return ANY;
  switch (node.op) {
    // A chain of AND / OR is one n-ary term (TypeORM's OR of thousands of composite keys would
    // otherwise nest one level per row, here and in the router's evaluation).
    case 'AND': {
      const terms = chainOf(node, 'AND').map((t) => visit(t, isKey, prunable, andOnly, ors));
      const useful = terms.filter((t) => t.kind !== 'any');
      if (useful.length === 0) return ANY;
      return useful.length === 1 ? useful[0]! : { kind: 'and', terms: useful };
    }
    case 'OR': {
      const operands = chainOf(node, 'OR');
      const terms = operands.map((t) => visit(t, isKey, prunable, false));
      // One side unrestricted makes the whole OR unrestricted.
      if (terms.some((t) => t.kind === 'any')) return ANY;
      if (andOnly) {
        const prunableTerms = operands.map((operand, i) => prunableTerm(operand, terms[i]!));
        if (prunableTerms.every((t) => t !== undefined)) ors.push({ terms: prunableTerms });
      }
      return { kind: 'or', terms };
    }
    case '=': {
      const { left, right } = node;
      if (left.kind === 'slot' && right.kind === 'slot') return { kind: 'const-equal', left: left.slot, right: right.slot };
      if (isKey(left) && right.kind === 'slot') return { kind: 'values', refs: [{ kind: 'slot', slot: right.slot }] };
      if (isKey(right) && left.kind === 'slot') return { kind: 'values', refs: [{ kind: 'slot', slot: left.slot }] };
      return ANY;
    }
    case 'IN': {
      if (!isKey(node.left)) return ANY;
      const right = node.right;
      if (right.kind === 'in-list') {
        if (andOnly) prunable.push(right.list);
        return { kind: 'values', refs: [{ kind: 'in-list', list: right.list }] };
      }
      // `key IN (:p0, :p1)` written with expressions that are not plain values stays unrestricted.
      if (right.kind === 'list' && right.items.length > 0 && right.items.every((i) => i.kind === 'slot')) {
        return { kind: 'values', refs: right.items.map((i) => ({ kind: 'slot', slot: (i as { slot: number }).slot })) };
      }
      return ANY;
    }
    default:
      return ANY;
  }
}

/**
 * A term of an OR as the rewrite can find it in the text: by its first and last value slot. A
 * term without a slot, or with an IN list (whose items are not slots), is not found that way.
 */
function prunableTerm(node: SqlNode, condition: KeyCondition): PrunableOrTerm | undefined {
  let first: number | undefined;
  let last: number | undefined;
  let listed = false;
  forEachNode(node, (n) => {
    if (n.kind === 'in-list') listed = true;
    if (n.kind === 'slot') {
      first = first === undefined ? n.slot : Math.min(first, n.slot);
      last = last === undefined ? n.slot : Math.max(last, n.slot);
    }
  });
  if (listed || first === undefined || last === undefined) return undefined;
  return { condition, firstSlot: first, lastSlot: last };
}
