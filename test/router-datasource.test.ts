import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { ShardedDataSource, Sharded, ShardKey, type PhysicalQueryEvent, type ShardingRouterOptions } from '../packages/typeorm-sharding/src/index.js';
import { canStartMariadb, startCluster, type MariadbCluster } from './support/mariadb-cluster.js';

@Entity('items')
@Sharded()
class Item {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('varchar', { length: 40 }) v!: string;
}

const SHARDS = 4;

describe.skipIf(!canStartMariadb())('a ShardedDataSource over a primary and two replicas', () => {
  let cluster: MariadbCluster;

  beforeAll(async () => {
    cluster = await startCluster(2);
    await cluster.sql(cluster.primary, ...Array.from({ length: SHARDS }, (_, i) => `CREATE DATABASE rd_${i}`));
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  async function open(router: ShardingRouterOptions = {}, replicas = cluster.replicas.map((r) => ({ port: r.port }))) {
    const events: PhysicalQueryEvent[] = [];
    const ds = new ShardedDataSource({
      type: 'mariadb',
      entities: [Item],
      synchronize: true,
      servers: [{ name: 'db', host: '127.0.0.1', port: cluster.primary.port, username: 'root', password: '', poolSize: 4, replicas }],
      shards: Array.from({ length: SHARDS }, (_, i) => ({ name: `s${i}`, server: 'db', database: `rd_${i}` })),
      sharding: { router: { loadBalance: 'round_robin', ...router }, onPhysicalQuery: (e) => events.push(e) },
    });
    await ds.initialize();
    return { ds, events };
  }

  it('reads from the replicas and writes to the primary', async () => {
    const { ds, events } = await open();
    try {
      const repo = ds.getRepository(Item);
      await repo.insert({ id: 1, v: 'one' });
      expect(events.at(-1)).toMatchObject({ node: 'db-primary', role: 'primary', reason: 'write' });
      await new Promise((r) => setTimeout(r, 200));
      events.length = 0;
      for (let i = 0; i < 4; i++) expect(await repo.findOneBy({ id: 1 })).toMatchObject({ v: 'one' });
      expect(events.map((e) => e.node)).toEqual(['db-replica1', 'db-replica2', 'db-replica1', 'db-replica2']);
    } finally {
      await ds.destroy();
    }
  });
});
