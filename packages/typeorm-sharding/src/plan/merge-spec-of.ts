import type { GroupKey, MergeSpec } from '../merge/index.js';
import type { DerivedColumn } from './plan.js';
import type { SelectShape } from './select-shape.js';

/**
 * The merge of a SELECT's shape, without its LIMIT and HAVING values (known only per
 * statement; the engine adds them).
 */
export function mergeSpecOf(shape: SelectShape, derived: readonly DerivedColumn[]): MergeSpec {
  // Groups that never span shards are final per shard: the merge only has to order them.
  const crossShardGroups = !shape.groupsAreShardLocal;
  const groupBy: readonly GroupKey[] = crossShardGroups ? shape.groupBy : [];
  const globalAggregate = shape.aggregates.length > 0 && shape.groupBy.length === 0;
  const clauses = {
    ...(groupBy.length > 0 || globalAggregate ? { groupBy, aggregates: shape.aggregates } : {}),
    ...(shape.distinct && crossShardGroups ? { distinct: shape.distinctColumns ? { columns: shape.distinctColumns } : {} } : {}),
    ...(derived.length > 0 ? { strip: derived.map((d) => d.alias) } : {}),
  };
  if (shape.orderBy.length > 0) return { kind: 'ordered', orderBy: shape.orderBy, ...clauses };
  return { kind: 'concat', ...clauses };
}
