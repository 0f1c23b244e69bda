import type { SqlDialect } from '../../parameterize/index.js';
import { ShardingConfigError } from '../../errors/index.js';
import { quoted } from '../statement-text.js';

/** The table (on the default shard) that records the builds of global indexes, so that a killed build resumes. */
export const BUILD_STATE_TABLE = 'tsh_index_builds';

/**
 * Where an index's build stands. An index without a row is `ready` (it was created with its
 * owner table, or built).
 * - `backfilling`: write-only: every write maintains it, no read uses it, and the backfill has
 *   done the owner rows up to `cursor` (in primary-key order; undefined: none yet).
 * - `conflicts`: backfilled, but values are owned twice: it stays write-only until they are
 *   resolved and the build is run again.
 * - `ready`: verified; reads are routed through it.
 */
export type BuildPhase = 'backfilling' | 'conflicts' | 'ready';

/** One index's build state. */
export interface BuildState {
  readonly lookupTable: string;
  readonly phase: BuildPhase;
  /** The primary-key values of the last owner row done (`backfilling`). */
  readonly cursor?: readonly unknown[] | undefined;
}

/** Runs one statement (through the sharded source: the state table is an unsharded table of the default shard). */
export type StateQuery = (sql: string, parameters: readonly unknown[]) => Promise<Record<string, unknown>[]>;

const PHASES: readonly string[] = ['backfilling', 'conflicts', 'ready'] satisfies readonly BuildPhase[];

/** `CREATE TABLE IF NOT EXISTS` of the state table. */
export function createStateTableSql(dialect: SqlDialect): string {
  const q = (c: string) => quoted(c, dialect);
  const text = dialect === 'mysql' ? 'VARCHAR(190)' : 'TEXT';
  return `CREATE TABLE IF NOT EXISTS ${q(BUILD_STATE_TABLE)} (${q('lookup_table')} ${text} NOT NULL PRIMARY KEY, ${q('phase')} ${dialect === 'mysql' ? 'VARCHAR(20)' : 'TEXT'} NOT NULL, ${q('cursor')} ${dialect === 'mysql' ? 'TEXT' : 'TEXT'} NULL)`;
}

/** The recorded builds, or an empty list when the table does not exist (no build ever started). */
export async function readBuildStates(query: StateQuery, dialect: SqlDialect): Promise<BuildState[]> {
  const q = (c: string) => quoted(c, dialect);
  let rows: Record<string, unknown>[];
  try {
    rows = await query(`SELECT ${q('lookup_table')}, ${q('phase')}, ${q('cursor')} FROM ${q(BUILD_STATE_TABLE)}`, []);
  } catch (error) {
    const driver = (error as { driverError?: { code?: string; message?: string } }).driverError;
    if (driver?.code === 'ER_NO_SUCH_TABLE' || /no such table/i.test(driver?.message ?? (error as Error).message ?? '')) return [];
    throw error;
  }
  return rows.map((r) => {
    const phase = String(r.phase);
    // Closed world: a phase this version does not know is not taken for any it does.
    if (!PHASES.includes(phase)) {
      throw new ShardingConfigError(`${BUILD_STATE_TABLE} holds phase "${phase}" for the index ${String(r.lookup_table)}, which this version does not know (known: ${PHASES.join(', ')}); was it written by a newer version?`);
    }
    const cursor = r.cursor === null || r.cursor === undefined ? undefined : (JSON.parse(String(r.cursor)) as unknown[]);
    return { lookupTable: String(r.lookup_table), phase: phase as BuildPhase, cursor };
  });
}

/** Records a build's state (one upsert of its row). */
export async function writeBuildState(query: StateQuery, dialect: SqlDialect, state: BuildState): Promise<void> {
  const q = (c: string) => quoted(c, dialect);
  const cursor = state.cursor === undefined ? null : JSON.stringify(state.cursor.map((v) => (typeof v === 'bigint' ? v.toString() : v)));
  const table = q(BUILD_STATE_TABLE);
  const columns = `(${q('lookup_table')}, ${q('phase')}, ${q('cursor')}) VALUES (?, ?, ?)`;
  const sql =
    dialect === 'mysql'
      ? `INSERT INTO ${table} ${columns} ON DUPLICATE KEY UPDATE ${q('phase')} = VALUES(${q('phase')}), ${q('cursor')} = VALUES(${q('cursor')})`
      : `INSERT INTO ${table} ${columns} ON CONFLICT (${q('lookup_table')}) DO UPDATE SET ${q('phase')} = excluded.${q('phase')}, ${q('cursor')} = excluded.${q('cursor')}`;
  await query(sql, [state.lookupTable, state.phase, cursor]);
}
