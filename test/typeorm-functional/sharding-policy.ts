import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import type { EntityMetadata } from 'typeorm';

/**
 * The automatic choice of each entity's distribution for a test suite that was written for one
 * database. It is deliberately simple and says why for every entity:
 *
 * 1. an entity that is the target of a foreign key (a many-to-one or owning one-to-one join
 *    column) or the far side of a many-to-many becomes `@Broadcast()`: every shard then holds
 *    the row each foreign key points to, and joins to it run shard by shard;
 * 2. a tree entity (`@Tree`) is broadcast (a sharded tree is refused at `initialize()`);
 * 3. any other entity is `@Sharded()` by its primary key when the key (or its first column) is
 *    an integer or string column; a generated integer key is assigned by the harness before the
 *    INSERT (the shard key must be known to route the row; see `IncrementKeyAssigner`);
 * 4. otherwise (no primary key, a key of another type, an entity schema without a class) the
 *    entity stays unsharded, on the default shard.
 *
 * When `initialize()` still refuses the choice (`ShardingConfigError`), `escalate` moves the
 * entity the message names one step towards the always-accepted layout — sharded → broadcast →
 * unsharded — and the harness tries again. A unique key without the shard key is answered with
 * broadcast, not with `uniquePerShard`: the latter accepts duplicates across shards that one
 * database refuses, which the tests would rightly report as a difference.
 */
export type Distribution = 'sharded' | 'broadcast' | 'unsharded';

export interface Decision {
  readonly entity: string;
  readonly target: Function | undefined;
  readonly distribution: Distribution;
  /** The shard key's property, when sharded. */
  readonly key?: string;
  /** The harness assigns this generated integer key before each INSERT. */
  readonly assignsKey?: boolean;
  readonly reason: string;
}

const KEY_TYPES = new Set([
  'int', 'integer', 'tinyint', 'smallint', 'mediumint', 'bigint', 'int2', 'int4', 'int8',
  'varchar', 'nvarchar', 'char', 'nchar', 'character varying', 'character', 'text', 'uuid', 'string', 'number',
]);

function keyTypeName(column: ColumnMetadata): string {
  const type = column.type as unknown;
  if (type === Number) return 'number';
  if (type === String) return 'string';
  return typeof type === 'string' ? type.toLowerCase() : typeof type === 'function' ? (type as Function).name.toLowerCase() : String(type);
}

/** The entities the policy decides for: the roots of inheritance trees, no junctions or views. */
export function decidableMetadatas(metadatas: readonly EntityMetadata[]): EntityMetadata[] {
  return metadatas.filter((m) => m.tableType !== 'junction' && m.tableType !== 'closure-junction' && m.tableType !== 'view' && m.tableType !== 'entity-child');
}

function rootOf(metadata: EntityMetadata): EntityMetadata {
  let m = metadata;
  while (m.tableType === 'entity-child' && m.parentEntityMetadata) m = m.parentEntityMetadata;
  return m;
}

/** The first choice for every decidable entity, before `initialize()` has a say. */
export function firstDecisions(metadatas: readonly EntityMetadata[]): Decision[] {
  const referencedBy = new Map<EntityMetadata, string[]>();
  const mark = (target: EntityMetadata | undefined, by: string) => {
    if (!target) return;
    const root = rootOf(target);
    referencedBy.set(root, [...(referencedBy.get(root) ?? []), by]);
  };
  for (const m of metadatas) {
    for (const r of m.relations) {
      if (r.isManyToOne || (r.isOneToOne && r.isOwning)) mark(r.inverseEntityMetadata, `${m.name}.${r.propertyName}`);
      else if (r.isManyToMany) {
        mark(r.inverseEntityMetadata, `${m.name}.${r.propertyName} (many-to-many)`);
      }
    }
  }
  return decidableMetadatas(metadatas).map((m): Decision => {
    const target = typeof m.target === 'function' ? m.target : undefined;
    const base = { entity: m.name, target };
    if (!target) return { ...base, distribution: 'unsharded', reason: 'an entity schema without a class: no decorator can be applied' };
    const refs = referencedBy.get(m);
    if (refs) return { ...base, distribution: 'broadcast', reason: `referenced by ${[...new Set(refs)].join(', ')}` };
    if (m.treeType) return { ...base, distribution: 'broadcast', reason: `a tree entity (${m.treeType})` };
    const primary = m.primaryColumns;
    const first = primary[0];
    if (!first) return { ...base, distribution: 'unsharded', reason: 'no primary key' };
    if (first.embeddedMetadata || first.relationMetadata) {
      return { ...base, distribution: 'broadcast', reason: `its primary key ${first.propertyPath} is ${first.relationMetadata ? 'a relation' : 'an embedded column'}` };
    }
    const type = keyTypeName(first);
    if (!KEY_TYPES.has(type)) return { ...base, distribution: 'broadcast', reason: `its primary key ${first.propertyName} has type ${type}, not an integer or string` };
    if (first.generationStrategy && first.generationStrategy !== 'increment' && first.generationStrategy !== 'uuid') {
      return { ...base, distribution: 'broadcast', reason: `its primary key is generated by ${first.generationStrategy}` };
    }
    const assignsKey = first.generationStrategy === 'increment';
    const composite = primary.length > 1 ? ` (first of a ${primary.length}-column primary key)` : '';
    return {
      ...base,
      distribution: 'sharded',
      key: first.propertyName,
      assignsKey,
      reason: `by its primary key ${first.propertyName} (${type})${composite}${assignsKey ? ', assigned by the harness before INSERT' : ''}`,
    };
  });
}

/**
 * The next choice after `initialize()` refused `decisions` with `message`, or undefined when no
 * entity it names can move further. A foreign key's target moves first (the referencing entity
 * may then stay sharded).
 */
export function escalate(decisions: readonly Decision[], message: string): Decision[] | undefined {
  const named = (name: string) => new RegExp(`\\b${name.replace(/[^\w]/g, '\\$&')}\\b`).test(message);
  const fkTarget = /foreign key \([^)]*\) to (\w+) \(/.exec(message)?.[1];
  const order = [...decisions].sort((a, b) => Number(b.entity === fkTarget) - Number(a.entity === fkTarget));
  const step = (d: Decision): Decision | undefined => {
    if (d.distribution === 'sharded') return { entity: d.entity, target: d.target, distribution: 'broadcast', reason: `initialize() refused it sharded: ${message}` };
    if (d.distribution === 'broadcast') return { entity: d.entity, target: d.target, distribution: 'unsharded', reason: `initialize() refused it broadcast: ${message}` };
    return undefined;
  };
  for (const wanted of ['sharded', 'broadcast'] as const) {
    const d = order.find((x) => x.distribution === wanted && named(x.entity));
    const next = d && step(d);
    if (next) return decisions.map((x) => (x === d ? next : x));
  }
  return undefined;
}
