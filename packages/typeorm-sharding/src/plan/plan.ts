/**
 * Plans are the cached, value-free analysis of one statement shape (one `ParameterizedSql.key`).
 * They refer to values only by slot number (`:p<n>`) and IN-list number (`(:l<k>)`),
 * so one plan serves every statement of that shape whatever its values or list lengths.
 */
import type { TableDistribution } from '../rules/table-rule.js';
import type { TransactionControl } from './transaction-control.js';
import type { MergeSpec } from '../merge/index.js';
import type { CompiledExpression } from '../values/evaluate/compile.js';
import type { PrintedSql } from './nodes/print-sql.js';
import type { PlannedComputation, SelectMergePlan } from './select/select-merge.js';
import type { SchemaObjectKind } from './ddl/ddl-target.js';
import type { ValueBinding } from './subquery/pulled-binding.js';
import type { CompoundPlan } from './compound/compound-plan.js';

/** Where a table's rows live (defined with the rules that decide it). */
export type { TableDistribution };


/** A reference to a value of the statement: slot n or every item of IN list k. */
export type ValueRef =
  | { readonly kind: 'slot'; readonly slot: number }
  | { readonly kind: 'in-list'; readonly list: number };

/**
 * What the WHERE clause says about the shard key of the statement's sharded table,
 * as a small boolean tree evaluated at route time with the statement's values.
 */
export type KeyCondition =
  /** No restriction on the key can be derived: every shard. */
  | { readonly kind: 'any' }
  /** The key equals one of these values (`=`, `IN`, ORs of `=`). */
  | { readonly kind: 'values'; readonly refs: readonly ValueRef[] }
  /** `:pA = :pB` between two literal slots (TypeORM writes `In([])` as `0=1`): false when they differ. */
  | { readonly kind: 'const-equal'; readonly left: number; readonly right: number }
  | { readonly kind: 'and'; readonly terms: readonly KeyCondition[] }
  | { readonly kind: 'or'; readonly terms: readonly KeyCondition[] };

/**
 * An OR under ANDs only whose every term names its own shards: `(a = ? AND b = ?) OR (a = ? AND
 * b = ?) …`, TypeORM's `findBy()` of composite keys. A term cannot be true on a shard outside its
 * own, so each shard may be sent only the terms of its own (`route/route.ts`,
 * `rewrite/tokens/or-terms.ts`); under ANDs only a term that is FALSE or NULL there changes nothing.
 */
export interface PrunableOr {
  readonly terms: readonly PrunableOrTerm[];
}

/** One term of a {@link PrunableOr}: its key condition and the first and last value slot it holds (where its text is). */
export interface PrunableOrTerm {
  readonly condition: KeyCondition;
  readonly firstSlot: number;
  readonly lastSlot: number;
}

/** `LIMIT count` / `LIMIT offset, count` / `LIMIT count OFFSET offset`, by slot. */
export interface LimitPlan {
  readonly countSlot: number;
  readonly offsetSlot: number | undefined;
}

/** A column added to the select list so the merge can sort, group or aggregate by it; stripped from results. */
export interface DerivedColumn {
  /**
   * Expression text (identifiers in backticks as in parserSql, to be re-quoted by dialect);
   * value slots are written with `slotMarker(n)` and replaced by each statement's own text.
   */
  readonly expression: string;
  readonly alias: string;
  /** The value slots the expression holds, in text order. */
  readonly slots: readonly number[];
}

/** A SELECT (or a statement whose result rows come back like one). */
export interface SelectPlan {
  readonly kind: 'select';
  /** The sharded table whose key routes the statement. */
  readonly table: string;
  readonly condition: KeyCondition;
  /**
   * IN lists on the shard key that sit under ANDs only, so that each shard may be sent just
   * its own values (under an OR a list must be sent whole).
   */
  readonly prunableLists: readonly number[];
  /** ORs under ANDs only whose terms each name their own shards (see {@link PrunableOr}); absent: none. */
  readonly prunableOrs?: readonly PrunableOr[];
  /** LIMIT of the outermost query, pushed down as `LIMIT offset+count` when several statements run. */
  readonly limit: LimitPlan | undefined;
  /**
   * False when groups (GROUP BY / DISTINCT) may span shards: then every shard must send all
   * its groups and the LIMIT is applied only after the merge.
   */
  readonly pushLimit: boolean;
  /** How rows from several statements become one result; undefined when they cannot be merged (`unmergeable`). */
  readonly merge: MergeSpec | undefined;
  /** HAVING evaluated after the merge (groups span shards); the shards are then sent the statement without it. */
  readonly having: CompiledExpression | undefined;
  /** Select items (and hidden ORDER BY keys) the merge evaluates above merged aggregates. */
  readonly computed: readonly PlannedComputation[];
  /** Expressions appended to the shards' GROUP BY (values of DISTINCT aggregates, GROUP_CONCAT). */
  readonly extraGroupBy: readonly PrintedSql[];
  /** Unaliased select items the shards are asked to name `alias`; renamed back to their text per statement. */
  readonly itemAliases: readonly { readonly index: number; readonly alias: string }[];
  /** SQLite: scattered statements read integers as bigint (INTEGER and REAL kept apart). */
  readonly exactIntegers: boolean;
  /** No ORDER BY and a WHERE listing rows by key values: merged rows come back in the listed order. */
  readonly listedOrder: SelectMergePlan['listedOrder'];
  /** Remove the outermost HAVING clause from scattered statements (the merge applies it). */
  readonly cutHaving: boolean;
  /** With `cutHaving`: the HAVING terms the shards keep (they read group keys only). */
  readonly shardHaving: PrintedSql | undefined;
  /** Check the original text on the default shard once per shape (see `SelectMergePlan.checkOriginal`). */
  readonly checkOriginal: boolean;
  /** Its shards' statements may be sent as one UNION ALL per server (see `SelectMergePlan.unionSafe`). */
  readonly unionSafe: boolean;
  /**
   * Aggregates without GROUP BY in some SELECT of the statement (its own, a derived table, an
   * inlined CTE): one row comes back even when nothing matches, so a statement
   * routed to no shard still runs once (on the default shard) to produce it.
   */
  readonly globalAggregate: boolean;
  /**
   * Number of table references in the statement (FROM / JOIN, any depth), which a
   * database-qualified form must all qualify; undefined when the statement must keep its text
   * as written (an unaliased select item that holds a subquery is named by its text, and
   * qualifying a table inside it would rename the column).
   */
  readonly tableReferences: number | undefined;
  /** Columns appended to the outer select list for the merge. */
  readonly derivedColumns: readonly DerivedColumn[];
  /** Why the result could not be merged exactly, when it cannot (raised only if several shards are hit). */
  readonly unmergeable: string | undefined;
}

