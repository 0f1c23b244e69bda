import 'reflect-metadata';
import { BROADCAST_KEY } from './metadata-keys.js';

/**
 * Marks a reference table: a full copy lives on every shard. Writes go to every shard,
 * reads to one, and joins with sharded tables run locally on each shard.
 */
export function Broadcast(): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(BROADCAST_KEY, true, target);
  };
}

/** True when `@Broadcast()` is on the class. */
export function isBroadcast(target: Function): boolean {
  return Reflect.getMetadata(BROADCAST_KEY, target) === true;
}
