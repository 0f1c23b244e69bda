import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { Column, Entity, Index, JoinColumn, OneToOne, PrimaryColumn, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Broadcast, Sharded, ShardKey } from '../decorators/index.js';
import { ShardingConfigError } from '../errors/index.js';
import { rulesErrorOf, rulesOf } from './testing/rules-of.js';

// Item 6: a unique key of a sharded table is enforced per shard only, unless it contains the
// shard key. initialize() refuses the others unless they are generated uuids or listed in
// @Sharded({ uniquePerShard }). TypeORM records unique constraints as unique indexes on MySQL
// and as constraints on SQLite: every case runs on the metadata of both drivers.

@Entity('u_orders') @Sharded()
class OrderById {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() userId!: number;
}

@Entity('u_orders') @Sharded({ uniquePerShard: ['id'] })
class OrderByIdAccepted {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() userId!: number;
}

@Entity('u_orders') @Sharded()
class OrderComposite {
  @PrimaryColumn('int') id!: number;
  @PrimaryColumn('int') @ShardKey() userId!: number;
}

@Entity('u_orders') @Sharded()
class OrderUuid {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('int') @ShardKey() userId!: number;
}

@Entity('u_accounts') @Sharded()
class AccountEmail {
  @PrimaryColumn('int') @ShardKey() userId!: number;
  @Column('varchar', { length: 60, unique: true }) email!: string;
}

@Entity('u_accounts') @Sharded() @Index(['email'], { unique: true })
class AccountIndex {
  @PrimaryColumn('int') @ShardKey() userId!: number;
  @Column('varchar', { length: 60 }) email!: string;
}

@Entity('u_accounts') @Sharded() @Unique(['email', 'userId'])
class AccountEmailPerUser {
  @PrimaryColumn('int') id!: number;
  @PrimaryColumn('int') @ShardKey() userId!: number;
  @Column('varchar', { length: 60 }) email!: string;
}

@Entity('u_accounts') @Sharded({ uniquePerShard: ['id', ['email', 'tenant']] }) @Unique(['email', 'tenant'])
class AccountBoth {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() userId!: number;
  @Column('varchar', { length: 60 }) email!: string;
  @Column('int') tenant!: number;
}

@Entity('u_accounts') @Sharded() @Unique(['email', 'tenant'])
class AccountTwoProblems {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() userId!: number;
  @Column('varchar', { length: 60 }) email!: string;
  @Column('int') tenant!: number;
}

@Entity('u_accounts') @Sharded({ uniquePerShard: ['name'] })
class AccountStaleEntry {
  @PrimaryColumn('int') @ShardKey() userId!: number;
  @Column('varchar', { length: 60 }) name!: string;
}

@Entity('u_accounts') @Sharded({ uniquePerShard: ['nope'] })
class AccountUnknownEntry {
  @PrimaryColumn('int') @ShardKey() userId!: number;
}

@Entity('u_accounts') @Sharded({ uniquePerShard: [5 as never, []] })
class AccountBadEntry {
  @PrimaryColumn('int') @ShardKey() userId!: number;
}

@Entity('u_avatars') @Broadcast()
class Avatar {
  @PrimaryColumn('int') id!: number;
}

@Entity('u_profiles') @Sharded()
class ProfileOneToOne {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @OneToOne(() => Avatar) @JoinColumn({ name: 'avatarId' }) avatar!: Avatar;
}

@Entity('u_profiles') @Sharded({ uniquePerShard: ['avatar'] })
class ProfileOneToOneAccepted {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @OneToOne(() => Avatar) @JoinColumn({ name: 'avatarId' }) avatar!: Avatar;
}

for (const driver of ['better-sqlite3', 'mysql'] as const) {
  describe(`unique keys of sharded tables (${driver} metadata)`, () => {
    const refused = async (entities: Function[], ...patterns: RegExp[]) => {
      const error = await rulesErrorOf(entities, driver);
      expect(error).toBeInstanceOf(ShardingConfigError);
      for (const p of patterns) expect(error!.message).toMatch(p);
    };

    it('refuses a primary key without the shard key, naming the entity, the columns and both fixes', async () => {
      await refused(
        [OrderById],
        /^Entity OrderById: its primary key \(id\) does not contain the shard key "userId"/,
        /@PrimaryColumn\(\) on "userId" too/,
        /@Sharded\(\{ uniquePerShard: \['id'\] \}\)/,
        /a global unique index across shards is not supported yet/,
      );
    });
    it('accepts it when declared unique per shard', async () => {
      const rules = await rulesOf([OrderByIdAccepted], driver);
      expect(rules.ruleOf('u_orders')!.uniqueKeys).toEqual([{ label: 'primary key', columns: ['id'] }]);
    });
    it('accepts a primary key that contains the shard key, and a generated uuid primary key', async () => {
      await rulesOf([OrderComposite], driver);
      await rulesOf([OrderUuid], driver);
    });
    it('refuses a unique column and a unique index without the shard key', async () => {
      await refused([AccountEmail], /Entity AccountEmail: its unique key \(email\) does not contain the shard key "userId"/, /@Unique\(\['email', 'userId'\]\)/, /uniquePerShard: \['email'\]/);
      await refused([AccountIndex], /Entity AccountIndex: its unique key \(email\)/);
    });
    it('accepts a composite unique key that contains the shard key', async () => {
      const rules = await rulesOf([AccountEmailPerUser], driver);
      expect(rules.ruleOf('u_accounts')!.uniqueKeys.map((u) => [...u.columns].sort())).toEqual([['id', 'userId'], ['email', 'userId']]);
    });
    it('lists every offending key in one error, and accepts them all when declared (composite keys as arrays)', async () => {
      await refused([AccountTwoProblems], /its primary key \(id\) and its unique key \(email, tenant\) do not contain the shard key "userId"/, /uniquePerShard: \['id', \['email', 'tenant'\]\]/);
      await rulesOf([AccountBoth], driver);
    });
    it('refuses a uniquePerShard entry that matches no such key, or names no column', async () => {
      await refused([AccountStaleEntry], /uniquePerShard lists \(name\), but AccountStaleEntry has no unique key on exactly these columns/);
      await refused([AccountUnknownEntry], /uniquePerShard names "nope", which is not a column of AccountUnknownEntry/);
      await refused([AccountBadEntry], /uniquePerShard entry 5 is neither a property name nor a non-empty array of property names/);
    });
    it('refuses a one-to-one join column without the shard key, saying what it is', async () => {
      await refused([ProfileOneToOne, Avatar], /Entity ProfileOneToOne: its one-to-one join column of "avatar" \(avatar\) does not contain the shard key "id"/, /uniquePerShard: \['avatar'\]/);
      await rulesOf([ProfileOneToOneAccepted, Avatar], driver);
    });
  });
}
