/**
 * The plan of a compound SELECT (`UNION [ALL]`, `EXCEPT [ALL]`, `INTERSECT [ALL]`) over
 * sharded tables: each SELECT runs as a logical statement of its own (routed, pruned and
 * merged on its own), and the merge combines their rows as the set operators say, then applies
 * the compound's ORDER BY and LIMIT. Value-free like every plan: the branches are found again
 * in each statement's text (`compound-text.ts`), and values are read by slot.
 */
import type { SetOperator } from './compound-text.js';
import type { LimitPlan } from '../plan.js';

/**
 * What a select item of one branch holds, as far as combining the branches needs: how the
 * database hands its values back (so that every branch agrees with what one database would
 * return for the compound), and how its values compare (duplicate removal, ORDER BY).
 */
export type BranchColumn =
  /** `NULL`: the compound's column takes the other branches' type. */
  | { readonly kind: 'null' }
  /** A value slot of the compound statement (MySQL): its type is known per statement, from its value. */
  | { readonly kind: 'slot'; readonly slot: number }
  | { readonly kind: 'typed'; readonly type: ColumnType };

/** The type of a branch's column. */
export interface ColumnType {
  /**
   * MySQL: how the driver returns the values (`int`, `bigint`, `decimal(2)`, `text`,
   * `datetime(0)` …). One database converts every branch to a common type, so branches of
   * different families would come back differently: they are refused. `unknown` when the
   * planner cannot tell; '' on SQLite, which keeps each value's own type.
   */
  readonly family: string;
  /**
   * Text collation. MySQL: the column's (`default` for the database's), `connection` for
   * literals and CAST … AS CHAR, undefined when unknown. SQLite: the column's (BINARY when it
   * declares none) or an explicit COLLATE, undefined for an expression that has none.
   */
  readonly collation: string | undefined;
  /** Contains an aggregate: a key over it cannot be computed per shard before the branch is merged. */
  readonly aggregate: boolean;
}

/** One SELECT of the compound. */
export interface CompoundBranch {
  /** Reads a sharded table (else it runs on the default shard). */
  readonly sharded: boolean;
  /** The name of each column in the branch's rows: its alias, or the one the compound gives it. */
  readonly names: readonly string[];
  /** Items written without an alias: they are given `names[i]` in the statement the branch runs as. */
  readonly unaliased: readonly number[];
  /**
   * The names MySQL gives its result columns: the alias, or a column as written; undefined for
   * an expression (its text, read per statement).
   */
  readonly ownNames: readonly (string | undefined)[];
  readonly columns: readonly BranchColumn[];
}

/** One term of the compound's ORDER BY, resolved to a result column. */
export interface CompoundOrderKey {
  /** 0-based position of the result column. */
  readonly position: number;
  readonly direction: 'ASC' | 'DESC';
}

/** A compound SELECT run branch by branch and combined by the merge. */
export interface CompoundPlan {
  readonly kind: 'compound';
  /** `operators[i]` joins branch i (with everything before it) and branch i + 1. */
  readonly operators: readonly SetOperator[];
  readonly branches: readonly CompoundBranch[];
  /**
   * The result column names, the first SELECT's (as the databases name them); undefined
   * where it is an expression's text, read from each statement.
   */
  readonly names: readonly (string | undefined)[];
  readonly orderBy: readonly CompoundOrderKey[];
  /** The compound's LIMIT, by slot of the whole statement. */
  readonly limit: LimitPlan | undefined;
}
