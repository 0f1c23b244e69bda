import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Sharded, ShardKey } from '../../decorators/index.js';
import { UnsupportedShardingError } from '../../errors/index.js';
import { parameterize, type SqlDialect } from '../../parameterize/index.js';
import { rulesOf } from '../../rules/testing/rules-of.js';
import { planUpsert } from './upsert-plan.js';
import { upsertResult } from './upsert-result.js';
import { upsertStatementOf } from './upsert-statement.js';

@Entity('pu_users')
@Sharded({ uniquePerShard: ['code'] })
class PuUser {
  @PrimaryColumn('int') @ShardKey() id!: number;
  @Column({ type: 'varchar', length: 40, unique: true }) email!: string;
  @Column({ type: 'varchar', length: 40, nullable: true, unique: true }) nick!: string | null;
  @Column({ type: 'varchar', length: 40, nullable: true, unique: true }) code!: string | null;
  @Column({ type: 'varchar', length: 40, default: '' }) name!: string;
}

const statementOf = (sql: string, parameters: unknown[], dialect: SqlDialect) => upsertStatementOf(parameterize(sql, parameters, dialect), dialect);

async function planOf(sql: string, parameters: unknown[], dialect: SqlDialect) {
  const rules = await rulesOf([PuUser], dialect === 'mysql' ? 'mysql' : 'better-sqlite3');
  const p = parameterize(sql, parameters, dialect);
  return planUpsert(upsertStatementOf(p, dialect)!, p, rules.ruleOf('pu_users')!, rules.globalIndexesOf('pu_users'));
}

describe('upsertStatementOf', () => {
  it('reads TypeORM’s MySQL upsert: head, rows, assignments by source, RETURNING', () => {
    const s = statementOf(
      'INSERT INTO `pu_users`(`id`, `email`, `name`) VALUES (?, ?, DEFAULT), (?, ?, ?) ON DUPLICATE KEY UPDATE `email` = VALUES(`email`), `name` = ?, `id` = `id`, `n` = `n` + 1  RETURNING `name`',
      [1, 'a', 2, 'b', 'x', 'y'],
      'mysql',
    )!;
    expect(s.mode).toBe('update');
    expect(s.target).toBe('any-unique-key');
    expect(s.head).toEqual({ text: 'INSERT INTO `pu_users`(`id`, `email`, `name`)', parameters: [] });
    expect(s.columns).toEqual(['id', 'email', 'name']);
    expect(s.rows.map((r) => r.map((i) => (i.value ? i.value.v : i.text)))).toEqual([[1, 'a', 'DEFAULT'], [2, 'b', 'x']]);
    expect(s.assignments.map((a) => [a.column, a.value.kind === 'text' ? a.value.part.text : a.value.kind === 'row' ? `row ${a.value.column}` : 'keep'])).toEqual([
      ['email', 'row email'],
      ['name', '?'],
      ['id', 'keep'],
      ['n', '`n` + 1'],
    ]);
    const name = s.assignments[1]!.value;
    expect(name.kind === 'text' && name.part.value).toEqual({ v: 'y' });
    expect(s.returning?.text).toBe('`name`');
    expect(s.unsupported).toBeUndefined();
  });

  it('reads SQLite’s ON CONFLICT (target) DO UPDATE with inline numbers, and DO NOTHING', () => {
    const s = statementOf('INSERT INTO "pu_users"("id", "email") VALUES (7, ?) ON CONFLICT ( "email" ) DO UPDATE SET "email" = EXCLUDED."email", "id" = EXCLUDED."id"', ['a'], 'sqlite')!;
    expect(s.target).toEqual(['email']);
    expect(s.rows[0]!.map((i) => i.value?.v)).toEqual(['7', 'a']);
    expect(s.assignments.map((a) => a.value)).toEqual([{ kind: 'row', column: 'email' }, { kind: 'row', column: 'id' }]);
    const ignore = statementOf('INSERT INTO "pu_users"("id", "email") VALUES (7, ?) ON CONFLICT DO NOTHING', ['a'], 'sqlite')!;
    expect([ignore.mode, ignore.target, ignore.clause]).toEqual(['ignore', 'any-unique-key', 'ON CONFLICT DO NOTHING']);
    expect(statementOf('INSERT  IGNORE INTO `pu_users`(`id`, `email`) VALUES (?, ?)', [1, 'a'], 'mysql')!.head.text).toBe('INSERT INTO `pu_users`(`id`, `email`)');
    expect(statementOf('INSERT IGNORE `pu_users` (`id`, `email`) VALUES (?, ?)', [1, 'a'], 'mysql')!.head.text).toBe('INSERT INTO `pu_users` (`id`, `email`)');
    expect(statementOf('INSERT OR IGNORE INTO "pu_users" ("id", "email") VALUES (1, ?)', ['a'], 'sqlite')!.head.text).toBe('INSERT INTO "pu_users" ("id", "email")');
  });

  it('marks what a row-by-row route cannot repeat, and is undefined for a plain INSERT', () => {
    expect(statementOf('REPLACE INTO `pu_users` (`id`, `email`) VALUES (?, ?)', [1, 'a'], 'mysql')!.unsupported).toMatch(/REPLACE/);
    expect(statementOf('INSERT OR REPLACE INTO "pu_users" ("id", "email") VALUES (1, ?)', ['a'], 'sqlite')!.unsupported).toMatch(/OR REPLACE/);
    expect(statementOf('INSERT INTO "pu_users" ("id", "email") VALUES (1, ?) ON CONFLICT ("email") DO UPDATE SET "name" = ? WHERE "pu_users"."name" <> ?', ['a', 'b', 'c'], 'sqlite')!.unsupported).toMatch(/WHERE/);
    expect(statementOf('INSERT INTO `pu_users` (`id`, `email`) VALUES (?, ?)', [1, 'a'], 'mysql')).toBeUndefined();
  });
});

