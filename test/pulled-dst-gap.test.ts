/**
 * The values of a pulled subquery travel in the form the server gave them (issue 14): a
 * DATETIME in a DST gap of the process's time zone (`2024-03-10 02:30:00` does not exist in
 * St. John's, where clocks go from 02:00 to 03:00) cannot be held by mysql2's local-time
 * Date, which reads it as 03:30; written back into the statement it would match other rows,
 * or none. Microseconds, which a Date drops, too. Each answer must be one database's.
 */
// Set before anything makes a Date: mysql2 reads DATETIME values in the process's zone.
process.env.TZ = 'America/St_Johns';

import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Sharded, ShardKey } from '../packages/typeorm-sharding/src/index.js';
import { openFixture, type Fixture } from './support/backends.js';
import { mariadbAvailable } from './support/mariadb.js';

@Entity('dst_events')
@Sharded()
class DstEvent {
  @PrimaryColumn('int')
  @ShardKey()
  id!: number;

  @Column('datetime')
  at!: Date;

  @Column('datetime', { precision: 6 })
  precise!: Date;
}

const ROWS = [
  // Two rows in the gap, one where mysql2's Date for it (03:30) would point; microseconds a Date drops.
  "(1, '2024-03-10 02:30:00', '2024-03-10 04:00:00.000001')",
  "(2, '2024-03-10 02:30:00', '2024-03-10 04:00:00.000002')",
  "(3, '2024-03-10 03:30:00', '2024-03-10 04:00:00.000001')",
  "(4, '2024-03-10 04:00:00', '2024-03-10 04:00:00')",
  "(5, '2024-03-10 04:00:00', '2024-03-10 04:00:00.000002')",
  "(6, '2024-01-01 00:00:00', '2024-01-01 00:00:00')",
  "(7, '2024-01-01 00:00:00', '2024-01-01 00:00:00')",
  "(8, '2023-12-31 23:59:59', '2023-12-31 23:59:59.999999')",
];

const available = await mariadbAvailable();

describe.runIf(available || process.env.CI === 'true')('pulled subquery values in a DST gap (MariaDB, TZ=America/St_Johns)', () => {
  let fx: Fixture;

  beforeAll(async () => {
    fx = await openFixture('mariadb', [DstEvent], 4);
    const insert = `INSERT INTO dst_events (id, at, precise) VALUES ${ROWS.join(', ')}`;
    await fx.plain.query(insert);
    await fx.sharded.query(insert);
  });
  afterAll(async () => fx?.close());

  async function same(sql: string): Promise<unknown> {
    const expected = await fx.plain.query(sql);
    const got = await fx.sharded.query(sql);
    expect(got, sql).toEqual(expected);
    return got;
  }

  it('the time zone has the gap (a Date cannot hold 02:30 on that day)', () => {
    expect(new Date(2024, 2, 10, 2, 30).getHours()).toBe(3);
  });

  it('`at IN (SELECT at …)` finds both rows in the gap', async () => {
    const rows = await same('SELECT id FROM dst_events WHERE at IN (SELECT at FROM dst_events WHERE id IN (1, 2)) ORDER BY id');
    expect(rows).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('a scalar subquery: `at = (SELECT MIN(at) …)` over the gap', async () => {
    const rows = await same('SELECT id FROM dst_events WHERE at = (SELECT MIN(at) FROM dst_events WHERE id IN (1, 2, 3)) ORDER BY id');
    expect(rows).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('microseconds stay (a Date would refuse them)', async () => {
    const rows = await same('SELECT id FROM dst_events WHERE precise IN (SELECT precise FROM dst_events WHERE id = 5) ORDER BY id');
    expect(rows).toEqual([{ id: 2 }, { id: 5 }]);
  });

  it('inside a transaction (the subquery reads on the transaction connections)', async () => {
    const sql = 'SELECT id FROM dst_events WHERE at IN (SELECT at FROM dst_events WHERE id IN (1, 4)) ORDER BY id';
    const expected = await fx.plain.transaction((m) => m.query(sql));
    const got = await fx.sharded.transaction((m) => m.query(sql));
    expect(got).toEqual(expected);
    expect(got).toEqual([{ id: 1 }, { id: 2 }, { id: 4 }, { id: 5 }]);
  });
});
