import type { QueryResult } from 'typeorm';
import type { PhysicalStatement } from '../rewrite/physical-statement.js';
import type { ShardSession } from '../session/shard-session.js';
import { executeStatements, type ExecutorSettings } from './executor.js';
import type { ShardTarget } from './shard-target.js';

/** Runs statements one after the other (DDL, broadcast copies): a failure stops the rest. */
export async function executeInOrder(statements: readonly PhysicalStatement[], targets: readonly ShardTarget[], session: ShardSession, settings: ExecutorSettings): Promise<QueryResult[]> {
  const results: QueryResult[] = [];
  for (const s of statements) results.push(...(await executeStatements([s], targets, session, settings)));
  return results;
}
