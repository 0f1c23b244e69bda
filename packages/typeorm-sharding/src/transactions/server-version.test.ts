import { describe, expect, it } from 'vitest';
import { xaUnsafeReason } from './server-version.js';

describe('xaUnsafeReason', () => {
  it.each([
    ['10.11.19-MariaDB-0+deb12u1', undefined],
    ['10.5.2-MariaDB', undefined],
    ['11.4.2-MariaDB-log', undefined],
    ['5.5.5-10.6.12-MariaDB', undefined],
    ['8.0.36', undefined],
    ['5.7.7-log', undefined],
  ])('%s keeps prepared branches across disconnects', (version, expected) => {
    expect(xaUnsafeReason(version)).toBe(expected);
  });

  it.each([['10.4.31-MariaDB'], ['10.5.1-MariaDB'], ['5.5.5-10.3.39-MariaDB'], ['5.7.6'], ['5.6.51']])('%s does not', (version) => {
    expect(xaUnsafeReason(version)).toMatch(/rolls a prepared XA branch back when its connection closes/);
  });

  it('says when the version cannot be read', () => {
    expect(xaUnsafeReason('unknown')).toMatch(/could not be read/);
  });
});
