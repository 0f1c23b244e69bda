import type { ParameterizedSql } from '../../parameterize/index.js';
import type { Plan } from '../../plan/plan.js';
import type { PhysicalStatement } from '../../rewrite/physical-statement.js';
import type { RoutingHints } from '../../router/hints/hint.js';
import type { StatementDescriptor } from '../../router/statement.js';
import { describeShape, type ShapeDescriptor } from './statement-shape.js';

/**
 * Gives each physical statement of a logical statement the query router's descriptor of it
 * (`PhysicalStatement.route`): its shape's (computed once per plan), the hints of the
 * original text (TypeORM's `comment` option and `.comment()` write them in front), and the
 * number of shards the logical statement reaches (the analytics rule reads it).
 */
export class StatementRouting {
  private readonly shapes = new WeakMap<Plan, ShapeDescriptor>();

  constructor(private readonly hintsOf: (sql: string) => RoutingHints) {}

  /** `statements` with their descriptor (coalesced branches too: a failed branch is run again alone). */
  attach(statements: readonly PhysicalStatement[], p: ParameterizedSql, plan: Plan): PhysicalStatement[] {
    if (statements.length === 0) return [];
    let shape = this.shapes.get(plan);
    if (shape === undefined) this.shapes.set(plan, (shape = describeShape(p, plan)));
    const route: StatementDescriptor = { ...shape, hints: this.hintsOf(p.sql), shardCount: shardCountOf(statements) };
    // Two plain spreads, not one with a conditional part: V8 copies `{ ...s, route }` on its fast path.
    return statements.map((s) => (s.branches ? { ...s, route, branches: s.branches.map((b) => ({ ...b, route })) } : { ...s, route }));
  }
}

/** Distinct shards the statements reach (a coalesced statement counts each shard it carries). */
function shardCountOf(statements: readonly PhysicalStatement[]): number {
  // A table-per-shard layout's coalesced statement carries several tables of one shard.
  if (statements.length === 1) return statements[0]!.branches ? new Set(statements[0]!.branches.map((b) => b.shard)).size : 1;
  const shards = new Set<number>();
  for (const s of statements) {
    if (s.branches) for (const b of s.branches) shards.add(b.shard);
    else shards.add(s.shard);
  }
  return shards.size;
}
