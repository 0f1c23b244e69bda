import { UnsupportedShardingError } from '../../errors/index.js';
import type { ParameterizedSql, SqlDialect } from '../../parameterize/index.js';
import type { ShardingRules } from '../../rules/index.js';
import { ddlTargetOf, type DdlTarget } from './ddl-target.js';
import type { Plan } from '../plan.js';
import { isIdentifier, statementTokens } from '../nodes/statement-tokens.js';
import { ddlRuleOf, isRebuildPair } from './table-rebuild.js';
import { mentionsDistributedTable } from '../nodes/table-refs.js';

/**
 * Where a DDL statement runs, whatever its quoting:
 * - it changes a sharded or broadcast table (a `temporary_<name>` rebuild copy counts as
 *   `<name>`): every shard, one after the other;
 * - it changes only other tables: the default shard, where unsharded tables live;
 * - it names an index, trigger or view without its table (SQLite's `DROP INDEX i`): every
 *   shard that holds the object;
 * - anything it cannot place exactly is refused: a statement changing sharded and unsharded
 *   tables at once, a table or view built from a sharded table's rows (it would hold one
 *   shard's rows), an unknown form that names a sharded or broadcast table.
 */
export function analyzeDdl(p: ParameterizedSql, rules: ShardingRules, dialect: SqlDialect): Plan {
  const target = ddlTargetOf(p.sql, dialect);
  switch (target.kind) {
    case 'tables':
      return tablesPlan(target, rules, p.sql);
    case 'objects': {
      const [first, ...more] = target.names;
      if (more.length > 0) {
        throw new UnsupportedShardingError(
          `DROP ${target.object.toUpperCase()} of several ${target.object}s in one statement is not supported on a ShardedDataSource: each may live on other shards. Drop one per statement.`,
          { sql: p.sql },
        );
      }
      if (first!.qualifier !== undefined && !(dialect === 'sqlite' && first!.qualifier.toLowerCase() === 'main')) {
        throw new UnsupportedShardingError(
          `"${first!.qualifier}.${first!.name}" names a database, but every shard has its own; write the ${target.object} name alone.`,
          { sql: p.sql },
        );
      }
      return { kind: 'where-exists', object: target.object, name: first!.name };
    }
    case 'view': {
      const sharded = target.reads.find((name) => rules.distributionOf(name) === 'sharded');
      if (sharded) {
        throw new UnsupportedShardingError(
          `View "${target.name}" reads sharded table "${sharded}"; a view lives on one shard and would see only that shard's rows. Query the table itself.`,
          { sql: p.sql },
        );
      }
      return { kind: 'default-shard', reason: 'a view lives on the default shard' };
    }
    case 'database':
      return { kind: 'all-shards', reason: 'DDL of every database', result: 'default-shard' };
    case 'unknown': {
      if (!mentionsDistributedTable(p.sql, dialect, rules)) return { kind: 'default-shard', reason: 'names no sharded or broadcast table' };
      throw new UnsupportedShardingError(
        `This ${p.verb} statement names a sharded or broadcast table, but which tables it changes cannot be told; run it on each shard with getShardDataSource(name).query().`,
        { sql: p.sql },
      );
    }
  }
}

function tablesPlan(target: Extract<DdlTarget, { kind: 'tables' }>, rules: ShardingRules, sql: string): Plan {
  const isDistributed = (name: string) => (ddlRuleOf(name, rules)?.distribution ?? 'unsharded') !== 'unsharded';
  const distributed = target.groups.map((group) => group.some(isDistributed));
  if (distributed.some((d) => d !== distributed[0])) {
    const a = target.groups[distributed.indexOf(true)]![0]!;
    const b = target.groups[distributed.indexOf(false)]![0]!;
    throw new UnsupportedShardingError(
      `This statement changes "${a}", which lives on every shard, and "${b}", which lives on the default shard only; write one statement per table.`,
      { sql },
    );
  }
  const subjects = target.groups.flat();
  const foreign = target.reads.find((name) => rules.distributionOf(name) === 'sharded' && !(distributed[0] && subjects.some((s) => isRebuildPair(s, name))));
  if (foreign) {
    throw new UnsupportedShardingError(
      `"${subjects[0]}" would be filled from sharded table "${foreign}" on ${distributed[0] ? 'each shard with that shard\'s rows' : 'the default shard with only that shard\'s rows'}; create the table, then insert the rows through the ShardedDataSource.`,
      { sql },
    );
  }
  return distributed[0]
    ? { kind: 'all-shards', reason: 'DDL of a sharded or broadcast table', result: 'default-shard' }
    : { kind: 'default-shard', reason: 'names no sharded or broadcast table' };
}

/** SQLite PRAGMAs that read the schema of one table or index (TypeORM's `getTable`, `hasColumn` …). */
const SCHEMA_READS = new Set(['table_info', 'table_xinfo', 'index_list', 'index_info', 'index_xinfo', 'foreign_key_list']);

/**
 * PRAGMA: a schema read is answered by the default shard, which holds every table (sharded and
 * broadcast tables live on every shard, unsharded ones on the default shard); anything else
 * (settings, checks, maintenance) applies per database and runs on every shard.
 */
export function analyzePragma(p: ParameterizedSql, dialect: SqlDialect): Plan {
  const tokens = statementTokens(p.sql, dialect);
  let at = 1;
  if (tokens[at + 1]?.text === '.') at += 2;
  const name = tokens[at];
  const assigns = tokens.some((t) => t.text === '=');
  if (isIdentifier(name) && SCHEMA_READS.has(name!.text.toLowerCase()) && !assigns) {
    return { kind: 'default-shard', reason: 'schema read: the default shard holds every table' };
  }
  return { kind: 'all-shards', reason: 'PRAGMA applies per database', result: 'default-shard' };
}
