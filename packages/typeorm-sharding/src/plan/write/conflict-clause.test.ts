import { describe, expect, it } from 'vitest';
import type { SqlDialect } from '../../parameterize/index.js';
import type { ConflictHandling } from '../../rules/index.js';
import { conflictClausesOf } from './conflict-clause.js';

// Conflict handling as TypeORM writes it (upsert, orIgnore) and as raw SQL may spell it.
const cases: { title: string; dialect: SqlDialect; sql: string; expected: ConflictHandling[] }[] = [
  { title: 'a plain INSERT', dialect: 'mysql', sql: 'INSERT INTO `t`(`id`, `name`) VALUES (?, ?)', expected: [] },
  {
    title: "TypeORM's upsert on MySQL",
    dialect: 'mysql',
    sql: 'INSERT INTO `t`(`id`, `userId`, `name`) VALUES (?, ?, ?), (?, ?, ?) ON DUPLICATE KEY UPDATE `id` = VALUES(`id`), `userId` = VALUES(`userId`), `name` = VALUES(`name`) ',
    expected: [
      {
        clause: 'ON DUPLICATE KEY UPDATE',
        target: 'any-unique-key',
        assignments: [
          { column: 'id', value: 'VALUES ( `id` )' },
          { column: 'userId', value: 'VALUES ( `userId` )' },
          { column: 'name', value: 'VALUES ( `name` )' },
        ],
      },
    ],
  },
  {
    title: 'raw ON DUPLICATE KEY UPDATE with an expression and RETURNING',
    dialect: 'mysql',
    sql: 'INSERT INTO t (id, n) VALUES (1, 2) ON DUPLICATE KEY UPDATE n = n + 1, t.id = IF(n > 1, 3, id) RETURNING id',
    expected: [{ clause: 'ON DUPLICATE KEY UPDATE', target: 'any-unique-key', assignments: [{ column: 'n', value: 'n + 1' }, { column: 'id', value: 'IF ( n > 1 , 3 , id )' }] }],
  },
  { title: 'INSERT IGNORE (orIgnore on MySQL)', dialect: 'mysql', sql: 'INSERT IGNORE INTO `t`(`id`) VALUES (?)', expected: [{ clause: 'INSERT IGNORE', target: 'any-unique-key', assignments: [] }] },
  { title: 'REPLACE', dialect: 'mysql', sql: 'REPLACE INTO t (id) VALUES (1)', expected: [{ clause: 'REPLACE', target: 'any-unique-key', assignments: [] }] },
  {
    title: "TypeORM's upsert on SQLite",
    dialect: 'sqlite',
    sql: 'INSERT INTO "t"("id", "userId", "name") VALUES (1, 2, ?) ON CONFLICT ( "userId", "id" ) DO UPDATE SET "id" = EXCLUDED."id", "name" = EXCLUDED."name"',
    expected: [
      {
        clause: 'ON CONFLICT DO UPDATE',
        target: ['userId', 'id'],
        assignments: [
          { column: 'id', value: 'EXCLUDED . "id"' },
          { column: 'name', value: 'EXCLUDED . "name"' },
        ],
      },
    ],
  },
  {
    title: 'upsert of only conflict columns on SQLite (DO NOTHING with a target)',
    dialect: 'sqlite',
    sql: 'INSERT INTO "t"("id") VALUES (1) ON CONFLICT ( "id" ) DO NOTHING ',
    expected: [{ clause: 'ON CONFLICT DO NOTHING', target: ['id'], assignments: [] }],
  },
  { title: 'orIgnore on SQLite (ON CONFLICT DO NOTHING)', dialect: 'sqlite', sql: 'INSERT INTO "t"("id") VALUES (1) ON CONFLICT DO NOTHING ', expected: [{ clause: 'ON CONFLICT DO NOTHING', target: 'any-unique-key', assignments: [] }] },
  { title: 'INSERT OR REPLACE', dialect: 'sqlite', sql: 'INSERT OR REPLACE INTO "t"("id") VALUES (1)', expected: [{ clause: 'INSERT OR REPLACE', target: 'any-unique-key', assignments: [] }] },
  { title: 'INSERT OR ABORT is a plain INSERT', dialect: 'sqlite', sql: 'INSERT OR ABORT INTO "t"("id") VALUES (1)', expected: [] },
  {
    title: 'two ON CONFLICT clauses, a partial-index target and a WHERE on the update',
    dialect: 'sqlite',
    sql: 'INSERT INTO t (a, b) VALUES (1, 2) ON CONFLICT (a) WHERE b > 0 DO UPDATE SET b = excluded.b WHERE b < 9 ON CONFLICT DO NOTHING',
    expected: [
      { clause: 'ON CONFLICT DO UPDATE', target: ['a'], assignments: [{ column: 'b', value: 'excluded . b' }] },
      { clause: 'ON CONFLICT DO NOTHING', target: 'any-unique-key', assignments: [] },
    ],
  },
  { title: "an 'ON' inside a string value is not a clause", dialect: 'mysql', sql: "INSERT INTO t (id, s) VALUES (1, 'ON DUPLICATE KEY UPDATE')", expected: [] },
];

describe('conflictClausesOf', () => {
  for (const c of cases) {
    it(c.title, () => {
      expect(conflictClausesOf(c.sql, c.dialect)).toEqual(c.expected);
    });
  }
});