describe('planUpsert', () => {
  it('checks every unique key on MySQL, the primary key first; only the target on SQLite', async () => {
    const mysql = await planOf('INSERT INTO `pu_users`(`id`, `email`, `nick`) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE `nick` = VALUES(`nick`)', [1, 'a', null], 'mysql').catch((e: Error) => e);
    // `code` is unique per shard only: a conflict on it may be on another shard.
    expect(mysql).toBeInstanceOf(UnsupportedShardingError);
    expect((mysql as Error).message).toMatch(/\(code\) does not contain the shard key "id" and has no global index/);
    const sqlite = await planOf('INSERT INTO "pu_users"("id", "email") VALUES (1, ?) ON CONFLICT ( "email" ) DO UPDATE SET "name" = EXCLUDED."name"', ['a'], 'sqlite').catch((e: Error) => e);
    expect(sqlite).toBeInstanceOf(UnsupportedShardingError); // "name" is not listed
    const plan = await planOf('INSERT INTO "pu_users"("id", "email", "name") VALUES (1, ?, ?) ON CONFLICT ( "email" ) DO UPDATE SET "name" = EXCLUDED."name"', ['a', 'n'], 'sqlite');
    expect(plan.keys.map((k) => [k.columns, k.index?.lookupTable, k.primary])).toEqual([[['email'], 'pu_users__gidx_email', false]]);
    const byId = await planOf('INSERT INTO "pu_users"("id", "email") VALUES (1, ?) ON CONFLICT ( "id" ) DO UPDATE SET "email" = EXCLUDED."email"', ['a'], 'sqlite');
    expect(byId.keys.map((k) => [k.columns, k.index, k.primary])).toEqual([[['id'], undefined, true]]);
  });

  it('refuses values it must know and does not: a key expression, a shard key or indexed column set to an expression, an unknown target', async () => {
    const refusal = (sql: string, ps: unknown[]) => planOf(sql, ps, 'sqlite').then(() => 'planned', (e: Error) => (e instanceof UnsupportedShardingError ? e.message : `other ${e.message}`));
    expect(await refusal('INSERT INTO "pu_users"("id", "email") VALUES (1, lower(?)) ON CONFLICT ("email") DO NOTHING', ['A'])).toMatch(/"email" of a conflict key is given lower\(\?\)/);
    expect(await refusal('INSERT INTO "pu_users"("id", "email") VALUES (1, ?) ON CONFLICT ("email") DO UPDATE SET "id" = "id" + 1', ['a'])).toMatch(/sets "id".*to the expression "id" \+ 1/);
    expect(await refusal('INSERT INTO "pu_users"("id", "email") VALUES (1, ?) ON CONFLICT ("email") DO UPDATE SET "nick" = upper("name")', ['a'])).toMatch(/sets "nick"/);
    expect(await refusal('INSERT INTO "pu_users"("id", "email") VALUES (1, ?) ON CONFLICT ("name") DO NOTHING', ['a'])).toMatch(/no unique key/);
    expect(await refusal('INSERT INTO "pu_users"("id", "email", "name") VALUES (1, ?, ?) ON CONFLICT ("email") DO UPDATE SET "name" = "name" || EXCLUDED."name"', ['a', 'b'])).toMatch(/expression over the new row/);
    expect(await refusal('INSERT INTO "pu_users"("id", "email", "name") VALUES (1, ?, ?) ON CONFLICT ("email") DO UPDATE SET "name" = "name" || \'!\'', ['a', 'b'])).toBe('planned');
  });
});

describe('upsertResult', () => {
  const inserted = { kind: 'inserted', changed: true } as const;
  it('counts as mysql2 does with FOUND_ROWS: 1 inserted, 2 changed, 1 unchanged; info only for several rows', () => {
    const r = upsertResult([inserted, { kind: 'updated', changed: true }, { kind: 'updated', changed: false }], 'mysql', false);
    expect(r.raw).toEqual({ fieldCount: 0, affectedRows: 4, insertId: 0, info: 'Records: 3  Duplicates: 2  Warnings: 0', serverStatus: 2, warningStatus: 0, changedRows: 0 });
    expect(upsertResult([{ kind: 'updated', changed: true }], 'mysql', false, true).raw).toMatchObject({ affectedRows: 2, info: '', serverStatus: 3 });
    expect(upsertResult([{ kind: 'ignored', changed: false }, inserted], 'mysql', false).raw).toMatchObject({ affectedRows: 1, warningStatus: 1, info: 'Records: 2  Duplicates: 1  Warnings: 1' });
  });

  it('returns the RETURNING rows in VALUES order without the skipped ones; SQLite: the last insert’s rowid', () => {
    expect(upsertResult([{ ...inserted, returned: { a: 1 } }, { kind: 'ignored', changed: false }, { kind: 'updated', changed: true, returned: { a: 3 } }], 'mysql', true).raw).toEqual([{ a: 1 }, { a: 3 }]);
    const insert = (raw: number) => ({ ...inserted, insert: Object.assign(Object.create(null) as object, { raw }) as never });
    const r = upsertResult([insert(4), { kind: 'updated', changed: true }, insert(9), { kind: 'ignored', changed: false }], 'sqlite', false);
    expect([r.raw, r.affected]).toEqual([9, 3]);
  });
});
