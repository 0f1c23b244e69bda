import type { AggregateSpec, GroupKey, MergeSpec, SortKey } from '../merge/index.js';
import type { DerivedColumn } from './plan.js';
import type { SelectShape } from './select-shape.js';

/**
 * The merge of a SELECT's shape, without its LIMIT (values are only known per statement;
 * the engine adds them). Undefined when plain concatenation is already exact.
 */
export function mergeSpecOf(shape: SelectShape, derived: readonly DerivedColumn[]): MergeSpec | undefined {
  const orderBy: SortKey[] = shape.orderBy.map((k) => ({
    column: k.column,
    direction: k.direction,
    type: k.type,
    collation: k.caseInsensitive ? 'case-insensitive' : 'binary',
  }));
  const collationOf = (column: string) => shape.orderBy.find((k) => k.column === column)?.caseInsensitive ? 'case-insensitive' as const : 'binary' as const;
  // Groups that never span shards are final per shard: the merge only has to order them.
  const crossShardGroups = !shape.groupsAreShardLocal;
  const groupBy: GroupKey[] = crossShardGroups ? shape.groupBy.map((column) => ({ column, collation: collationOf(column) })) : [];
  const aggregates: AggregateSpec[] = shape.aggregates.map((a) =>
    a.fn === 'COUNT' || a.fn === 'SUM' ? { alias: a.column, fn: a.fn } : { alias: a.column, fn: a.fn, type: a.type },
  );
  const clauses = {
    ...(groupBy.length > 0 || (aggregates.length > 0 && shape.groupBy.length === 0) ? { groupBy, aggregates } : {}),
    ...(shape.distinct && crossShardGroups ? { distinct: {} } : {}),
    ...(derived.length > 0 ? { strip: derived.map((d) => d.alias) } : {}),
  };
  if (orderBy.length > 0) return { kind: 'ordered', orderBy, ...clauses };
  return { kind: 'concat', ...clauses };
}
