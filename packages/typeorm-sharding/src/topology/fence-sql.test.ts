import { describe, expect, it } from 'vitest';
import { checkFenceRanges, createFenceTableSql, createFenceTriggerSql, fenceTriggerName, quoteIdentifier } from './fence-sql.js';
import { TopologyDocumentError } from './topology-errors.js';

describe('fence SQL', () => {
  it('an insert trigger checks the new row, a delete the old one, an update both', () => {
    const table = { table: 'orders', keyColumn: 'id', keyKind: 'integer' } as const;
    const insert = createFenceTriggerSql('shop_0', table, 'i', 1024);
    expect(insert).toMatch(/^CREATE TRIGGER `shop_0`\.`tsh_fence_orders_i` BEFORE INSERT ON `shop_0`\.`orders` FOR EACH ROW BEGIN /);
    expect(insert).toContain('SET tsh_b = (CRC32(CAST(NEW.`id` AS CHAR)) % 1024);');
    expect(insert).not.toContain('OLD.');
    expect(insert).toContain("IF COALESCE(@tsh_fence_bypass, 0) <> 1 THEN");
    expect(insert).toContain('FROM `shop_0`.tsh_fence f WHERE f.bucket_from <= tsh_b AND f.bucket_to >= tsh_b LOCK IN SHARE MODE;');
    expect(insert).toContain("SET tsh_msg = CONCAT('TSH_FENCED version=', tsh_v, ' bucket=', tsh_b); SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = tsh_msg;");
    const del = createFenceTriggerSql('shop_0', table, 'd', 1024);
    expect(del).toContain('BEFORE DELETE');
    expect(del).toContain('OLD.`id`');
    expect(del).not.toContain('NEW.');
    const update = createFenceTriggerSql('shop_0', { table: 'tags', keyColumn: 'name', keyKind: 'string' }, 'u', 256);
    expect(update).toContain('BEFORE UPDATE');
    expect(update).toContain('(CRC32(CONVERT(OLD.`name` USING utf8mb4)) % 256)');
    expect(update).toContain('(CRC32(CONVERT(NEW.`name` USING utf8mb4)) % 256)');
  });

  it('creates the fence table with its primary key on the first bucket', () => {
    expect(createFenceTableSql('db`x')).toBe(
      'CREATE TABLE IF NOT EXISTS `db``x`.tsh_fence (bucket_from INT NOT NULL, bucket_to INT NOT NULL, version BIGINT NOT NULL, PRIMARY KEY (bucket_from)) ENGINE=InnoDB',
    );
  });

  it('trigger names stay within 64 characters and distinct for long tables', () => {
    expect(fenceTriggerName('orders', 'u')).toBe('tsh_fence_orders_u');
    const a = fenceTriggerName('x'.repeat(60) + 'a', 'i');
    const b = fenceTriggerName('x'.repeat(60) + 'b', 'i');
    expect(a).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(a.endsWith('_i')).toBe(true);
  });

  it('refuses bad identifiers and bad ranges', () => {
    expect(() => quoteIdentifier('')).toThrow(TopologyDocumentError);
    expect(() => quoteIdentifier('a'.repeat(65))).toThrow(TopologyDocumentError);
    expect(() => checkFenceRanges([{ from: 5, to: 4 }])).toThrow(/0 <= from <= to/);
    expect(() => checkFenceRanges([{ from: 0, to: 1024 }], 1024)).toThrow(/out of range/);
    expect(() => checkFenceRanges([{ from: 0, to: 10 }, { from: 10, to: 20 }])).toThrow(/overlap/);
    expect(() => checkFenceRanges([{ from: 0.5, to: 10 }])).toThrow(TopologyDocumentError);
    expect(() => checkFenceRanges([{ from: 0, to: 9 }, { from: 10, to: 20 }], 1024)).not.toThrow();
  });
});
