/**
 * The names of a compound SELECT's columns as the database gives them: the first SELECT's name
 * the result, and MariaDB checks those of a SELECT that begins a nested INTERSECT.
 */
import { UnsupportedShardingError } from '../../errors/index.js';
import type { ParameterizedSql, SqlDialect } from '../../parameterize/index.js';
import { writtenBranch, type WrittenBranch } from './bind-compound.js';
import type { CompoundBranch, CompoundPlan } from './compound-plan.js';
import { expressionItemName } from '../select/select-item-names.js';

/**
 * MariaDB evaluates `… UNION b INTERSECT c` as `… UNION (b INTERSECT c)` through a temporary
 * table named by b's columns, and rejects b when two of them share a name ("Duplicate column
 * name"): refused alike, so that the sharded source fails where the database does.
 */
export function checkIntersectNames(plan: CompoundPlan, p: ParameterizedSql): void {
  plan.operators.forEach((operator, k) => {
    if (k === 0 || operator.op !== 'INTERSECT' || plan.operators[k - 1]!.op === 'INTERSECT') return;
    const names = branchNames(plan.branches[k]!, writtenBranch(plan, p, 'mysql', k), 'mysql').map((n) => n?.toLowerCase());
    const repeated = names.find((name, i) => name !== undefined && names.indexOf(name) !== i);
    if (repeated !== undefined) {
      throw new UnsupportedShardingError(`SELECT ${k + 1} names two columns "${repeated}" and begins an INTERSECT, which the database rejects too (duplicate column name); give them distinct aliases.`, { sql: p.sql, stage: 'merge' });
    }
  });
}

/** The names the database gives a branch's columns; an unaliased expression is named by its text in this statement (undefined when that holds a parameter). */
function branchNames(branch: CompoundBranch, own: WrittenBranch, dialect: SqlDialect): (string | undefined)[] {
  if (branch.ownNames.every((n) => n !== undefined)) return [...branch.ownNames];
  return branch.ownNames.map((name, i) => name ?? expressionItemName(own.sql.slice(own.items[i]!.start, own.items[i]!.end), dialect));
}

/** The first SELECT's column names; an unaliased expression is named by its text in this statement. */
export function resultNames(plan: CompoundPlan, p: ParameterizedSql, dialect: SqlDialect): string[] {
  if (plan.names.every((n) => n !== undefined)) return plan.names as string[];
  const written = branchNames(plan.branches[0]!, writtenBranch(plan, p, dialect, 0), dialect);
  return plan.names.map((name, i) => {
    const result = name ?? written[i];
    if (result === undefined) {
      throw new UnsupportedShardingError(`Column ${i + 1} of the first SELECT of this compound has no alias and its result name cannot be known across shards (it holds a parameter); give it an alias with AS.`, { sql: p.sql, stage: 'merge' });
    }
    return result;
  });
}
