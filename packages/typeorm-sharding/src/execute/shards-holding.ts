import type { SqlDialect } from '../parameterize/index.js';
import type { SchemaObjectKind } from '../plan/ddl/ddl-target.js';
import type { PhysicalStatement } from '../rewrite/physical-statement.js';
import { schemaObjectProbe } from '../route/schema-object-probe.js';
import type { ShardSession } from '../session/shard-session.js';
import { executeStatements, type ExecutorSettings } from './executor.js';
import type { ShardTarget } from './shard-target.js';

/**
 * `statement` (DDL of a schema object named without its table, such as SQLite's `DROP INDEX i`)
 * for each shard that holds object `name`, asked with one probe per shard; none when no shard
 * does (the caller then lets the default shard answer as the database would alone: its own
 * "no such index" error, or nothing for `IF EXISTS`).
 */
export async function shardsHolding(object: SchemaObjectKind, name: string, statement: PhysicalStatement, dialect: SqlDialect, targets: readonly ShardTarget[], session: ShardSession, settings: ExecutorSettings): Promise<PhysicalStatement[]> {
  const probe = schemaObjectProbe(dialect, object, name);
  const probes = targets.map((t) => ({ shard: t.index, sql: probe.sql, parameters: probe.parameters }));
  const found = await executeStatements(probes, targets, session, settings);
  return targets.filter((_, i) => (found[i]!.records?.length ?? 0) > 0).map((t) => ({ ...statement, shard: t.index }));
}
