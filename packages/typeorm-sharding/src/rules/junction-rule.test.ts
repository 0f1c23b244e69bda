import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { Column, Entity, JoinTable, ManyToMany, PrimaryColumn, Unique } from 'typeorm';
import { Broadcast, Sharded, ShardKey } from '../decorators/index.js';
import { ShardingConfigError } from '../errors/index.js';
import { rulesErrorOf, rulesOf } from './testing/rules-of.js';

// Item 16: the junction table of a many-to-many relation follows its sharded side, sharded by
// its column that references that side's shard key; between broadcast entities it is broadcast.

@Entity('j_tags') @Broadcast()
class Tag {
  @PrimaryColumn('int') id!: number;
  @ManyToMany(() => Article, (a) => a.tags) articles!: Article[];
}

@Entity('j_articles') @Sharded()
class Article {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @ManyToMany(() => Tag, (t) => t.articles) @JoinTable({ name: 'j_article_tags' }) tags!: Tag[];
}

@Entity('j_colors') @Broadcast()
class Color {
  @PrimaryColumn('int') id!: number;
  @ManyToMany(() => Tag) @JoinTable({ name: 'j_color_tags' }) tags!: Tag[];
}

@Entity('j_notes') @Broadcast()
class Note {
  @PrimaryColumn('int') id!: number;
  /** A broadcast owner and a sharded inverse side: the junction follows the articles. */
  @ManyToMany(() => Article) @JoinTable({ name: 'j_note_articles' }) articles!: Article[];
}

@Entity('j_orders') @Sharded({ uniquePerShard: ['id'] })
class OrderByUser {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() userId!: number;
  @ManyToMany(() => Tag) @JoinTable({ name: 'j_order_tags' }) tags!: Tag[];
}

@Entity('j_orders') @Sharded({ uniquePerShard: ['id'] }) @Unique(['id', 'userId'])
class OrderByUserKeyed {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() userId!: number;
  @ManyToMany(() => Tag)
  @JoinTable({ name: 'j_order_tags', joinColumns: [{ name: 'orderId', referencedColumnName: 'id' }, { name: 'orderUserId', referencedColumnName: 'userId' }] })
  tags!: Tag[];
}

@Entity('j_folders') @Sharded()
class Folder {
  @PrimaryColumn('int') @ShardKey() id!: number;
}

@Entity('j_articles') @Sharded()
class ArticleInFolders {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @ManyToMany(() => Folder) @JoinTable({ name: 'j_article_folders' }) folders!: Folder[];
}

@Entity('j_articles') @Sharded()
class ArticleInFoldersNoKeys {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @ManyToMany(() => Folder, { createForeignKeyConstraints: false }) @JoinTable({ name: 'j_article_folders' }) folders!: Folder[];
}

@Entity('j_people') @Sharded()
class Person {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @ManyToMany(() => Person) @JoinTable({ name: 'j_friends' }) friends!: Person[];
}

@Entity('j_drafts')
class Draft {
  @PrimaryColumn('int') id!: number;
  @ManyToMany(() => Article) @JoinTable({ name: 'j_draft_articles' }) articles!: Article[];
}

for (const driver of ['better-sqlite3', 'mysql'] as const) {
  describe(`junction tables (${driver} metadata)`, () => {
    it('shards the junction of a sharded owner by its column that references the owner\'s key', async () => {
      const rules = await rulesOf([Article, Tag, Color, Note], driver);
      const placement = (t: string) => [rules.distributionOf(t), rules.ruleOf(t)?.shardKey?.columnName];
      expect(placement('j_article_tags')).toEqual(['sharded', 'jArticlesId']);
      expect(rules.ruleOf('j_article_tags')!.shardKey!.algorithm).toBe(rules.ruleOf('j_articles')!.shardKey!.algorithm);
      expect(placement('j_note_articles')).toEqual(['sharded', 'jArticlesId']);
      expect(placement('j_color_tags')).toEqual(['broadcast', undefined]);
    });

    it('refuses the junction of an owner whose join columns lack its shard key, naming both fixes', async () => {
      const error = await rulesErrorOf([OrderByUser, Tag, Article], driver);
      expect(error).toBeInstanceOf(ShardingConfigError);
      expect(error!.message).toMatch(/The junction table "j_order_tags" of OrderByUser.tags refers to OrderByUser by \(id\), which does not contain its shard key "userId"/);
      expect(error!.message).toMatch(/Make "userId" part of OrderByUser's primary key, or name it in @JoinTable\(\{ joinColumns: \[\{ name: …, referencedColumnName: 'userId' \}/);
    });

    it('accepts join columns that name the shard key (composite foreign key to the owner)', async () => {
      const rules = await rulesOf([OrderByUserKeyed, Tag, Article], driver);
      expect(rules.ruleOf('j_order_tags')!.shardKey!.columnName).toBe('orderUserId');
    });

    it('refuses a junction between two sharded entities that are not co-located while it has foreign keys', async () => {
      const error = await rulesErrorOf([ArticleInFolders, Folder], driver);
      expect(error).toBeInstanceOf(ShardingConfigError);
      expect(error!.message).toMatch(/The junction table "j_article_folders" of ArticleInFolders.folders \(sharded\) has a foreign key \(jFoldersId\) to Folder \(sharded\)/);
      expect(error!.message).toMatch(/Set createForeignKeyConstraints: false on that @ManyToMany/);
      expect(error!.message).toMatch(/co-locate Folder with ArticleInFolders/);
      const rules = await rulesOf([ArticleInFoldersNoKeys, Folder], driver);
      expect(rules.ruleOf('j_article_folders')!.shardKey!.columnName).toBe('jArticlesId');
    });

    it('refuses a self-referencing many-to-many of a sharded entity (friends live anywhere)', async () => {
      const error = await rulesErrorOf([Person], driver);
      expect(error!.message).toMatch(/The junction table "j_friends" of Person.friends \(sharded\) has a foreign key \(jPeopleId_2\) to Person \(sharded\)/);
      expect(error!.message).not.toMatch(/co-locate/);
    });

    it('refuses the foreign key from a sharded junction to an unsharded side', async () => {
      const error = await rulesErrorOf([Draft, Article, Tag], driver);
      expect(error!.message).toMatch(/The junction table "j_draft_articles" of Draft.articles \(sharded\) has a foreign key \(jDraftsId\) to Draft \(unsharded\)/);
      expect(error!.message).toMatch(/or make Draft @Broadcast\(\)/);
    });
  });
}
