import type { SqlDialect } from '../parameterize/index.js';
import type { WhereExistsPlan } from '../plan/plan.js';
import type { PhysicalStatement } from '../rewrite/physical-statement.js';
import { schemaObjectProbe } from '../route/schema-object-probe.js';
import type { ShardSession } from '../session/shard-session.js';
import { executeStatements, type ExecutorSettings } from './executor.js';
import type { ShardTarget } from './shard-target.js';

/**
 * The statement of a `where-exists` plan for each shard that holds its object (asked with one
 * probe per shard), or for the default shard when none does, so that the database answers
 * as it would alone: its own "no such index" error, or nothing for `IF EXISTS`.
 */
export async function shardsHolding(plan: WhereExistsPlan, statement: PhysicalStatement, dialect: SqlDialect, targets: readonly ShardTarget[], session: ShardSession, settings: ExecutorSettings): Promise<PhysicalStatement[]> {
  const probe = schemaObjectProbe(dialect, plan.object, plan.name);
  const probes = targets.map((t) => ({ shard: t.index, sql: probe.sql, parameters: probe.parameters }));
  const found = await executeStatements(probes, targets, session, settings);
  const holding = targets.filter((_, i) => (found[i]!.records?.length ?? 0) > 0).map((t) => t.index);
  return (holding.length > 0 ? holding : [0]).map((shard) => ({ ...statement, shard }));
}
