import { describe, expect, it } from 'vitest';
import { QueryFailedError, TypeORMError } from 'typeorm';
import { ShardingConfigError, ShardingError, UnsupportedShardingError } from './sharding-error.js';
import { ShardQueryError } from './shard-query-error.js';

/** A driver error as mysql2 builds it: the fields are own enumerable properties. */
const duplicate = () =>
  Object.assign(new Error("Duplicate entry '1' for key 'PRIMARY'"), {
    code: 'ER_DUP_ENTRY',
    errno: 1062,
    sqlState: '23000',
    sqlMessage: "Duplicate entry '1' for key 'PRIMARY'",
    sql: "INSERT INTO `t` VALUES (1)",
  });
const facts = { shard: 's2', physicalQuery: 'INSERT INTO `t` VALUES (?)', physicalParameters: [1] };

describe('ShardQueryError', () => {
  it('is shaped as the QueryFailedError TypeORM builds from the same driver error, plus the shard', () => {
    const driverError = duplicate();
    const plain = new QueryFailedError('INSERT INTO `t` VALUES (?)', [1], driverError);
    const sharded = new ShardQueryError(driverError, facts);
    for (const key of Object.keys(plain)) expect((sharded as unknown as Record<string, unknown>)[key], key).toEqual((plain as unknown as Record<string, unknown>)[key]);
    expect(sharded.message).toBe(`${plain.message} (on shard s2)`);
    expect(sharded).toMatchObject({ shard: 's2', physicalQuery: facts.physicalQuery, physicalParameters: [1], shardingCode: 'SHARDING_SHARD_QUERY_FAILED', stage: 'execute' });
  });

  it("unwraps a shard runner's QueryFailedError to its driver error", () => {
    const driverError = duplicate();
    const error = new ShardQueryError(new QueryFailedError('x', [], driverError), facts);
    expect(error.driverError).toBe(driverError);
    expect(error.code).toBe('ER_DUP_ENTRY');
  });

  it('keeps the physical SQL in `sql` when the driver gives none (SQLite)', () => {
    const sqliteError = Object.assign(new Error('UNIQUE constraint failed: t.id'), { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    expect(new ShardQueryError(sqliteError, facts).sql).toBe(facts.physicalQuery);
    expect(new ShardQueryError(duplicate(), facts).sql).toBe('INSERT INTO `t` VALUES (1)');
  });

  it('counts as a QueryFailedError, a TypeORMError and a ShardingError, and as nothing else', () => {
    const error = new ShardQueryError(duplicate(), facts);
    expect(error).toBeInstanceOf(QueryFailedError);
    expect(error).toBeInstanceOf(TypeORMError);
    expect(error).toBeInstanceOf(ShardingError);
    expect(error).not.toBeInstanceOf(ShardingConfigError);
    expect(new QueryFailedError('x', [], duplicate())).not.toBeInstanceOf(ShardingError);
  });

  it('leaves instanceof of the other sharding errors as it was', () => {
    const config = new ShardingConfigError('bad');
    expect(config).toBeInstanceOf(ShardingError);
    expect(config).toBeInstanceOf(ShardingConfigError);
    expect(config).not.toBeInstanceOf(UnsupportedShardingError);
    expect(config).not.toBeInstanceOf(QueryFailedError);
    expect(config.shardingCode).toBe('SHARDING_CONFIG');
    expect({}).not.toBeInstanceOf(ShardingError);
  });
});
