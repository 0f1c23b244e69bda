import mysql from 'mysql2/promise';
import type { Logger } from 'typeorm';
import { ShardedDataSource, type ShardingOptions } from '../../../packages/typeorm-sharding/src/index.js';
import { startServers, type ClusterNode, type MariadbCluster } from '../../support/mariadb-cluster.js';
import { XA_ENTITIES } from './xa-entities.js';

/** Several independent MariaDB servers, each holding `shardsPerServer` shard databases. */
export interface XaEnv {
  readonly cluster: MariadbCluster;
  readonly nodes: readonly ClusterNode[];
  readonly prefix: string;
  readonly shardsPerServer: number;
  /** `{ name, port }` per server, as the child process takes them. */
  readonly servers: readonly { readonly name: string; readonly port: number }[];
  readonly shards: readonly { readonly name: string; readonly server: string; readonly database: string }[];
  /** A data source over the servers (from source), with these sharding options (and `poolSize` per server, a `logger`). */
  source(sharding?: ShardingOptions, extra?: { readonly poolSize?: number; readonly logger?: Logger }): ShardedDataSource;
  /** Runs statements as root on server `i`. */
  sql(i: number, ...statements: string[]): Promise<unknown[]>;
  /** `XA RECOVER` rows of server `i` (every application's). */
  recover(i: number): Promise<unknown[]>;
  stop(): Promise<void>;
}

/** Starts `count` servers (~2 s) and creates the shard databases; `stop()` kills them and removes their data. */
export async function startXaEnv(tag: string, count = 3, shardsPerServer = 2, serverOptions: readonly string[] = []): Promise<XaEnv> {
  const cluster = await startServers(count, { serverOptions: ['--innodb-lock-wait-timeout=1', ...serverOptions] });
  const nodes = [cluster.primary, ...cluster.replicas];
  const prefix = `tsh_${tag}`;
  const servers = nodes.map((n, i) => ({ name: `db${i}`, port: n.port }));
  const shards: { name: string; server: string; database: string }[] = [];
  for (let i = 0; i < shardsPerServer; i++) servers.forEach((s, j) => shards.push({ name: `s${shards.length}`, server: s.name, database: `${prefix}_${j}_${i}` }));
  await Promise.all(nodes.map((n, j) => cluster.sql(n, ...shards.filter((s) => s.server === `db${j}`).map((s) => `CREATE DATABASE \`${s.database}\``))));
  return {
    cluster,
    nodes,
    prefix,
    shardsPerServer,
    servers,
    shards,
    source: (sharding = {}, extra = {}) =>
      new ShardedDataSource({
        type: 'mariadb',
        username: 'root',
        password: '',
        entities: XA_ENTITIES,
        ...(extra.logger ? { logger: extra.logger } : {}),
        servers: servers.map((s) => ({ name: s.name, host: '127.0.0.1', port: s.port, poolSize: extra.poolSize ?? 10 })),
        shards,
        sharding,
      } as never),
    sql: (i, ...statements) => cluster.sql(nodes[i]!, ...statements),
    recover: async (i) => (await cluster.sql(nodes[i]!, 'XA RECOVER'))[0] as unknown[],
    stop: () => cluster.stop(),
  };
}

/** Every row of `table` on every shard, as plain objects, with the server it came from. */
export async function rowsEverywhere<T>(env: XaEnv, table: string): Promise<(T & { server: number; database: string })[]> {
  const out: (T & { server: number; database: string })[] = [];
  for (const [i, node] of env.nodes.entries()) {
    const c = await mysql.createConnection({ host: '127.0.0.1', port: node.port, user: 'root', password: '' });
    try {
      for (const s of env.shards.filter((x) => x.server === `db${i}`)) {
        const [rows] = await c.query(`SELECT * FROM \`${s.database}\`.\`${table}\``);
        for (const r of rows as T[]) out.push({ ...r, server: i, database: s.database });
      }
    } finally {
      await c.end();
    }
  }
  return out;
}

/** The decision-log records on every server (the log lives in each server's first shard database). */
export async function logRecords(env: XaEnv): Promise<{ xid: string; state: string; server: number }[]> {
  const out: { xid: string; state: string; server: number }[] = [];
  for (const [i, node] of env.nodes.entries()) {
    const first = env.shards.find((s) => s.server === `db${i}`)!;
    const c = await mysql.createConnection({ host: '127.0.0.1', port: node.port, user: 'root', password: '' });
    try {
      const [rows] = await c.query(`SELECT xid, state FROM \`${first.database}\`.tsh_xa_log`);
      for (const r of rows as { xid: string; state: string }[]) out.push({ ...r, server: i });
    } finally {
      await c.end();
    }
  }
  return out;
}
