import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Broadcast, Sharded, ShardKey, ShardedDataSource } from '../../packages/typeorm-sharding/src/index.js';

@Entity('acct') @Sharded()
class Acct { @PrimaryColumn('int') @ShardKey() id!: number; @Column('int') balance!: number; }
@Entity('stock') @Broadcast()
class Stock { @PrimaryColumn('int') id!: number; @Column('int') qty!: number; }

describe('sqlite attach scratch', () => {
  it('commits across shard files atomically', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsh-att-'));
    const ds = new ShardedDataSource({ type: 'better-sqlite3', entities: [Acct, Stock], synchronize: true,
      shards: [0, 1, 2, 3].map((i) => ({ name: `s${i}`, database: join(dir, `s${i}.db`) })) });
    await ds.initialize();
    try {
      await ds.getRepository(Acct).insert([1, 2, 3, 4, 5, 6].map((id) => ({ id, balance: 100 })));
      await ds.getRepository(Stock).insert({ id: 1, qty: 10 });
      await ds.transaction(async (em) => {
        await em.update(Acct, { id: 1 }, { balance: 50 });
        await em.update(Acct, { id: 2 }, { balance: 150 });
        await em.update(Stock, { id: 1 }, { qty: 9 });
        const rows = await em.find(Acct, { order: { id: 'ASC' } });
        expect(rows.map((r) => r.balance)).toEqual([50, 150, 100, 100, 100, 100]);
      });
      await expect(ds.transaction(async (em) => {
        await em.update(Acct, { id: 3 }, { balance: 0 });
        await em.update(Acct, { id: 4 }, { balance: 0 });
        throw new Error('boom');
      })).rejects.toThrow('boom');
      const rows = await ds.getRepository(Acct).find({ order: { id: 'ASC' } });
      expect(rows.map((r) => r.balance)).toEqual([50, 150, 100, 100, 100, 100]);
      for (const s of ds.shardNames) expect((await ds.getShardDataSource(s).query('SELECT qty FROM stock'))[0].qty).toBe(9);
      console.log([1, 2, 3, 4].map((id) => ds.shardOf(Acct, id)));
    } finally {
      await ds.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
