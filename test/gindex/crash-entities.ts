import 'reflect-metadata';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Sharded, ShardKey } from '../../packages/typeorm-sharding/src/index.js';

/** The crash worker's users (crash-worker.mjs declares the same entity for the built library). */
@Entity('gc_users')
@Sharded()
export class CrashUser {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column({ type: 'varchar', length: 60, unique: true }) email!: string;
}
