import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { Column, Entity, JoinColumn, JoinTable, ManyToMany, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import { Broadcast, Sharded, ShardKey } from '../decorators/index.js';
import { ShardingConfigError } from '../errors/index.js';
import { rulesErrorOf, rulesOf } from './testing/rules-of.js';

// Item 17: entities declared co-located (@Sharded({ colocateWith })) join shard by shard on
// the columns of a relation between them, and their foreign keys are accepted; foreign keys
// between sharded tables otherwise need both shard keys among their columns.

@Entity('c_users') @Sharded()
class User {
  @PrimaryColumn('int') @ShardKey() id!: number;
}

@Entity('c_orders') @Sharded({ uniquePerShard: ['id'] }) @Unique(['id', 'userId'])
class Order {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() userId!: number;
  /** orders.userId → users.id: both shard keys, accepted without co-location. */
  @ManyToOne(() => User) @JoinColumn({ name: 'userId' }) user!: User;
}

@Entity('c_items') @Sharded({ uniquePerShard: ['id'], colocateWith: () => Order })
class Item {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() userId!: number;
  @Column('int') orderId!: number;
  @ManyToOne(() => Order) @JoinColumn({ name: 'orderId', referencedColumnName: 'id' }) order!: Order;
}

@Entity('c_items') @Sharded({ uniquePerShard: ['id'] })
class LooseItem {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() userId!: number;
  @Column('int') orderId!: number;
  @ManyToOne(() => Order) @JoinColumn({ name: 'orderId', referencedColumnName: 'id' }) order!: Order;
}

@Entity('c_shipments') @Sharded()
class Shipment {
  @PrimaryColumn('int') id!: number;
  @PrimaryColumn('int') @ShardKey() userId!: number;
  @Column('int') orderId!: number;
  @ManyToOne(() => Order) @JoinColumn([{ name: 'orderId', referencedColumnName: 'id' }, { name: 'userId', referencedColumnName: 'userId' }]) order!: Order;
}

@Entity('c_notes') @Sharded({ uniquePerShard: ['id'], colocateWith: () => Item })
class Note {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() userId!: number;
}

@Entity('c_regions') @Broadcast()
class Region {
  @PrimaryColumn('int') id!: number;
}

@Entity('c_codes') @Sharded({ colocateWith: () => Order })
class CodeByString {
  @PrimaryColumn('varchar', { length: 20 }) @ShardKey() code!: string;
}

@Entity('c_items') @Sharded({ algorithm: 'mod', uniquePerShard: ['id'], colocateWith: () => Order })
class ModItem {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() userId!: number;
}

@Entity('c_items') @Sharded({ colocateWith: () => Region })
class ItemWithBroadcast {
  @PrimaryColumn('int') @ShardKey() id!: number;
}

@Entity('c_items') @Sharded({ colocateWith: () => SelfItem })
class SelfItem {
  @PrimaryColumn('int') @ShardKey() id!: number;
}

@Entity('c_items') @Sharded({ colocateWith: () => User })
class ItemOfMissing {
  @PrimaryColumn('int') @ShardKey() id!: number;
}

@Entity('c_items') @Sharded({ colocateWith: Order as never })
class ItemNotAFunction {
  @PrimaryColumn('int') @ShardKey() id!: number;
}

@Entity('c_items') @Sharded({ uniquePerShard: ['id'] })
class ItemWithKeyRelation {
  @PrimaryColumn('int') id!: number;
  @Column('int') @ShardKey() userId!: number;
  @ManyToOne(() => User) @JoinColumn({ name: 'userId' }) user!: User;
}

@Entity('c_logs') @Sharded({ algorithm: 'mod' })
class LogByMod {
  @PrimaryColumn('int') @ShardKey() userId!: number;
  @ManyToOne(() => User) @JoinColumn({ name: 'userId' }) user!: User;
}

@Entity('c_drafts')
class Draft {
  @PrimaryColumn('int') id!: number;
  @ManyToOne(() => User) @JoinColumn({ name: 'userId' }) user!: User;
}

@Entity('c_groups') @Sharded({ colocateWith: () => GroupMember })
class Group {
  @PrimaryColumn('int') @ShardKey() id!: number;
}

@Entity('c_group_members') @Sharded()
class GroupMember {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @ManyToMany(() => Group) @JoinTable({ name: 'c_member_groups' }) groups!: Group[];
}

for (const driver of ['better-sqlite3', 'mysql'] as const) {
  describe(`co-location and foreign keys (${driver} metadata)`, () => {
    const refused = async (entities: Function[], ...patterns: RegExp[]) => {
      const error = await rulesErrorOf(entities, driver);
      expect(error).toBeInstanceOf(ShardingConfigError);
      for (const p of patterns) expect(error!.message).toMatch(p);
    };

    it('groups co-located entities transitively (items with orders, notes with items)', async () => {
      const rules = await rulesOf([User, Order, Item, Note], driver);
      const rule = (t: string) => rules.ruleOf(t)!;
      expect(rules.areColocated(rule('c_items'), rule('c_orders'))).toBe(true);
      expect(rules.areColocated(rule('c_orders'), rule('c_items'))).toBe(true);
      expect(rules.areColocated(rule('c_notes'), rule('c_orders'))).toBe(true);
      expect(rules.areColocated(rule('c_users'), rule('c_orders'))).toBe(false);
      expect(rules.areColocated(rule('c_items'), rule('c_items'))).toBe(false);
    });

    it('joins co-located rows only on all the columns of a relation between them, in either order', async () => {
      const rules = await rulesOf([User, Order, Item, Note], driver);
      const items = rules.ruleOf('c_items')!;
      const orders = rules.ruleOf('c_orders')!;
      expect(rules.joinsColocatedRows(items, orders, [['orderId', 'id']])).toBe(true);
      expect(rules.joinsColocatedRows(orders, items, [['ID', 'ORDERID']])).toBe(true);
      expect(rules.joinsColocatedRows(items, orders, [['id', 'id']])).toBe(false);
      expect(rules.joinsColocatedRows(items, orders, [])).toBe(false);
      expect(rules.joinsColocatedRows(rules.ruleOf('c_notes')!, items, [['id', 'id']])).toBe(false);
    });

    it('accepts a foreign key between co-located entities, and refuses it without co-location, naming the fixes', async () => {
      await rulesOf([User, Order, Item], driver);
      await refused(
        [User, Order, LooseItem],
        /Entity LooseItem \(sharded\) has a foreign key \(orderId\) to Order \(sharded\) that no shard can check on its own rows/,
        /Set createForeignKeyConstraints: false on the relation LooseItem.order/,
        /join on both shard keys \("userId" → "userId"\)/,
        /@Sharded\(\{ colocateWith: \(\) => Order \}\) on LooseItem/,
      );
    });

    it('accepts composite join columns that include both shard keys, and a key-to-key foreign key', async () => {
      await rulesOf([User, Order, Shipment], driver);
      await rulesOf([User, ItemWithKeyRelation], driver);
    });

    it('refuses a key-to-key foreign key between different placements', async () => {
      await refused([User, LogByMod], /Entity LogByMod \(sharded\) has a foreign key \(userId\) to User \(sharded\)/);
    });

    it('refuses a foreign key from an unsharded table to a sharded one', async () => {
      await refused([User, Draft], /Entity Draft \(unsharded\) has a foreign key \(userId\) to User \(sharded\)/, /make Draft @Sharded\(\) by a column that references User's shard key/);
    });

    it('accepts the foreign keys of a junction between co-located sharded entities', async () => {
      const rules = await rulesOf([Group, GroupMember], driver);
      const junction = rules.ruleOf('c_member_groups')!;
      expect(rules.joinsColocatedRows(junction, rules.ruleOf('c_groups')!, [['cGroupsId', 'id']])).toBe(true);
    });

    it('checks colocateWith: a sharded entity of this data source, not itself, same key type and algorithm', async () => {
      await refused([User, Order, CodeByString], /Entity CodeByString \(shard key "code": string, hash\(crc32, 1024 buckets\)\) cannot be co-located with Order \(shard key "userId": integer, hash\(crc32, 1024 buckets\)\)/);
      await refused([User, Order, ModItem], /cannot be co-located with Order/, /same key type and the same algorithm/);
      await refused([Region, ItemWithBroadcast], /colocateWith names Region, which is broadcast, not @Sharded\(\)/);
      await refused([SelfItem], /colocateWith names the entity itself/);
      await refused([ItemOfMissing], /colocateWith names User, which is not an entity of this data source/);
      await refused([Order, User, ItemNotAFunction], /colocateWith must be a function returning the entity class/);
    });
  });
}
