import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ShardedDataSource } from '../data-source/sharded-data-source.js';
import { ShardingConfigError } from '../errors/index.js';

/**
 * Loads the user's data source the way TypeORM's CLI does with `-d`: the module's default
 * export, or its one exported ShardedDataSource instance. A `.ts` file needs a TypeScript
 * loader in the Node process (e.g. `node --import tsx`), as with TypeORM's CLI and ts-node.
 */
export async function loadDataSource(file: string): Promise<ShardedDataSource> {
  const path = resolve(file);
  if (!existsSync(path)) throw new ShardingConfigError(`Data source file ${path} does not exist.`);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ShardingConfigError(`Could not load ${path}: ${(error as Error).message}`, { cause: error });
  }
  const isSharded = (value: unknown): value is ShardedDataSource =>
    value instanceof ShardedDataSource || (typeof value === 'object' && value !== null && 'shardedOptions' in value && 'shardingRules' in value);
  if (isSharded(module.default)) return module.default;
  const found = Object.entries(module).filter(([, v]) => isSharded(v));
  if (found.length === 1) return found[0]![1] as ShardedDataSource;
  if (found.length > 1) throw new ShardingConfigError(`${path} exports several ShardedDataSources (${found.map(([k]) => k).join(', ')}): export the one to reshard as default.`);
  throw new ShardingConfigError(`${path} exports no ShardedDataSource: export the instance (export default new ShardedDataSource({ … })).`);
}
