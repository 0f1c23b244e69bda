import { describe, it, expect } from 'vitest';
import nsp from 'node-sql-parser/build/mysql.js';
import { parameterize } from './parameterize.js';
import { ParameterCountError } from './parameterize-error.js';
import { ShardingError } from '../errors/index.js';
import type { SqlDialect } from './parameterized-sql.js';
import { unmark } from './testing/marked-sql.js';

interface Case {
  readonly name: string;
  readonly dialect: SqlDialect;
  /** SQL with `⟦slot⟧` and `⟨(IN list)⟩` markers. */
  readonly marked: string;
  readonly parameters?: unknown[];
  /** Values of the slots outside IN lists. */
  readonly values: unknown[];
  /** Values of each IN list's items. */
  readonly lists?: unknown[][];
  readonly negated?: boolean[];
  readonly key: string;
  readonly parserSql: string;
  readonly verb?: string;
  /** Whether node-sql-parser's MySQL build must accept `parserSql`. */
  readonly parses?: boolean;
}

const parser = new nsp.Parser();

const cases: Case[] = [
  {
    name: 'TypeORM find with In, where, order, skip and take (mysql)',
    dialect: 'mysql',
    marked:
      'SELECT `Order`.`id` AS `Order_id`, `Order`.`buyerId` AS `Order_buyerId` FROM `orders` `Order` ' +
      'WHERE ((`Order`.`id` IN ⟨(⟦?⟧, ⟦?⟧, ⟦?⟧)⟩)) AND (`Order`.`buyerId` = ⟦?⟧) ' +
      'ORDER BY `Order`.`createdAt` DESC LIMIT ⟦20⟧ OFFSET ⟦20⟧',
    parameters: ['1', '2', '4', 7],
    values: [7, '20', '20'],
    lists: [['1', '2', '4']],
    negated: [false],
    key:
      'SELECT `Order`.`id` AS `Order_id`, `Order`.`buyerId` AS `Order_buyerId` FROM `orders` `Order` ' +
      'WHERE ((`Order`.`id` IN (?…))) AND (`Order`.`buyerId` = ?) ORDER BY `Order`.`createdAt` DESC LIMIT ? OFFSET ?',
    parserSql:
      'SELECT `Order`.`id` AS `Order_id`, `Order`.`buyerId` AS `Order_buyerId` FROM `orders` `Order` ' +
      'WHERE ((`Order`.`id` IN (:l0))) AND (`Order`.`buyerId` = :p0) ORDER BY `Order`.`createdAt` DESC LIMIT :p1 OFFSET :p2',
    verb: 'SELECT',
    parses: true,
  },
  {
    name: 'TypeORM find with In on SQLite: numbers written into the text',
    dialect: 'sqlite',
    marked:
      'SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE (("Order"."id" IN ⟨(⟦1⟧, ⟦2⟧, ⟦4⟧, ⟦5⟧, ⟦9⟧)⟩)) LIMIT ⟦10⟧',
    values: ['10'],
    lists: [['1', '2', '4', '5', '9']],
    key: 'SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE (("Order"."id" IN (?…))) LIMIT ?',
    parserSql: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` IN (:l0))) LIMIT :p0',
    parses: true,
  },
  {
    name: 'In([]) is written 0=1',
    dialect: 'sqlite',
    marked: 'SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE ((⟦0⟧=⟦1⟧))',
    values: ['0', '1'],
    key: 'SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE ((? = ?))',
    parserSql: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((:p0 = :p1))',
    parses: true,
  },
  {
    name: 'where: [{ id: 1 }, { id: 2 }] on SQLite',
    dialect: 'sqlite',
    marked: 'SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE (("Order"."id" = ⟦1⟧)) OR (("Order"."id" = ⟦2⟧))',
    values: ['1', '2'],
    key: 'SELECT "Order"."id" AS "Order_id" FROM "orders" "Order" WHERE (("Order"."id" = ?)) OR (("Order"."id" = ?))',
    parserSql: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE ((`Order`.`id` = :p0)) OR ((`Order`.`id` = :p1))',
    parses: true,
  },
  {
    name: 'raw lower-case SQL with bare identifiers',
    dialect: 'mysql',
    marked: 'select * from orders where id = ⟦1⟧ OR id = ⟦2⟧',
    values: ['1', '2'],
    key: 'select * from orders where id = ? OR id = ?',
    parserSql: 'select * from `orders` where `id` = :p0 OR `id` = :p1',
    verb: 'SELECT',
    parses: true,
  },
  {
    name: 'TypeORM comment option: /* comment */ prefix',
    dialect: 'mysql',
    marked: '/* my comment */ SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` = ⟦?⟧',
    parameters: ['5'],
    values: ['5'],
    key: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` = ?',
    parserSql: 'SELECT `Order`.`id` AS `Order_id` FROM `orders` `Order` WHERE `Order`.`id` = :p0',
    verb: 'SELECT',
    parses: true,
  },
  {
    name: 'INSERT with DEFAULT',
    dialect: 'mysql',
    marked: 'INSERT INTO `orders`(`id`, `buyerId`) VALUES (⟦?⟧, ⟦?⟧), (⟦?⟧, DEFAULT)',
    parameters: ['1', 2, '3'],
    values: ['1', 2, '3'],
    key: 'INSERT INTO `orders` (`id`, `buyerId`) VALUES (?, ?), (?, DEFAULT)',
    parserSql: 'INSERT INTO `orders` (`id`, `buyerId`) VALUES (:p0, :p1), (:p2, DEFAULT())',
    verb: 'INSERT',
    parses: true,
  },
  ...(['mysql', 'sqlite'] as const).map(
    (dialect): Case => ({
      name: `a string holding ? and IN ( and a doubled quote (${dialect})`,
      dialect,
      marked: "SELECT ⟦'it''s ? IN ('⟧ AS x FROM t WHERE y = ⟦?⟧",
      parameters: [5],
      values: ["it's ? IN (", 5],
      key: 'SELECT ? AS x FROM t WHERE y = ?',
      parserSql: 'SELECT :p0 AS `x` FROM `t` WHERE `y` = :p1',
      parses: true,
    }),
  ),
  {
    name: 'MySQL backslash escapes',
    dialect: 'mysql',
    marked: String.raw`SELECT * FROM t WHERE a = ⟦'x\'y? IN (\\'⟧ AND b = ⟦'tab\there\n'⟧ AND c LIKE ⟦'100\%'⟧ AND d = ⟦?⟧`,
    parameters: ['p'],
    values: ["x'y? IN (\\", 'tab\there\n', '100\\%', 'p'],
    key: 'SELECT * FROM t WHERE a = ? AND b = ? AND c LIKE ? AND d = ?',
    parserSql: 'SELECT * FROM `t` WHERE `a` = :p0 AND `b` = :p1 AND `c` LIKE :p2 AND `d` = :p3',
    parses: true,
  },
  {
    name: 'a backslash is an ordinary character in SQLite strings',
    dialect: 'sqlite',
    marked: String.raw`SELECT * FROM t WHERE a = ⟦'C:\dir\'⟧ AND b = ⟦?⟧`,
    parameters: [1],
    values: ['C:\\dir\\', 1],
    key: 'SELECT * FROM t WHERE a = ? AND b = ?',
    parserSql: 'SELECT * FROM `t` WHERE `a` = :p0 AND `b` = :p1',
  },
  {
    name: 'double quotes are strings in MySQL',
    dialect: 'mysql',
    marked: String.raw`SELECT * FROM t WHERE a = ⟦"say ""hi"" \"?\""⟧`,
    values: ['say "hi" "?"'],
    key: 'SELECT * FROM t WHERE a = ?',
    parserSql: 'SELECT * FROM `t` WHERE `a` = :p0',
    parses: true,
  },
  {
    name: 'double quotes are identifiers in SQLite',
    dialect: 'sqlite',
    marked: 'SELECT "we""ird`name?" FROM "t" WHERE "a" = ⟦?⟧',
    parameters: [1],
    values: [1],
    key: 'SELECT "we""ird`name?" FROM "t" WHERE "a" = ?',
    parserSql: 'SELECT `we"ird``name?` FROM `t` WHERE `a` = :p0',
    parses: true,
  },
  {
    name: 'a quoted identifier holding ? and a doubled backtick',
    dialect: 'mysql',
    marked: 'SELECT * FROM t WHERE `we?ird``name` IN ⟨(⟦?⟧)⟩',
    parameters: [1],
    values: [],
    lists: [[1]],
    key: 'SELECT * FROM t WHERE `we?ird``name` IN (?…)',
    parserSql: 'SELECT * FROM `t` WHERE `we?ird``name` IN (:l0)',
    parses: true,
  },
  {
    name: 'NOT IN lists; IN (SELECT …) and lists with expressions are not IN lists',
    dialect: 'mysql',
    marked:
      "SELECT `a` FROM `t` WHERE `a` NOT IN ⟨(⟦?⟧, ⟦5⟧, ⟦'x'⟧, ⟦NULL⟧)⟩ AND `b` IN (SELECT `c` FROM `u` WHERE `d` = ⟦?⟧) " +
      'AND `e` IN (⟦1⟧, `f` + ⟦1⟧) AND `g` in ⟨(⟦1⟧,⟦2⟧)⟩',
    parameters: [1, 2],
    values: [2, '1', '1'],
    lists: [[1, '5', 'x', null], ['1', '2']],
    negated: [true, false],
    key:
      'SELECT `a` FROM `t` WHERE `a` NOT IN (?…) AND `b` IN (SELECT `c` FROM `u` WHERE `d` = ?) ' +
      'AND `e` IN (?, `f` + ?) AND `g` in (?…)',
    parserSql:
      'SELECT `a` FROM `t` WHERE `a` NOT IN (:l0) AND `b` IN (SELECT `c` FROM `u` WHERE `d` = :p0) ' +
      'AND `e` IN (:p1, `f` + :p2) AND `g` in (:l1)',
    parses: true,
  },
  {
    name: 'signs: -5 after an operator, ( , or keyword is a literal; a-5 is a minus',
    dialect: 'sqlite',
    marked:
      'SELECT "a" - ⟦5⟧ AS "x", "a"-⟦5⟧ FROM "t" WHERE "a" = ⟦-5⟧ AND "b" IN ⟨(⟦-1⟧, ⟦2.5⟧, ⟦-.5⟧, ⟦1e-3⟧)⟩ ' +
      'AND "c" > ⟦- 7⟧ LIMIT ⟦-1⟧ OFFSET ⟦5⟧',
    values: ['5', '5', '-5', '-7', '-1', '5'],
    lists: [['-1', '2.5', '-.5', '1e-3']],
    key: 'SELECT "a" - ? AS "x", "a" - ? FROM "t" WHERE "a" = ? AND "b" IN (?…) AND "c" > ? LIMIT ? OFFSET ?',
    parserSql:
      'SELECT `a` - :p0 AS `x`, `a` - :p1 FROM `t` WHERE `a` = :p2 AND `b` IN (:l0) AND `c` > :p3 LIMIT :p4 OFFSET :p5',
    parses: true,
  },
  {
    name: 'LIMIT offset, count and digits beyond 2^53 kept as text',
    dialect: 'mysql',
    marked: 'SELECT `a` FROM `t` WHERE `id` = ⟦18446744073709551615⟧ LIMIT ⟦20⟧, ⟦18446744073709551615⟧',
    values: ['18446744073709551615', '20', '18446744073709551615'],
    key: 'SELECT `a` FROM `t` WHERE `id` = ? LIMIT ?, ?',
    parserSql: 'SELECT `a` FROM `t` WHERE `id` = :p0 LIMIT :p1, :p2',
    parses: true,
  },
  {
    name: 'NULL is a value except in IS [NOT] NULL; DEFAULT is no value',
    dialect: 'mysql',
    marked: 'UPDATE `t` SET `a` = ⟦NULL⟧, `b` = DEFAULT WHERE `c` IS NULL AND `d` IS NOT NULL AND `e` = ⟦?⟧',
    parameters: [3],
    values: [null, 3],
    key: 'UPDATE `t` SET `a` = ?, `b` = DEFAULT WHERE `c` IS NULL AND `d` IS NOT NULL AND `e` = ?',
    parserSql: 'UPDATE `t` SET `a` = :p0, `b` = DEFAULT() WHERE `c` IS NULL AND `d` IS NOT NULL AND `e` = :p1',
    verb: 'UPDATE',
    parses: true,
  },
  {
    name: 'literals that are not values: type sizes, ESCAPE, column positions',
    dialect: 'mysql',
    marked:
      "SELECT CAST(`a` AS DECIMAL(10, 2)) AS `x`, `b` FROM `t` WHERE `c` LIKE ⟦?⟧ ESCAPE '!' " +
      'GROUP BY 2 ORDER BY 1 DESC, `b` + ⟦1⟧, 2 LIMIT ⟦5⟧',
    parameters: ['a!%'],
    values: ['a!%', '1', '5'],
    key:
      "SELECT CAST (`a` AS DECIMAL (10, 2)) AS `x`, `b` FROM `t` WHERE `c` LIKE ? ESCAPE '!' " +
      'GROUP BY 2 ORDER BY 1 DESC, `b` + ?, 2 LIMIT ?',
    parserSql:
      "SELECT CAST (`a` AS DECIMAL (10, 2)) AS `x`, `b` FROM `t` WHERE `c` LIKE :p0 ESCAPE '!' " +
      'GROUP BY 2 ORDER BY 1 DESC, `b` + :p1, 2 LIMIT :p2',
    parses: true,
  },
  {
    name: 'a column position after an ORDER BY nested in GROUP_CONCAT stays a position (the inner list ends at its parenthesis)',
    dialect: 'sqlite',
    marked: 'SELECT GROUP_CONCAT(b ORDER BY b) AS g, a FROM t GROUP BY a ORDER BY GROUP_CONCAT(b ORDER BY b), IFNULL(SUM(b), ⟦0⟧), 2 LIMIT ⟦3⟧',
    values: ['0', '3'],
    key: 'SELECT GROUP_CONCAT (b ORDER BY b) AS g, a FROM t GROUP BY a ORDER BY GROUP_CONCAT (b ORDER BY b), IFNULL (SUM (b), ?), 2 LIMIT ?',
    parserSql: 'SELECT GROUP_CONCAT (`b` ORDER BY `b`) AS `g`, `a` FROM `t` GROUP BY `a` ORDER BY GROUP_CONCAT (`b` ORDER BY `b`), IFNULL (SUM (`b`), :p0), 2 LIMIT :p1',
    parses: true,
  },
  {
    name: 'MySQL comments: -- needs a blank after it, # runs to the end of the line',
    dialect: 'mysql',
    marked: "SELECT `a` -- ? it's\nFROM `t` # ? 'x\nWHERE `b` = ⟦?⟧ /* ? ' \" ` IN ( */ AND `c`-⟦-1⟧\n",
    parameters: [1],
    values: [1, '-1'],
    key: 'SELECT `a` FROM `t` WHERE `b` = ? AND `c` - ?',
    parserSql: 'SELECT `a` FROM `t` WHERE `b` = :p0 AND `c` - :p1',
    parses: true,
  },
  {
    name: 'SQLite comments: -- needs nothing after it',
    dialect: 'sqlite',
    marked: 'SELECT "a" FROM "t" WHERE "b" = ⟦?⟧--? \'\n AND "c" = ⟦1⟧',
    parameters: [1],
    values: [1, '1'],
    key: 'SELECT "a" FROM "t" WHERE "b" = ? AND "c" = ?',
    parserSql: 'SELECT `a` FROM `t` WHERE `b` = :p0 AND `c` = :p1',
    parses: true,
  },
  {
    name: 'hex and bit literals and variables stay code; N strings are values',
    dialect: 'mysql',
    marked: "SELECT `a` FROM `t` WHERE `b` = X'0A' AND `c` = 0x1F AND `d` = ⟦N'ü''s'⟧ AND `e` = @var AND `f` = b'101'",
    values: ["ü's"],
    key: "SELECT `a` FROM `t` WHERE `b` = X'0A' AND `c` = 0x1F AND `d` = ? AND `e` = @var AND `f` = b'101'",
    parserSql: "SELECT `a` FROM `t` WHERE `b` = X'0A' AND `c` = 0x1F AND `d` = :p0 AND `e` = @var AND `f` = b'101'",
  },
  {
    name: 'DDL literals are definitions, not values',
    dialect: 'sqlite',
    marked:
      'CREATE TABLE "orders" ("id" integer PRIMARY KEY NOT NULL, "name" varchar(255) NOT NULL DEFAULT (\'x\'), ' +
      '"n" integer DEFAULT -1 CHECK ("n" IN (0, 1)))',
    values: [],
    key:
      'CREATE TABLE "orders" ("id" integer PRIMARY KEY NOT NULL, "name" varchar (255) NOT NULL DEFAULT (\'x\'), ' +
      '"n" integer DEFAULT -1 CHECK ("n" IN (0, 1)))',
    parserSql:
      "CREATE TABLE `orders` (`id` integer PRIMARY KEY NOT NULL, `name` varchar (255) NOT NULL DEFAULT ('x'), " +
      '`n` integer DEFAULT -1 CHECK (`n` IN (0, 1)))',
    verb: 'CREATE',
  },
  {
    name: 'find with relations + skip/take: the distinctAlias page query',
    dialect: 'mysql',
    marked:
      'SELECT DISTINCT `distinctAlias`.`Order_id` AS `ids_Order_id` FROM (SELECT `Order`.`id` AS `Order_id` ' +
      'FROM `orders` `Order` LEFT JOIN `items` `Item` ON `Item`.`orderId`=`Order`.`id` ' +
      'WHERE `Order`.`id` IN ⟨(⟦?⟧, ⟦?⟧)⟩) `distinctAlias` ORDER BY `Order_id` ASC LIMIT ⟦10⟧ OFFSET ⟦20⟧',
    parameters: ['1', '2'],
    values: ['10', '20'],
    lists: [['1', '2']],
    key:
      'SELECT DISTINCT `distinctAlias`.`Order_id` AS `ids_Order_id` FROM (SELECT `Order`.`id` AS `Order_id` ' +
      'FROM `orders` `Order` LEFT JOIN `items` `Item` ON `Item`.`orderId` = `Order`.`id` ' +
      'WHERE `Order`.`id` IN (?…)) `distinctAlias` ORDER BY `Order_id` ASC LIMIT ? OFFSET ?',
    parserSql:
      'SELECT DISTINCT `distinctAlias`.`Order_id` AS `ids_Order_id` FROM (SELECT `Order`.`id` AS `Order_id` ' +
      'FROM `orders` `Order` LEFT JOIN `items` `Item` ON `Item`.`orderId` = `Order`.`id` ' +
      'WHERE `Order`.`id` IN (:l0)) `distinctAlias` ORDER BY `Order_id` ASC LIMIT :p0 OFFSET :p1',
    parses: true,
  },
  {
    name: 'TypeORM count query',
    dialect: 'sqlite',
    marked: 'SELECT COUNT(DISTINCT("Order"."id")) AS "cnt" FROM "orders" "Order" WHERE "Order"."buyerId" = ⟦3⟧',
    values: ['3'],
    key: 'SELECT COUNT (DISTINCT ("Order"."id")) AS "cnt" FROM "orders" "Order" WHERE "Order"."buyerId" = ?',
    parserSql: 'SELECT COUNT (DISTINCT (`Order`.`id`)) AS `cnt` FROM `orders` `Order` WHERE `Order`.`buyerId` = :p0',
    parses: true,
  },
  {
    name: "findAndCount's COUNT(1) keeps its 1",
    dialect: 'mysql',
    marked: 'SELECT COUNT(1) AS `cnt` FROM `orders` `Order` WHERE ((`Order`.`buyerId` = ⟦?⟧)) AND `x` = COUNT(⟦2⟧ + ⟦1⟧)',
    parameters: [2],
    values: [2, '2', '1'],
    key: 'SELECT COUNT (1) AS `cnt` FROM `orders` `Order` WHERE ((`Order`.`buyerId` = ?)) AND `x` = COUNT (? + ?)',
    parserSql: 'SELECT COUNT (1) AS `cnt` FROM `orders` `Order` WHERE ((`Order`.`buyerId` = :p0)) AND `x` = COUNT (:p1 + :p2)',
  },
  {
    name: "SQLite's == is written = for the parser",
    dialect: 'sqlite',
    marked: 'SELECT "a" FROM "t" WHERE "a" == ⟦1⟧',
    values: ['1'],
    key: 'SELECT "a" FROM "t" WHERE "a" == ?',
    parserSql: 'SELECT `a` FROM `t` WHERE `a` = :p0',
    parses: true,
  },
  {
    name: 'whitespace is normalised',
    dialect: 'mysql',
    marked: 'SELECT\n\t`a`,`b`  FROM`t`WHERE(`c`=⟦?⟧)AND`d`<=>⟦2⟧ ',
    parameters: [1],
    values: [1, '2'],
    key: 'SELECT `a`, `b` FROM `t` WHERE (`c` = ?) AND `d` <=> ?',
    parserSql: 'SELECT `a`, `b` FROM `t` WHERE (`c` = :p0) AND `d` <=> :p1',
  },
  {
    name: 'an unterminated string is left as code for the database to reject',
    dialect: 'mysql',
    marked: "SELECT `a` FROM `t` WHERE `b` = 'abc ? ",
    values: [],
    key: "SELECT `a` FROM `t` WHERE `b` = 'abc ? ",
    parserSql: "SELECT `a` FROM `t` WHERE `b` = 'abc ? ",
  },
  {
    name: 'verb behind an opening parenthesis',
    dialect: 'mysql',
    marked: '(SELECT ⟦1⟧) UNION (SELECT ⟦2⟧)',
    values: ['1', '2'],
    key: '(SELECT ?) UNION (SELECT ?)',
    parserSql: '(SELECT :p0) UNION (SELECT :p1)',
    verb: 'SELECT',
  },
  {
    name: 'transaction statements',
    dialect: 'mysql',
    marked: '  /* c */ start transaction',
    values: [],
    key: 'start transaction',
    parserSql: 'start transaction',
    verb: 'START',
  },
  {
    name: 'savepoint names are identifiers',
    dialect: 'sqlite',
    marked: 'SAVEPOINT typeorm_1',
    values: [],
    key: 'SAVEPOINT typeorm_1',
    parserSql: 'SAVEPOINT `typeorm_1`',
    verb: 'SAVEPOINT',
  },
  {
    name: 'nothing but a comment',
    dialect: 'mysql',
    marked: '-- nothing ?',
    values: [],
    key: '',
    parserSql: '',
    verb: '',
  },
];

describe('parameterize', () => {
  it.each(cases)('$name', (c) => {
    const { sql, slots, lists } = unmark(c.marked);
    const p = parameterize(sql, c.parameters ?? [], c.dialect);

    expect(p.sql).toBe(sql);
    expect(p.parameters).toBe(c.parameters ?? p.parameters);
    expect(p.key).toBe(c.key);
    expect(p.parserSql).toBe(c.parserSql);
    if (c.verb !== undefined) expect(p.verb).toBe(c.verb);

    let paramIndex = 0;
    const nextIndex = (start: number) => (sql[start] === '?' ? paramIndex++ : undefined);
    // slots and lists interleave in text order, so number the `?`s over both
    const expectedByStart = new Map<number, number | undefined>();
    const allRanges = [...slots, ...lists.flatMap((l) => l.items)].sort((a, b) => a.start - b.start);
    for (const r of allRanges) expectedByStart.set(r.start, nextIndex(r.start));

    expect(p.slots.map((s) => ({ start: s.start, end: s.end }))).toEqual(slots);
    expect(p.slots.map((s) => s.value)).toEqual(c.values);
    for (const s of p.slots) {
      expect(s.paramIndex).toBe(expectedByStart.get(s.start));
      expect(s.isNumericLiteral).toBe(/^-?\s*\.?\d/.test(sql.slice(s.start, s.end)));
    }

    expect(p.inLists.map((l) => ({ open: l.open, close: l.close }))).toEqual(lists.map((l) => ({ open: l.open, close: l.close })));
    expect(p.inLists.map((l) => l.items.map((s) => ({ start: s.start, end: s.end })))).toEqual(lists.map((l) => l.items));
    expect(p.inLists.map((l) => l.items.map((s) => s.value))).toEqual(c.lists ?? []);
    for (const l of p.inLists) for (const s of l.items) expect(s.paramIndex).toBe(expectedByStart.get(s.start));
    if (c.negated) expect(p.inLists.map((l) => l.negated)).toEqual(c.negated);

    if (c.parses) expect(() => parser.astify(p.parserSql, { database: 'mysql' })).not.toThrow();
  });
});

describe('plan-cache keys', () => {
  const key = (sql: string, dialect: SqlDialect = 'sqlite', parameters: unknown[] = []) =>
    parameterize(sql, parameters, dialect).key;

  it('are shared by statements that differ only in values, IN-list lengths, whitespace and comments', () => {
    const a = key('SELECT "a" FROM "t" WHERE "id" IN (1, 2) AND "b" = \'x\' LIMIT 10 OFFSET 0');
    expect(key('/* c */ SELECT "a"\nFROM "t" WHERE "id" IN (-3,4,5,6,7) AND "b"=NULL LIMIT 20 OFFSET 4000 -- x')).toBe(a);
    expect(key('SELECT "a" FROM "t" WHERE "id" IN (?) AND "b" = ? LIMIT ? OFFSET ?', 'sqlite', [1, 2, 3, 4])).toBe(a);
  });

  it.each([
    ['IN list vs equality', 'SELECT "a" FROM "t" WHERE "id" IN (1, 2)', 'SELECT "a" FROM "t" WHERE "id" = 1'],
    ['IN vs NOT IN', 'SELECT "a" FROM "t" WHERE "id" IN (1)', 'SELECT "a" FROM "t" WHERE "id" NOT IN (1)'],
    ['another column', 'SELECT "a" FROM "t" WHERE "id" = 1', 'SELECT "a" FROM "t" WHERE "ix" = 1'],
    ['IS NULL vs = NULL', 'SELECT "a" FROM "t" WHERE "id" IS NULL', 'SELECT "a" FROM "t" WHERE "id" = NULL'],
    ['ORDER BY position', 'SELECT "a", "b" FROM "t" ORDER BY 1', 'SELECT "a", "b" FROM "t" ORDER BY 2'],
    ['list vs expression list', 'SELECT "a" FROM "t" WHERE "id" IN (1, 2)', 'SELECT "a" FROM "t" WHERE "id" IN (1, "b")'],
    ['operator', 'SELECT "a" FROM "t" WHERE "id" <= 1', 'SELECT "a" FROM "t" WHERE "id" < = 1'],
    ['a string is not an identifier', 'SELECT "a" FROM "t" WHERE "id" = \'b\'', 'SELECT "a" FROM "t" WHERE "id" = "b"'],
  ])('differ for a different shape: %s', (_name, a, b) => {
    expect(key(a)).not.toBe(key(b));
  });
});

describe('parameter count', () => {
  it('matches placeholders outside strings, comments and quoted identifiers', () => {
    const sql = "SELECT '?' AS `?`, ? FROM t /* ? */ WHERE a = ? -- ?\n";
    expect(parameterize(sql, [1, 2], 'mysql').slots.map((s) => s.paramIndex)).toEqual([undefined, 0, 1]);
  });

  it.each([
    [[1], 2],
    [[1, 2, 3], 2],
  ])('throws ParameterCountError for %j against %i placeholders', (parameters, placeholders) => {
    const sql = 'SELECT a FROM t WHERE a = ? AND b IN (?)';
    let error: unknown;
    try {
      parameterize(sql, parameters, 'mysql');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ParameterCountError);
    expect(error).toBeInstanceOf(ShardingError);
    const e = error as ParameterCountError;
    expect(e.code).toBe('SHARDING_PARAMETER_COUNT');
    expect(e.stage).toBe('parameterize');
    expect(e.sql).toBe(sql);
    expect(e.placeholders).toBe(placeholders);
    expect(e.received).toBe(parameters.length);
    expect(e.message).toContain(`${placeholders} '?'`);
  });
});

describe('parserSql', () => {
  it('is written on first read and stays the same', () => {
    const p = parameterize('SELECT "a" FROM "t" WHERE "b" IN (1, 2)', [], 'sqlite');
    parameterize('SELECT 1', [], 'mysql');
    expect(p.parserSql).toBe('SELECT `a` FROM `t` WHERE `b` IN (:l0)');
    expect(p.parserSql).toBe(p.parserSql);
  });

  it('quotes the table of INSERT INTO t (…) but not function names', () => {
    expect(parameterize('INSERT INTO orders (id) VALUES (NOW())', [], 'mysql').parserSql).toBe(
      'INSERT INTO `orders` (`id`) VALUES (NOW ())',
    );
  });
});
