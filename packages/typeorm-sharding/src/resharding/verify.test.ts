import { describe, expect, it } from 'vitest';
import { comparePositions } from './binlog-position.js';
import { bucketCondition, bucketOfRow } from './bucket-filter.js';
import type { TableShape } from './governed-tables.js';
import { chunkSpans, rowTextSql } from './verify.js';
import { lagBytes } from './workflow.js';

const ITEMS: TableShape = { table: 'items', kind: 'sharded', keyColumn: 'id', keyKind: 'integer', columns: ['id', 'name'], primaryKey: ['id'], binaryColumns: [] };

describe('verify and catch-up building blocks', () => {
  it('checksums bytes, not collation-equal text, and spells NULL apart', () => {
    expect(rowTextSql(ITEMS)).toBe("CONCAT_WS('|', COALESCE(HEX(CAST(`id` AS BINARY)), 'N'), COALESCE(HEX(CAST(`name` AS BINARY)), 'N'))");
  });

  it('cuts spans into chunks of at most n buckets', () => {
    expect(chunkSpans([{ from: 0, to: 9 }, { from: 20, to: 20 }], 4)).toEqual([
      { from: 0, to: 3 },
      { from: 4, to: 7 },
      { from: 8, to: 9 },
      { from: 20, to: 20 },
    ]);
  });

  it('filters by the bucket expression the fence and the hash use', () => {
    expect(bucketCondition(ITEMS, 1024, [{ from: 0, to: 9 }, { from: 12, to: 12 }])).toBe('((CRC32(CAST(`id` AS CHAR)) % 1024) BETWEEN 0 AND 9 OR (CRC32(CAST(`id` AS CHAR)) % 1024) = 12)');
    // crc32('1') = 0x83dcefb7 → 2212294583 % 1024 = 951
    expect(bucketOfRow(ITEMS, 1024, { id: 1 })).toBe(951);
    expect(bucketOfRow(ITEMS, 1024, { id: '1' })).toBe(951);
  });

  it('orders binlog positions by file then offset; lag is unknown across files', () => {
    expect(comparePositions({ file: 'bin.000002', pos: 4 }, { file: 'bin.000001', pos: 900 })).toBeGreaterThan(0);
    expect(lagBytes({ file: 'bin.000001', pos: 100 }, { file: 'bin.000001', pos: 350 })).toBe(250);
    expect(lagBytes({ file: 'bin.000001', pos: 100 }, { file: 'bin.000002', pos: 4 })).toBeUndefined();
    expect(lagBytes({ file: 'bin.000002', pos: 100 }, { file: 'bin.000001', pos: 4 })).toBe(0);
  });
});
