import { UnreadableStatementError, UnsupportedShardingError } from '../errors/index.js';
import type { ParameterizedSql, SqlDialect } from '../parameterize/index.js';
import type { ShardingRules } from '../rules/index.js';
import { parseStatement, type ParserSyntaxError } from './nodes/from-parser.js';
import { analyzeCompound } from './compound/analyze-compound.js';
import { analyzeDdl, analyzePragma } from './ddl/analyze-ddl.js';
import { analyzeInsert } from './write/analyze-insert.js';
import { analyzeSelect } from './select/analyze-select.js';
import { analyzeWrite } from './write/analyze-write.js';
import type { Plan } from './plan.js';
import { pulledInsertPlan, pulledSubqueryPlan } from './subquery/pulled-subquery.js';
import { transactionControlOf } from './transaction-control.js';
import { mentionsDistributedTable, quotedIdentifiersOf } from './nodes/table-refs.js';

const DDL_VERBS = new Set(['CREATE', 'ALTER', 'DROP', 'TRUNCATE', 'RENAME', 'COMMENT', 'OPTIMIZE', 'ANALYZE']);

/**
 * Decides what to do with one statement shape. Runs once per shape (plan-cache miss);
 * everything value-dependent is left to `route`.
 */
export function analyze(p: ParameterizedSql, rules: ShardingRules, dialect: SqlDialect): Plan {
  const control = transactionControlOf(p);
  if (control) return { kind: 'session', control };

  const verb = p.verb;
  if (DDL_VERBS.has(verb)) return analyzeDdl(p, rules, dialect);
  if (verb === 'PRAGMA') return analyzePragma(p, dialect);
  // Statements that name no sharded or broadcast table need no parsing: default shard as is.
  if (!mentionsDistributedTable(p.sql, dialect, rules)) return { kind: 'default-shard', reason: 'names no sharded or broadcast table' };

  if (verb === 'INSERT' || verb === 'REPLACE') return pulledInsertPlan(p, rules, dialect) ?? analyzeInsert(p, rules, dialect);
  // UNION / EXCEPT / INTERSECT: each SELECT runs as a statement of its own (see analyze-compound.ts).
  const compound = verb === 'SELECT' ? analyzeCompound(p, rules, dialect, (branch) => analyze(branch, rules, dialect)) : undefined;
  if (compound) return compound;

  if (verb === 'SELECT' || verb === 'WITH' || verb === 'UPDATE' || verb === 'DELETE') {
    let ast;
    try {
      ast = parseStatement(p.parserSql);
    } catch (cause) {
      throw new UnreadableStatementError(
        `typeorm-sharding cannot read this statement on sharded/broadcast tables (${quotedIdentifiersOf(p.parserSql).filter((n) => rules.distributionOf(n) !== 'unsharded').join(', ')}), although the database accepts it: ${(cause as ParserSyntaxError).message} ` +
          'Rephrase it, or run it on one shard with getShardDataSource(name).query().',
        { sql: p.sql, cause },
      );
    }
    if (ast?.kind === 'select') {
      if (ast.compound) throw new UnsupportedShardingError('A compound SELECT (UNION / EXCEPT / INTERSECT) after WITH, or wrapped in parentheses as a whole, is not supported over sharded tables; write it as SELECT … UNION SELECT … without them.', { sql: p.sql });
      return pulledSubqueryPlan(ast, p, rules, dialect) ?? analyzeSelect(ast, rules, dialect, p.sql);
    }
    if (ast?.kind === 'update' || ast?.kind === 'delete') return pulledSubqueryPlan(ast, p, rules, dialect) ?? analyzeWrite(ast, rules, p.sql);
  }
  throw new UnreadableStatementError(
    `Statements starting with ${verb || 'this text'} are not routed by typeorm-sharding on sharded or broadcast tables, although the database accepts it; run it on each shard with getShardDataSource(name).query().`,
    { sql: p.sql },
  );
}
