import { UnreadableStatementError, UnsupportedShardingError } from '../errors/index.js';
import type { ParameterizedSql, SqlDialect } from '../parameterize/index.js';
import type { ShardingRules } from '../rules/index.js';
import { parseStatement, ParserSyntaxError, UnsupportedConstructError } from './nodes/from-parser.js';
import { userOffsetOf } from './nodes/parser-position.js';
import { lexerRoutedPlan } from './routing/lexer-route.js';
import { analyzeCompound } from './compound/analyze-compound.js';
import { analyzeDdl, analyzePragma } from './ddl/analyze-ddl.js';
import { analyzeInsert } from './write/analyze-insert.js';
import { analyzeSelect } from './select/analyze-select.js';
import { analyzeWrite } from './write/analyze-write.js';
import type { Plan } from './plan.js';
import { pulledInsertPlan, pulledSubqueryPlan } from './subquery/pulled-subquery.js';
import { transactionControlOf } from './transaction-control.js';
import { mentionsDistributedTable, quotedIdentifiersOf } from './nodes/table-refs.js';
import { withCtesResolved } from './select/common-table-expressions.js';
import { statementConstructProblem } from './select/statement-constructs.js';
import { writeScopeOf } from './subquery/subquery-sites.js';
import type { SelectNode } from './nodes/sql-node.js';
import { allSelectsOf } from './nodes/sql-tree.js';

const DDL_VERBS = new Set(['CREATE', 'ALTER', 'DROP', 'TRUNCATE', 'RENAME', 'COMMENT', 'OPTIMIZE', 'ANALYZE']);

/**
 * Where the parser stopped, in words a user recognises: the text around the offset, values
 * shown as `?` and quoting dropped (never the grammar's list of expected tokens).
 */
function nearText(p: ParameterizedSql, dialect: SqlDialect, parserOffset: number | undefined): string {
  if (parserOffset === undefined) return 'somewhere in it';
  // Shown in the user's own text (their quoting, their values), not the parser's.
  const offset = userOffsetOf(p, dialect, parserOffset);
  const plain = (text: string) => text.replace(/\s+/g, ' ');
  const before = plain(p.sql.slice(Math.max(0, offset - 40), offset)).trimStart();
  const after = plain(p.sql.slice(offset, offset + 30)).trimEnd();
  return `at “${before}⟨here⟩${after}”`;
}

/** Refuses the statement when it holds a construct no route answers (see `statement-constructs.ts`). */
function refuseUnplannedConstructs(root: SelectNode, sql: string): void {
  const problem = statementConstructProblem(root);
  if (problem) throw new UnsupportedShardingError(`typeorm-sharding does not plan ${problem}.`, { sql });
}

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
      const tables = quotedIdentifiersOf(p.parserSql).filter((n) => rules.distributionOf(n) !== 'unsharded').join(', ');
      if (cause instanceof UnsupportedConstructError) {
        throw new UnsupportedShardingError(
          `typeorm-sharding does not plan ${cause.construct} in a statement on sharded/broadcast tables (${tables}): it answers only statements it models completely. ` +
            'Rewrite the statement without it, or run it on one shard with getShardDataSource(name).query().',
          { sql: p.sql, cause },
        );
      }
      if (!(cause instanceof ParserSyntaxError)) throw cause;
      // What the parser cannot read still runs where the lexer alone finds its one shard exactly.
      const routed = lexerRoutedPlan(p, rules, dialect);
      if (routed) return routed;
      throw new UnreadableStatementError(
        `typeorm-sharding cannot read this statement on sharded/broadcast tables (${tables}), although the database accepts it: its SQL parser stops ${nearText(p, dialect, cause.offset)}. ` +
          'Rephrase it, give it a condition on the shard key (key = value, AND-ed) so that it runs on one shard as written, or run it on one shard with getShardDataSource(name).query().',
        { sql: p.sql, cause },
      );
    }
    if (ast?.kind === 'select') {
      if (ast.compound) throw new UnsupportedShardingError('A compound SELECT (UNION / EXCEPT / INTERSECT) after WITH, or wrapped in parentheses as a whole, is not supported over sharded tables; write it as SELECT … UNION SELECT … without them.', { sql: p.sql });
      refuseUnplannedConstructs(ast, p.sql);
      return pulledSubqueryPlan(ast, p, rules, dialect) ?? analyzeSelect(withCtesResolved(ast, rules, p.sql), rules, dialect, p.sql);
    }
    if (ast?.kind === 'update' || ast?.kind === 'delete') {
      const scope = writeScopeOf(ast);
      refuseUnplannedConstructs(scope, p.sql);
      if (allSelectsOf(scope).some((s) => s.with !== undefined)) {
        throw new UnsupportedShardingError(
          `WITH … ${ast.kind.toUpperCase()} on sharded or broadcast tables is not planned (each shard would compute the CTE over its own rows); write the CTE as a subquery (… WHERE key IN (SELECT …)), which runs first across the shards.`,
          { sql: p.sql },
        );
      }
      return pulledSubqueryPlan(ast, p, rules, dialect) ?? analyzeWrite(ast, rules, p.sql);
    }
  }
  throw new UnreadableStatementError(
    `Statements starting with ${verb || 'this text'} are not routed by typeorm-sharding on sharded or broadcast tables, although the database accepts it; run it on each shard with getShardDataSource(name).query().`,
    { sql: p.sql },
  );
}
