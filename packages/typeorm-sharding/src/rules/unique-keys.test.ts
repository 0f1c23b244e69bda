import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { Column, Entity, Index, JoinColumn, OneToOne, PrimaryColumn, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Broadcast, Sharded, ShardKey } from '../decorators/index.js';
import { ShardingConfigError } from '../errors/index.js';
import { rulesErrorOf, rulesOf } from './testing/rules-of.js';

// Item 6 / issue 16: a unique key of a sharded table is enforced per shard only, unless it
// contains the shard key. The others get a global unique index (a lookup table) unless they are
// generated uuids or listed in @Sharded({ uniquePerShard }); a key whose columns cannot route a
// lookup table (neither integer nor text) is refused. TypeORM records unique constraints as unique indexes on MySQL
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

@Entity('u_events') @Sharded()
class EventByTime {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column('datetime', { unique: true }) at!: Date;
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

    const indexed = async (entities: Function[]) => (await rulesOf(entities, driver)).globalIndexes.map((g) => `${g.table}(${g.columns.join(', ')})→${g.ownerColumn} ${g.lookupTable}`);

    it('gives a primary key without the shard key a global unique index', async () => {
      expect(await indexed([OrderById])).toEqual(['u_orders(id)→userId u_orders__gidx_id']);
    });
    it('accepts it when declared unique per shard, without an index', async () => {
      const rules = await rulesOf([OrderByIdAccepted], driver);
      expect(rules.ruleOf('u_orders')!.uniqueKeys).toEqual([{ label: 'primary key', columns: ['id'], name: 'PRIMARY' }]);
      expect(rules.globalIndexes).toEqual([]);
    });
    it('refuses a key whose columns can route no lookup table, naming the fixes', async () => {
      await refused(
        [EventByTime],
        /^Entity EventByTime: its unique key \(at\) does not contain the shard key "id"/,
        /uniquePerShard: \['at'\]/,
        /a global unique index \(a lookup table\) is built only for keys whose columns are all integers or text/,
      );
    });
    it('accepts a primary key that contains the shard key, and a generated uuid primary key', async () => {
      await rulesOf([OrderComposite], driver);
      await rulesOf([OrderUuid], driver);
    });
    it('gives a unique column and a unique index without the shard key a global unique index', async () => {
      expect(await indexed([AccountEmail])).toEqual(['u_accounts(email)→userId u_accounts__gidx_email']);
      expect(await indexed([AccountIndex])).toEqual(['u_accounts(email)→userId u_accounts__gidx_email']);
    });
    it('accepts a composite unique key that contains the shard key', async () => {
      const rules = await rulesOf([AccountEmailPerUser], driver);
      expect(rules.ruleOf('u_accounts')!.uniqueKeys.map((u) => [...u.columns].sort())).toEqual([['id', 'userId'], ['email', 'userId']]);
    });
    it('indexes every such key, and none when all are declared (composite keys as arrays)', async () => {
      expect((await indexed([AccountTwoProblems])).sort()).toEqual(['u_accounts(email, tenant)→userId u_accounts__gidx_email_tenant', 'u_accounts(id)→userId u_accounts__gidx_id']);
      expect(await indexed([AccountBoth])).toEqual([]);
    });
    it('refuses a uniquePerShard entry that matches no such key, or names no column', async () => {
      await refused([AccountStaleEntry], /uniquePerShard lists \(name\), but AccountStaleEntry has no unique key on exactly these columns/);
      await refused([AccountUnknownEntry], /uniquePerShard names "nope", which is not a column of AccountUnknownEntry/);
      await refused([AccountBadEntry], /uniquePerShard entry 5 is neither a property name nor a non-empty array of property names/);
    });
    it('gives a one-to-one join column without the shard key a global unique index', async () => {
      const rules = await rulesOf([ProfileOneToOne, Avatar], driver);
      expect(rules.globalIndexes.map((g) => [g.label, g.lookupTable])).toEqual([['one-to-one join column of "avatar"', 'u_profiles__gidx_avatarId']]);
      expect((await rulesOf([ProfileOneToOneAccepted, Avatar], driver)).globalIndexes).toEqual([]);
    });
  });
}
