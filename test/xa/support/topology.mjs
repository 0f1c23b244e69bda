// The data source of the cross-server tests: `shardsPerServer` shard databases on each server.
import { ShardedDataSource } from 'typeorm-sharding';
import { ENTITIES } from './entities.mjs';

/** Shard databases: `<prefix>_<server>_<i>`. */
export function shardSpecs(prefix, servers, shardsPerServer) {
  const shards = [];
  for (let i = 0; i < shardsPerServer; i++) {
    servers.forEach((server, s) => shards.push({ name: `s${shards.length}`, server: server.name, database: `${prefix}_${s}_${i}` }));
  }
  return shards;
}

/**
 * @param {{ prefix: string, servers: { name: string, port: number }[], shardsPerServer: number, poolSize?: number, sharding?: object, synchronize?: boolean }} config
 */
export function xaDataSource(config) {
  return new ShardedDataSource({
    type: 'mariadb',
    username: 'root',
    password: '',
    entities: ENTITIES,
    synchronize: config.synchronize ?? false,
    servers: config.servers.map((s) => ({ name: s.name, host: '127.0.0.1', port: s.port, poolSize: config.poolSize ?? 10 })),
    shards: shardSpecs(config.prefix, config.servers, config.shardsPerServer),
    sharding: config.sharding ?? {},
  });
}

/** Account ids grouped by the server that holds them. */
export function accountsByServer(ds, Account, count) {
  const byServer = new Map();
  for (let id = 1; id <= count; id++) {
    const shard = ds.shardOf(Account, id);
    const server = ds.shardedOptions.shards.find((s) => s.name === shard).server;
    byServer.set(server, [...(byServer.get(server) ?? []), id]);
  }
  return byServer;
}
