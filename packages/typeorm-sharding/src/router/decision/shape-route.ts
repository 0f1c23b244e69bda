import { NO_HINTS, type RoutingHints } from '../hints/hint.js';
import type { AnalyticsRule } from '../router-options.js';
import type { StatementDescriptor } from '../statement.js';

/** Why a statement must run on the primary, whatever else holds. */
export type PrimaryRequirement = 'write' | 'ddl' | 'locking-read' | 'session-state' | 'transaction-control' | 'other';

/**
 * The part of a routing decision that depends only on the statement's shape and its comment
 * hints, so it is computed once per shape and kept in the route cache (the article's §4.3).
 */
export interface ShapeRoute {
  /** Set when the statement can only run on the primary. */
  readonly requires: PrimaryRequirement | undefined;
  /**
   * A read reaching at least this many shards is analytics-shaped; Infinity when no count makes
   * it one. Compared per statement (the shard count depends on the values).
   */
  readonly analyticsFromShards: number;
  readonly hints: RoutingHints;
}

const REQUIREMENT_OF_KIND: Readonly<Record<StatementDescriptor['kind'], PrimaryRequirement | undefined>> = {
  select: undefined,
  insert: 'write',
  update: 'write',
  delete: 'write',
  ddl: 'ddl',
  transaction: 'transaction-control',
  session: 'other',
  other: 'other',
};

/** Classifies a statement's shape (pure; see {@link ShapeRoute}). */
export function classifyShape(statement: StatementDescriptor, rule: AnalyticsRule): ShapeRoute {
  let requires = REQUIREMENT_OF_KIND[statement.kind];
  if (requires === undefined && statement.locking !== undefined && statement.locking !== 'none') requires = 'locking-read';
  if (requires === undefined && statement.readsSessionState) requires = 'session-state';
  let analyticsFromShards = rule.minShards;
  if ((rule.aggregates && statement.hasAggregates) || (rule.groupBy && statement.hasGroupBy)) analyticsFromShards = Math.min(analyticsFromShards, rule.minShardsForAggregates);
  if (rule.fullScans && statement.fullScan) analyticsFromShards = 1;
  if (requires !== undefined) analyticsFromShards = Infinity;
  return Object.freeze({ requires, analyticsFromShards, hints: statement.hints ?? NO_HINTS });
}