/** INSERT / REPLACE: rows split by the shard-key column of each VALUES row. */
export interface InsertPlan {
  readonly kind: 'insert';
  readonly table: string;
  readonly distribution: TableDistribution;
  /** Position of the shard-key column in the column list; undefined when not sharded. */
  readonly keyColumnIndex: number | undefined;
}

/** UPDATE / DELETE on a sharded table: routed by the WHERE clause, affected rows summed. */
export interface WritePlan {
  readonly kind: 'write';
  readonly table: string;
  /** Has ORDER BY / LIMIT: a row count that means one thing per statement, not per shard. */
  readonly limited: boolean;
  readonly condition: KeyCondition;
  readonly prunableLists: readonly number[];
  /** ORs under ANDs only whose terms each name their own shards (see {@link PrunableOr}); absent: none. */
  readonly prunableOrs?: readonly PrunableOr[];
  /**
   * UPDATE only: the slot of `SET key = ?`. TypeORM's `update({ id }, { ...dto })` repeats the
   * key; that is allowed when the new value is the one the statement is routed by (checked
   * per statement), since no row then changes shard.
   */
  readonly keyAssignment: number | undefined;
}

/** Runs unchanged on one shard (unsharded tables, broadcast reads, SHOW, information_schema …). */
export interface DefaultShardPlan {
  readonly kind: 'default-shard';
  readonly reason: string;
}

/** Runs unchanged on every shard, one after the other (DDL and writes of broadcast tables). */
export interface AllShardsPlan {
  readonly kind: 'all-shards';
  readonly reason: string;
  /**
   * What the statement reports, as one database would:
   * - `copies`: it writes the rows of a broadcast table; every shard holds the same copy, so
   *   every shard must report the same outcome (else the copies have diverged);
   * - `default-shard`: DDL and PRAGMA report facts of one database: the default shard's;
   * - `sum`: each shard writes its own rows (a SQLite table rebuild): the counts add up.
   */
  readonly result: 'copies' | 'default-shard' | 'sum';
}

/**
 * DDL on a schema object named without its table (SQLite's `DROP INDEX i`, `DROP TRIGGER t`,
 * `DROP VIEW v`): it runs, one shard after the other, on every shard that holds the object.
 * Which shards those are is asked at run time; when none does, the default shard runs it so
 * that the database answers as it would alone (its own error, or nothing for `IF EXISTS`).
 */
export interface WhereExistsPlan {
  readonly kind: 'where-exists';
  readonly object: SchemaObjectKind;
  readonly name: string;
}

/** Transaction control, handled by the session. */
export interface SessionPlan {
  readonly kind: 'session';
  readonly control: TransactionControl;
}

/** One uncorrelated subquery that runs first, on its own (see `PulledSubqueriesPlan`). */
export interface PulledSubquery {
  /** Its place among the statement's parenthesised SELECTs, in text order (see `subquerySpans`). */
  readonly ordinal: number;
  /**
   * `list`: `x [NOT] IN (SELECT …)` becomes `x [NOT] IN (v1, v2, …)`; `scalar`: `(SELECT …)`
   * becomes its one value; `exists`: `[NOT] EXISTS (SELECT …)` becomes `[NOT] EXISTS` of a
   * constant subquery with a row or without one (its `binding` is not used).
   */
  readonly use: 'list' | 'scalar' | 'exists';
  /** It has ORDER BY: its first row is defined (SQLite answers a scalar subquery with its first row). */
  readonly ordered: boolean;
  readonly binding: ValueBinding;
}

/**
 * A statement with uncorrelated subqueries over sharded tables (or over unsharded ones in a
 * statement that runs on other shards), Vitess's pulled-out subquery: each subquery runs first
 * as a logical statement of its own (routed, merged exactly), its values replace it in the
 * original text, and the new text is planned again (so values of a shard key prune it).
 */
export interface PulledSubqueriesPlan {
  readonly kind: 'pulled';
  /** In text order; none inside another (a subquery's own subqueries are its business). */
  readonly subqueries: readonly PulledSubquery[];
  /** For `explain()`: where the statement may run once its subqueries are replaced. */
  readonly reach: 'default-shard' | 'every-shard';
}

/** Everything the planner can decide. Each stage handles every kind (see `route`). */
export type Plan = SelectPlan | InsertPlan | WritePlan | DefaultShardPlan | AllShardsPlan | WhereExistsPlan | SessionPlan | PulledSubqueriesPlan | CompoundPlan;
