import { lexedOf, TokenKind, type ParameterizedSql, type SqlDialect } from '../parameterize/index.js';
import type { Plan } from '../plan/plan.js';
import { insertHeadOf } from '../plan/write/insert-head.js';
import type { GlobalIndex, ShardingRules, TableRule } from '../rules/index.js';

const WRITES = new Set(['INSERT', 'REPLACE', 'UPDATE', 'DELETE']);

/** A write of a table with global indexes, with its plan. */
export interface IndexedWrite {
  readonly p: ParameterizedSql;
  readonly plan: Plan;
  readonly indexes: readonly GlobalIndex[];
  /** The written table's rule. */
  readonly rule: TableRule;
}

/**
 * The write's table when it has global indexes (its lookup rows must change with it); undefined
 * for every other statement, which runs as planned.
 */
export function indexedWrite(p: ParameterizedSql, rules: ShardingRules, dialect: SqlDialect, planOf: (p: ParameterizedSql) => Plan): IndexedWrite | undefined {
  if (!WRITES.has(p.verb)) return undefined;
  const table = targetOf(p, dialect);
  if (table === undefined) return undefined;
  const indexes = rules.globalIndexesOf(table);
  if (indexes.length === 0) return undefined;
  return { p, plan: planOf(p), indexes, rule: rules.ruleOf(table)! };
}

/** The table a write names: `INSERT INTO t`, `UPDATE t`, `DELETE FROM t` (the last part of a qualified name). */
function targetOf(p: ParameterizedSql, dialect: SqlDialect): string | undefined {
  if (p.verb === 'INSERT' || p.verb === 'REPLACE') return insertHeadOf(p.sql, dialect).table;
  const t = lexedOf(p, dialect);
  let i = 1;
  const word = (k: number) => p.sql.slice(t.starts[k], t.ends[k]).toUpperCase();
  // `DELETE u FROM users u`: the table follows FROM.
  if (p.verb === 'DELETE') while (i < t.count && !(t.kinds[i] === TokenKind.Word && word(i) === 'FROM')) i++;
  while (i < t.count && t.kinds[i] === TokenKind.Word && /^(LOW_PRIORITY|IGNORE|QUICK|FROM|OR|ROLLBACK|ABORT|REPLACE|FAIL)$/.test(word(i))) i++;
  if (i >= t.count) return undefined;
  if (t.kinds[i + 1] === TokenKind.Dot) i += 2;
  const text = p.sql.slice(t.starts[i], t.ends[i]);
  const q = text[0];
  return q === '`' || q === '"' ? text.slice(1, -1) : text;
}
