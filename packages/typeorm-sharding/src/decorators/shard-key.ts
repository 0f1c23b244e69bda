import 'reflect-metadata';
import { SHARD_KEY_PROPERTIES } from './metadata-keys.js';

/**
 * Marks the column whose value decides a row's shard. Exactly one per `@Sharded()` entity;
 * it must also be a TypeORM column (usually the primary key, so that `findOneBy({ id })`
 * reaches a single shard).
 */
export function ShardKey(): PropertyDecorator {
  return (prototype, propertyKey) => {
    const target = prototype.constructor;
    const own: string[] = Reflect.getOwnMetadata(SHARD_KEY_PROPERTIES, target) ?? [];
    Reflect.defineMetadata(SHARD_KEY_PROPERTIES, [...own, String(propertyKey)], target);
  };
}

/** Properties marked `@ShardKey()` on a class and its ancestors (ancestors first). */
export function getShardKeyProperties(target: Function): readonly string[] {
  const chain: string[] = [];
  for (let t: unknown = target; typeof t === 'function' && t !== Function.prototype; t = Object.getPrototypeOf(t)) {
    const own: string[] | undefined = Reflect.getOwnMetadata(SHARD_KEY_PROPERTIES, t as object);
    if (own) chain.unshift(...own);
  }
  return [...new Set(chain)];
}
