/**
 * Turns the part of an expression that sits above its aggregates (`COALESCE(SUM(x), 0)`,
 * `HAVING SUM(a * b) > ?`) into a `ScalarExpression` the merge evaluates on merged rows.
 */
import { EVALUATED_FUNCTIONS, EVALUATED_OPERATORS, type LeafType, type ScalarExpression } from '../../values/evaluate/expression.js';
import type { SqlDialect } from '../../parameterize/index.js';
import type { ExprType } from '../typing/expression-type.js';
import type { SqlNode } from '../nodes/sql-node.js';
import { someNode } from '../nodes/sql-tree.js';

/** Where a leaf of the expression is found in the merged row, or why it cannot be. */
export type LeafResolver = (
  node: SqlNode,
) => { readonly column: string; readonly type: ExprType; /** The column holds more digits than the value shows (a sum of quotients sent at full precision). */ readonly fullPrecision?: boolean } | { readonly problem: string };

/** The evaluator's view of a planner type. */
export function leafTypeOf(type: ExprType, dialect: SqlDialect): LeafType {
  // SQLite values carry their storage class, but a COUNT the merge computes of no row is a
  // JavaScript 0 where the shards' integers come as bigints: the typer's INT keeps it an INTEGER.
  if (dialect === 'sqlite') return type.kind === 'number' && type.class === 'int' && type.inexact !== true ? { class: 'int' } : { class: 'auto' };
  switch (type.kind) {
    case 'number':
      if (type.inexact) return { class: 'number' };
      return type.class === 'decimal' ? { class: 'decimal', ...(type.scale !== undefined ? { scale: type.scale } : {}) } : { class: type.class };
    case 'text':
      return { class: 'text' };
    case 'null':
      return { class: 'other' };
    default:
      return { class: 'other' };
  }
}

/** Functions whose value is one of their arguments' (so a text argument makes a text result). */
const BRANCHING = new Set(['COALESCE', 'IFNULL', 'NULLIF', 'GREATEST', 'LEAST']);

const COMPARISONS = new Set(['=', '<>', '!=', '<', '<=', '>', '>=', '<=>', 'IN', 'NOT IN', 'BETWEEN', 'NOT BETWEEN']);

/**
 * The expression for the merge, or a problem naming what it cannot evaluate. `resolve` maps
 * aggregates and columns to result columns; literals, value slots, operators, CASE and the
 * functions of {@link EVALUATED_FUNCTIONS} are evaluated by the merge itself.
 */
