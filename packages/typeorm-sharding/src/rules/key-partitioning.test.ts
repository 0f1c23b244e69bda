import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { Column, DataSource, Entity, Index, JoinColumn, ManyToOne, OneToOne, PrimaryColumn } from 'typeorm';
import { Sharded, ShardKey } from '../decorators/index.js';
import { ShardingConfigError } from '../errors/index.js';
import { resolveKeyPartitioning } from './key-partitioning.js';
import { resolveShardingRules } from './resolve-rules.js';

// The checks of `@Sharded({ partitions })` on TypeORM's MySQL metadata, without a database.

@Entity('kpu_posts')
@Sharded({ partitions: 8 })
@Index(['createdAt', 'id'])
@Index(['id', 'slug'], { unique: true })
class Post {
  @PrimaryColumn('bigint') @ShardKey() id!: string;
  @Column('varchar', { length: 20 }) slug!: string;
  @Column('datetime') createdAt!: Date;
}

@Entity('kpu_tags')
@Sharded({ uniquePerShard: ['name'] })
class Tag {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('varchar', { length: 20, unique: true }) name!: string;
}

@Entity('kpu_profiles')
@Sharded({ partitions: 2 })
class Profile {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('int') tagId!: number;
  @OneToOne(() => Tag, { createForeignKeyConstraints: false }) @JoinColumn({ name: 'tagId' }) tag!: Tag;
}

@Entity('kpu_comments')
@Sharded()
class Comment {
  @PrimaryColumn('bigint') @ShardKey() postId!: string;
  @PrimaryColumn('int') seq!: number;
  @ManyToOne(() => Post, { createForeignKeyConstraints: false }) @JoinColumn({ name: 'postId' }) post!: Post;
}

async function partitioningOf(entities: Function[], configured?: Record<string, number>, dialect: 'mysql' | 'sqlite' = 'mysql') {
  const ds = new DataSource({ type: 'mysql', database: 'unused', entities });
  await (ds as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
  const rules = resolveShardingRules(ds.entityMetadatas, ['s0', 's1'], (m, p) => String(ds.driver.normalizeType(m.columns.find((c) => c.propertyName === p)!)));
  return resolveKeyPartitioning(ds.entityMetadatas, rules, dialect, configured);
}

describe('resolveKeyPartitioning', () => {
  it('takes the decorators and the configuration, which wins by table name', async () => {
    expect(await partitioningOf([Post, Comment])).toEqual([{ entity: 'Post', tableName: 'kpu_posts', column: 'id', count: 8 }]);
    expect(await partitioningOf([Post, Comment], { KPU_POSTS: 32, kpu_comments: 4 })).toEqual([
      { entity: 'Post', tableName: 'kpu_posts', column: 'id', count: 32 },
      { entity: 'Comment', tableName: 'kpu_comments', column: 'postId', count: 4 },
    ]);
  });

  it('accepts a unique index that holds the shard key and relations without foreign keys', async () => {
    await expect(partitioningOf([Post, Comment, Tag, Profile])).resolves.toHaveLength(2);
  });

  it('refuses a unique key without the shard key, even one unique per shard only', async () => {
    const error = await partitioningOf([Tag], { kpu_tags: 4 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShardingConfigError);
    expect(String(error)).toMatch(/Entity Tag: partitions: its unique key \S+ \(name\) does not hold the shard key id/);
  });

  it('refuses every dialect but MySQL, and counts that MySQL would not take', async () => {
    await expect(partitioningOf([Post], undefined, 'sqlite')).rejects.toThrow(/SQLite has no partitions/);
    for (const count of [0, -1, 1.5, 8193, Number.NaN]) await expect(partitioningOf([Post], { kpu_posts: count })).rejects.toThrow(/whole number from 1 to 8192/);
    await expect(partitioningOf([Post], { kpu_posts: 8192 })).resolves.toHaveLength(1);
  });

  it('refuses configuration naming a table no sharded entity has', async () => {
    await expect(partitioningOf([Post], { kpu_nothing: 4 })).rejects.toThrow(/sharding.partitions names "kpu_nothing"/);
  });
});
