import { inListOf, slotOf, type AstNode } from './ast.js';
import type { KeyCondition } from './plan.js';

/** Decides whether a column reference is the shard key of the routing table (or of a table bound to it). */
export type IsKeyColumn = (node: AstNode) => boolean;

const ANY: KeyCondition = { kind: 'any' };

/**
 * Turns a WHERE expression into the key condition it implies. Anything not understood
 * becomes `any` (every shard): that is always safe, only slower. `prunable` collects the
 * IN lists that sit under ANDs only.
 */
export function keyConditionOf(where: AstNode | null | undefined, isKey: IsKeyColumn, prunable: number[]): KeyCondition {
  return where ? visit(where, isKey, prunable, true) : ANY;
}

function visit(node: AstNode, isKey: IsKeyColumn, prunable: number[], andOnly: boolean): KeyCondition {
  if (node.type !== 'binary_expr') return ANY;
  const op = String(node.operator).toUpperCase();
  switch (op) {
    case 'AND': {
      const terms = [visit(node.left, isKey, prunable, andOnly), visit(node.right, isKey, prunable, andOnly)];
      const useful = terms.filter((t) => t.kind !== 'any');
      if (useful.length === 0) return ANY;
      return useful.length === 1 ? useful[0]! : { kind: 'and', terms: useful };
    }
    case 'OR': {
      const terms = [visit(node.left, isKey, prunable, false), visit(node.right, isKey, prunable, false)];
      // One side unrestricted makes the whole OR unrestricted.
      if (terms.some((t) => t.kind === 'any')) return ANY;
      return { kind: 'or', terms };
    }
    case '=': {
      const l = slotOf(node.left);
      const r = slotOf(node.right);
      if (l !== undefined && r !== undefined) return { kind: 'const-equal', left: l, right: r };
      if (isKey(node.left) && r !== undefined) return { kind: 'values', refs: [{ kind: 'slot', slot: r }] };
      if (isKey(node.right) && l !== undefined) return { kind: 'values', refs: [{ kind: 'slot', slot: l }] };
      return ANY;
    }
    case 'IN': {
      if (!isKey(node.left)) return ANY;
      const list = inListOf(node.right);
      if (list !== undefined) {
        if (andOnly) prunable.push(list);
        return { kind: 'values', refs: [{ kind: 'in-list', list }] };
      }
      // `key IN (:p0, :p1)` written with expressions that are not plain values stays unrestricted.
      const items: AstNode[] = node.right?.type === 'expr_list' && Array.isArray(node.right.value) ? node.right.value : [];
      const slots = items.map((i) => slotOf(i));
      if (slots.length > 0 && slots.every((s) => s !== undefined)) {
        return { kind: 'values', refs: slots.map((slot) => ({ kind: 'slot', slot: slot! })) };
      }
      return ANY;
    }
    default:
      return ANY;
  }
}
