/**
 * A compound SELECT's plan bound to one statement: its branches as the statements they run as
 * (`SELECT` i of the text, each unaliased item given the alias the plan chose), and the text
 * facts the engine needs to add comparison keys. Finding the branches and their items takes
 * lexer passes; they depend on the text alone, so they are worked out once per text (its memo)
 * and every binding of the text only slices its own parameter values.
 */
import { ShardingInternalError } from '../../errors/index.js';
import { memoOf, MemoKey, type ParameterizedSql, type SqlDialect } from '../../parameterize/index.js';
import { quoteIdentifier } from '../nodes/print-sql.js';
import { COMPOUND_COLUMN_PREFIX } from './analyze-compound.js';
import { selectItemsOf, type ItemText } from './compound-items.js';
import type { CompoundBranch, CompoundPlan } from './compound-plan.js';
import { branchStatement, splitCompound, type CompoundText } from './compound-text.js';

/** One SELECT of a compound statement as written in this statement. */
export interface WrittenBranch {
  readonly sql: string;
  readonly parameters: unknown[];
  /** Its select items, positions within `sql` (worked out once per text). */
  readonly items: readonly ItemText[];
}

/** One SELECT of the compound bound to this statement. */
export interface BoundBranch {
  readonly branch: CompoundBranch;
  /** As written. */
  readonly own: WrittenBranch;
  /** As it runs: every item written without an alias gets `__shard_c<i>`, so that every branch's rows name their columns alike. */
  readonly named: { readonly sql: string; readonly parameters: unknown[] };
}

/** Per text: the compound cut into its SELECTs, and each SELECT's items (found when first asked for). */
interface CompoundTextFacts {
  readonly text: CompoundText;
  readonly items: (readonly ItemText[] | undefined)[];
}

const FACTS: Record<SqlDialect, MemoKey<CompoundTextFacts | undefined>> = {
  mysql: new MemoKey('compound text mysql'),
  sqlite: new MemoKey('compound text sqlite'),
};

function factsOf(p: ParameterizedSql, dialect: SqlDialect): CompoundTextFacts | undefined {
  return memoOf(p).get(FACTS[dialect], () => {
    const text = splitCompound(p.sql, dialect);
    return text ? { text, items: text.branches.map(() => undefined) } : undefined;
  });
}

/** The compound's text cut into its SELECTs (once per text), or undefined when `p` has no top-level set operator. */
export function compoundTextOf(p: ParameterizedSql, dialect: SqlDialect): CompoundText | undefined {
  return factsOf(p, dialect)?.text;
}

/** The compound's text as `plan` was made for: the same number of SELECTs, none refused. */
export function plannedTextOf(plan: CompoundPlan, p: ParameterizedSql, dialect: SqlDialect): CompoundText {
  const facts = factsOf(p, dialect);
  if (!facts || facts.text.problem !== undefined || facts.text.branches.length !== plan.branches.length) {
    throw new ShardingInternalError('a compound SELECT no longer splits as it was planned', { stage: 'route', sql: p.sql });
  }
  return facts.text;
}

/** SELECT `b` of the compound as written in `p`, with its items. */
export function writtenBranch(plan: CompoundPlan, p: ParameterizedSql, dialect: SqlDialect, b: number): WrittenBranch {
  const text = plannedTextOf(plan, p, dialect);
  const facts = factsOf(p, dialect)!;
  const statement = branchStatement(p.sql, p.parameters, text.branches[b]!);
  const branch = plan.branches[b]!;
  const items = (facts.items[b] ??= selectItemsOf(
    statement.sql,
    dialect,
    branch.names.map((_, i) => !branch.unaliased.includes(i)),
  ));
  return { ...statement, items };
}

/** Every SELECT of the compound bound to `p`: as written, and as it runs. */
export function bindCompound(plan: CompoundPlan, p: ParameterizedSql, dialect: SqlDialect): BoundBranch[] {
  return plan.branches.map((branch, b) => {
    const own = writtenBranch(plan, p, dialect, b);
    return { branch, own, named: nameItems(own, branch, dialect) };
  });
}

function nameItems(own: WrittenBranch, branch: CompoundBranch, dialect: SqlDialect): { sql: string; parameters: unknown[] } {
  if (branch.unaliased.length === 0) return own;
  let sql = own.sql;
  // From the last item back, so that earlier offsets stay valid.
  for (const i of [...branch.unaliased].reverse()) {
    const end = own.items[i]!.end;
    sql = `${sql.slice(0, end)} AS ${quoteIdentifier(`${COMPOUND_COLUMN_PREFIX}${i}`, dialect)}${sql.slice(end)}`;
  }
  return { sql, parameters: own.parameters };
}