export function scalarOf(
  node: SqlNode,
  resolve: LeafResolver,
  dialect: SqlDialect,
  /** True for an aggregate-free part the shards can compute as a column of their rows (see `visit`). */
  onShards: (n: SqlNode) => boolean = () => false,
  /** The SQL type of any part of the expression (the planner's typer), where it is known. */
  typeOf?: (n: SqlNode) => ExprType,
): ScalarExpression | { readonly problem: string } {
  /** True when `n` may be a text value on MySQL: a text leaf, or a branching function / CASE that may return one. */
  const textOnMysql = (n: SqlNode): boolean => {
    if (dialect !== 'mysql') return false;
    switch (n.kind) {
      case 'aggregate':
      case 'column': {
        const leaf = resolve(n);
        return 'type' in leaf && (leaf.type.kind === 'text' || leaf.type.kind === 'column' || leaf.type.kind === 'unknown');
      }
      case 'function':
        if (n.name === 'IF') return n.args.slice(1).some(textOnMysql);
        return BRANCHING.has(n.name) && n.args.some(textOnMysql);
      case 'case':
        return n.branches.some((b) => textOnMysql(b.then)) || (n.otherwise !== undefined && textOnMysql(n.otherwise));
      default:
        return false;
    }
  };
  const visit = (n: SqlNode): ScalarExpression => {
    // A part without aggregates that reads columns has one value per group: the shards compute
    // it (a select item or group key already holds it), with the server's own conversions,
    // affinities and collations (`price BETWEEN '9.99' AND '100'` on SQLite compares numbers).
    if (n.kind !== 'column' && n.kind !== 'aggregate' && onShards(n)) {
      const leaf = resolve(n);
      if (!('problem' in leaf) && !(dialect === 'mysql' && leaf.type.kind === 'unknown')) return { kind: 'column', column: leaf.column, type: leafTypeOf(leaf.type, dialect) };
    }
    switch (n.kind) {
      case 'aggregate':
      case 'column': {
        // MariaDB reads BIT_AND/OR/XOR's unsigned 64-bit value as signed inside an expression
        // (`CASE … THEN BIT_XOR(x) ELSE MAX(d) END` answers -5 for 2^64 - 5): only whole items are merged.
        if (n.kind === 'aggregate' && dialect === 'mysql' && /^BIT_(AND|OR|XOR)$/.test(n.name)) throw new Unsupported(`${n.name}() inside an expression`);
        // MySQL's AVG is SUM / COUNT with DECIMAL division; inside an expression the server goes on
        // with the quotient at its internal precision, not the rounded AVG it would show.
        if (n.kind === 'aggregate' && dialect === 'mysql' && n.name === 'AVG' && n.args.length === 1) {
          const part = (name: string): SqlNode => ({ ...n, name });
          return { kind: 'operator', op: '/', args: [visit(part('SUM')), visit(part('COUNT'))] };
        }
        const leaf = resolve(n);
        if ('problem' in leaf) throw new Unsupported(leaf.problem);
        if (dialect === 'mysql' && leaf.type.kind === 'unknown') {
          throw new Unsupported('a value whose SQL type is not known (write it as CAST(… AS SIGNED / DECIMAL))');
        }
        const type = leafTypeOf(leaf.type, dialect);
        return { kind: 'column', column: leaf.column, type: leaf.fullPrecision && type.scale !== undefined ? { ...type, fullPrecision: true } : type };
      }
      case 'slot':
        return { kind: 'slot', slot: n.slot };
      case 'literal':
        return { kind: 'constant', value: n.value, numeric: typeof n.value === 'number' };
      case 'unary':
        if (n.op === '+') return visit(n.operand);
        if (!EVALUATED_OPERATORS.has(n.op)) throw new Unsupported(`the operator ${n.op}`);
        return { kind: 'operator', op: n.op, args: [visit(n.operand)] };
      case 'binary': {
        if (!EVALUATED_OPERATORS.has(n.op) || (n.op === 'DIV' && dialect !== 'mysql') || (n.op === 'XOR' && dialect !== 'mysql')) throw new Unsupported(`the operator ${n.op}`);
        if ((n.op === 'IS' || n.op === 'IS NOT') && !(n.right.kind === 'literal' && n.right.value === null)) throw new Unsupported(`${n.op} TRUE / FALSE`);
        // MySQL compares text under the column's collation, which only the server knows.
        if (COMPARISONS.has(n.op) && (textOnMysql(n.left) || (n.right.kind !== 'list' && textOnMysql(n.right)))) {
          throw new Unsupported('a comparison of text values (its collation is applied by the server)');
        }
        if (n.op === 'BETWEEN' || n.op === 'NOT BETWEEN' || n.op === 'IN' || n.op === 'NOT IN') {
          if (n.right.kind !== 'list') throw new Unsupported(`${n.op} with a value list written as one parameter`);
          return { kind: 'operator', op: n.op, args: [visit(n.left), ...n.right.items.map(visit)] };
        }
        return { kind: 'operator', op: n.op, args: [visit(n.left), visit(n.right)] };
      }
      case 'function': {
        if (n.over || !EVALUATED_FUNCTIONS[dialect].has(n.name)) throw new Unsupported(`the function ${n.name}()`);
        if (BRANCHING.has(n.name) || n.name === 'IF') untypedBranches(n.name === 'IF' ? n.args.slice(1) : n.args, `${n.name}()`);
        // NULLIF, GREATEST and LEAST compare their arguments: text under the server's collation.
        if ((n.name === 'NULLIF' || n.name === 'GREATEST' || n.name === 'LEAST') && n.args.some(textOnMysql)) {
          throw new Unsupported(`${n.name}() of text values (its comparison follows the server's collation)`);
        }
        if (dialect === 'mysql' && n.name === 'ROUND' && n.args[0] && (resolveType(n.args[0]) === 'real' || mayBeDouble(n.args[0]))) {
          throw new Unsupported('ROUND() of a floating-point value (the server rounds doubles its own way)');
        }
        return { kind: 'call', name: n.name, args: n.args.map(visit) };
      }
      case 'case':
        untypedBranches([...n.branches.map((b) => b.then), ...(n.otherwise ? [n.otherwise] : [])], 'CASE');
        if (n.operand && textOnMysql(n.operand)) throw new Unsupported('a CASE comparing text values (its collation is applied by the server)');
        return {
          kind: 'case',
          operand: n.operand ? visit(n.operand) : undefined,
          branches: n.branches.map((b) => ({ when: visit(b.when), then: visit(b.then) })),
          otherwise: n.otherwise ? visit(n.otherwise) : undefined,
        };
      default:
        throw new Unsupported(describeNode(n));
    }
  };
  /**
   * MySQL types CASE / COALESCE / IF by all their branches at once (a DECIMAL and a DOUBLE
   * branch make a DOUBLE): a branch whose number class is not known (arithmetic with a
   * literal, `qty - 1`) leaves the result's type unknown.
   */
  const untypedBranches = (branches: readonly SqlNode[], what: string): void => {
    if (dialect !== 'mysql') return;
    const untyped = branches.some((b) => someNode(b, (x) => (x.kind === 'aggregate' || x.kind === 'column') && resolveClass(x) === 'number'));
    if (untyped) throw new Unsupported(`${what} over a number whose SQL type is not known (write it as CAST(… AS SIGNED / DECIMAL(p, s)))`);
  };
  const resolveClass = (n: SqlNode): string | undefined => {
    const leaf = resolve(n);
    return 'type' in leaf ? leafTypeOf(leaf.type, dialect).class : undefined;
  };
  /** True when the typer says `n` is a DOUBLE or a number of unknown class (a CASE with a DOUBLE branch, `x + ?`). */
  const mayBeDouble = (n: SqlNode): boolean => {
    const type = typeOf?.(n);
    return type !== undefined && (type.kind === 'unknown' || (type.kind === 'number' && (type.class === 'real' || type.inexact === true)));
  };
  const resolveType = (n: SqlNode): string | undefined => {
    if (n.kind !== 'aggregate' && n.kind !== 'column') return undefined;
    const leaf = resolve(n);
    return 'type' in leaf && leaf.type.kind === 'number' ? leaf.type.class : undefined;
  };
  try {
    return visit(node);
  } catch (error) {
    if (error instanceof Unsupported) return { problem: error.message };
    throw error;
  }
}

class Unsupported extends Error {}

function describeNode(n: SqlNode): string {
  switch (n.kind) {
    case 'cast':
      return 'CAST()';
    case 'subquery':
      return 'a subquery';
    case 'shard-evaluated':
      return n.what;
    case 'keyword':
      return `the keyword ${n.text}`;
    case 'in-list':
      return 'an IN list';
    default:
      return n.kind;
  }
}
