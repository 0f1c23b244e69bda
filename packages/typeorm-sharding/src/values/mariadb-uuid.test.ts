import { describe, expect, it } from 'vitest';
import { compareMariadbUuids } from './mariadb-uuid.js';
import { MergeValueError } from './value-error.js';

// ORDER BY of a UUID column on MariaDB 10.11.19 (probed): v1–v5 with a non-zero variant are
// ordered by node, clock sequence, time-high, time-mid, time-low; v7 and variant-0 UUIDs by text.
const SERVER_ORDER = [
  'ffffffff-0000-1000-8000-000000000000',
  '21111111-2222-4333-8444-055555555555',
  '11111111-2222-4333-8444-555555555555',
  '6ccd780c-baba-1026-9564-5b8c656024db',
  '6ccd780c-baba-1026-9564-5b8c656024dc',
  '01111111-2222-4333-c444-955555555555',
  'aaaaaaaa-bbbb-1ccc-0ddd-eeeeeeeeeeee',
  'aaaaaaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee',
  'bbbbbbbb-bbbb-1ccc-0ddd-aeeeeeeeeeee',
  'bbbbbbbb-bbbb-7ccc-8ddd-aeeeeeeeeeee',
  '00000000-0000-1000-8000-ffffffffffff',
];

describe('compareMariadbUuids', () => {
  it('orders like MariaDB 10.11.5+ (swap-v1-5)', () => {
    const shuffled = [...SERVER_ORDER].reverse();
    expect(shuffled.sort((a, b) => compareMariadbUuids(a, b, 'swap-v1-5'))).toEqual(SERVER_ORDER);
  });

  it('swap-all reverses the groups of every UUID (MariaDB 10.7 – 10.11.4)', () => {
    const v7a = 'aaaaaaaa-bbbb-7ccc-8ddd-000000000002';
    const v7b = 'bbbbbbbb-bbbb-7ccc-8ddd-000000000001';
    expect(compareMariadbUuids(v7a, v7b, 'swap-v1-5')).toBeLessThan(0);
    expect(compareMariadbUuids(v7a, v7b, 'swap-all')).toBeGreaterThan(0);
  });

  it('ignores case and hyphens; equal UUIDs tie', () => {
    expect(compareMariadbUuids('6CCD780C-BABA-1026-9564-5B8C656024DB', '6ccd780cbaba102695645b8c656024db', 'swap-v1-5')).toBe(0);
  });

  it('refuses a value that is not a UUID', () => {
    expect(() => compareMariadbUuids('not-a-uuid', SERVER_ORDER[0], 'swap-v1-5')).toThrow(MergeValueError);
    expect(() => compareMariadbUuids(Buffer.alloc(16), SERVER_ORDER[0], 'swap-v1-5')).toThrow(MergeValueError);
  });
});
