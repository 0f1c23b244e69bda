import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import type { ShardedOptions } from '../decorators/index.js';
import { ShardingConfigError } from '../errors/index.js';
import { Colocation, type ColocatedLink } from './colocation.js';
import type { TableRule } from './table-rule.js';

/** A sharded junction table and the side of its many-to-many relation it lives with. */
export interface JunctionPlacement {
  readonly rule: TableRule;
  /** The sharded side whose shard key the junction is sharded by. */
  readonly home: TableRule;
  /** The junction's columns that reference `home`. */
  readonly homeColumns: readonly ColumnMetadata[];
  /** The other side of the relation (undefined when it is no entity of the data source). */
  readonly other: TableRule | undefined;
  /** The junction's columns that reference `other`. */
  readonly otherColumns: readonly ColumnMetadata[];
}

/**
 * Checks every `@Sharded({ colocateWith })` and builds the co-location groups and the relations
 * whose joins stay on one shard: relations between entities of one group, a junction table and
 * the side it is sharded by, and a junction and its other side when that side is co-located
 * with the first.
 */
export function resolveColocation(
  entities: readonly TableRule[],
  optionsOf: (rule: TableRule) => ShardedOptions | undefined,
  junctions: readonly JunctionPlacement[],
): Colocation {
  const byTarget = new Map<unknown, TableRule>(entities.map((r) => [r.metadata.target, r]));
  const parent = new Map<string, string>();
  const find = (t: string): string => {
    const p = parent.get(t) ?? t;
    if (p === t) return t;
    const root = find(p);
    parent.set(t, root);
    return root;
  };
  for (const rule of entities) {
    const declared = optionsOf(rule)?.colocateWith;
    if (declared === undefined || rule.distribution !== 'sharded') continue;
    const name = rule.metadata.name;
    const misuse = `Entity ${name}: colocateWith must be a function returning the entity class, e.g. @Sharded({ colocateWith: () => Order }).`;
    if (typeof declared !== 'function') throw new ShardingConfigError(misuse);
    let target: unknown;
    try {
      target = declared();
    } catch (cause) {
      throw new ShardingConfigError(misuse, { cause }); // a class given itself cannot be called
    }
    const other = byTarget.get(target);
    const targetName = typeof target === 'function' ? target.name : String(target);
    if (!other) throw new ShardingConfigError(`Entity ${name}: colocateWith names ${targetName}, which is not an entity of this data source; add it to \`entities\`.`);
    if (other === rule) throw new ShardingConfigError(`Entity ${name}: colocateWith names the entity itself; name another @Sharded() entity.`);
    if (other.distribution !== 'sharded') {
      throw new ShardingConfigError(`Entity ${name}: colocateWith names ${other.metadata.name}, which is ${other.distribution}, not @Sharded(); only sharded entities can be co-located.`);
    }
    const a = rule.shardKey!;
    const b = other.shardKey!;
    if ((a.layout?.count ?? 1) !== (b.layout?.count ?? 1)) {
      const tables = (k: typeof a) => (k.layout ? `${k.layout.count} tables per shard` : 'one table per shard');
      throw new ShardingConfigError(
        `Entity ${name} (${tables(a)}) cannot be co-located with ${other.metadata.name} (${tables(b)}): related rows must sit in tables of the same index, so give both the same @Sharded({ tables }).`,
      );
    }
    if (a.placement !== b.placement) {
      throw new ShardingConfigError(
        `Entity ${name} (shard key "${a.propertyName}": ${a.kind}, ${a.algorithm.name}) cannot be co-located with ${other.metadata.name} (shard key "${b.propertyName}": ${b.kind}, ${b.algorithm.name}): ` +
          'equal keys must land on the same shard, so give both the same key type and the same algorithm.',
      );
    }
    parent.set(find(rule.tableName.toLowerCase()), find(other.tableName.toLowerCase()));
  }

  const groupOf = new Map<string, number>();
  const roots = new Map<string, number>();
  for (const table of parent.keys()) {
    const root = find(table);
    if (!roots.has(root)) roots.set(root, roots.size);
    groupOf.set(table, roots.get(root)!);
  }
  for (const root of roots.keys()) groupOf.set(root, roots.get(root)!);
  const together = (a: TableRule, b: TableRule): boolean => {
    const la = a.tableName.toLowerCase();
    const lb = b.tableName.toLowerCase();
    return la !== lb && groupOf.has(la) && groupOf.get(la) === groupOf.get(lb);
  };

  const links: ColocatedLink[] = [];
  const link = (from: TableRule, to: TableRule, columns: readonly ColumnMetadata[]) =>
    links.push({ from: from.tableName.toLowerCase(), to: to.tableName.toLowerCase(), pairs: columns.map((c) => [c.databaseName, c.referencedColumn!.databaseName] as const) });
  const ruleOfTarget = (target: unknown) => byTarget.get(target);
  for (const rule of entities) {
    if (rule.distribution !== 'sharded') continue;
    for (const relation of rule.metadata.relations) {
      if (!relation.isManyToOne && !relation.isOneToOneOwner) continue;
      const to = ruleOfTarget(relation.inverseEntityMetadata.target);
      if (to && together(rule, to) && relation.joinColumns.every((c) => c.referencedColumn)) link(rule, to, relation.joinColumns);
    }
  }
  for (const j of junctions) {
    link(j.rule, j.home, j.homeColumns);
    if (j.other?.distribution === 'sharded' && together(j.home, j.other)) link(j.rule, j.other, j.otherColumns);
  }
  return new Colocation(groupOf, links);
}
