import { describe, expect, it } from 'vitest';
import { ShardingConfigError } from '../errors/index.js';
import { resolveTopology } from './topology.js';

const base = { type: 'mariadb', host: 'db1', port: 3306, username: 'app', password: 'secret' };

describe('resolveTopology', () => {
  it('infers one server for shards that differ only by database, and keeps the order of first appearance', () => {
    const t = resolveTopology(base, [{ name: 's0', database: 'a' }, { name: 's1', database: 'b', host: 'db2' }, { name: 's2', database: 'c' }], undefined, 'mysql');
    expect(t.servers.map((s) => s.name)).toEqual(['db1:3306', 'db2:3306']);
    expect(t.shards.map((s) => [s.name, s.server, s.database])).toEqual([
      ['s0', 0, 'a'],
      ['s1', 1, 'b'],
      ['s2', 0, 'c'],
    ]);
    // The server's pool has no database: statements name their shard's tables with it.
    expect(t.servers[0]!.options).not.toHaveProperty('database');
    expect(t.shards[2]!.options).toMatchObject({ host: 'db1', database: 'c' });
  });

  it('tells servers apart by user too, and numbers the names of one address', () => {
    const t = resolveTopology(base, [{ name: 's0', database: 'a' }, { name: 's1', database: 'b', username: 'other' }], undefined, 'mysql');
    expect(t.servers.map((s) => s.name)).toEqual(['db1:3306', 'db1:3306#2']);
  });

  it('refuses two shards of one server whose pool options differ, or that share a database', () => {
    expect(() => resolveTopology(base, [{ name: 's0', database: 'a' }, { name: 's1', database: 'b', poolSize: 3 }], undefined, 'mysql')).toThrow(/sets `poolSize` differently/);
    expect(() => resolveTopology(base, [{ name: 's0', database: 'a' }, { name: 's1', database: 'a' }], undefined, 'mysql')).toThrow(/uses database "a"/);
  });

  it('takes explicit servers: shards name their server and database, connection options belong to the server', () => {
    const servers = [
      { name: 'east', host: 'e', port: 3307, poolSize: 4 },
      { name: 'west', host: 'w' },
    ];
    const t = resolveTopology({ type: 'mysql', username: 'app' }, [{ name: 's0', server: 'west', database: 'd0' }, { name: 's1', server: 'east', database: 'd1' }], servers, 'mysql');
    expect(t.servers.map((s) => [s.name, s.options.host, s.options.poolSize])).toEqual([
      ['east', 'e', 4],
      ['west', 'w', undefined],
    ]);
    expect(t.shards.map((s) => [s.name, s.server])).toEqual([
      ['s0', 1],
      ['s1', 0],
    ]);
    expect(t.shards[1]!.options).toMatchObject({ host: 'e', port: 3307, username: 'app', database: 'd1' });
  });

  it.each([
    ['an unknown server', [{ name: 's0', server: 'nowhere', database: 'd' }], [{ name: 'east' }], /names server "nowhere"/],
    ['a shard without server', [{ name: 's0', database: 'd' }], [{ name: 'east' }], /needs `server`/],
    ['a shard without database', [{ name: 's0', server: 'east' }], [{ name: 'east' }], /needs `database`/],
    ['connection options on a shard', [{ name: 's0', server: 'east', database: 'd', host: 'x' }], [{ name: 'east' }], /sets `host`/],
    ['a database on a server', [{ name: 's0', server: 'east', database: 'd' }], [{ name: 'east', database: 'x' }], /names a database/],
    ['a server named twice', [{ name: 's0', server: 'east', database: 'd' }], [{ name: 'east' }, { name: 'east' }], /used twice/],
  ])('refuses %s with a ShardingConfigError naming it', (_label, shards, servers, message) => {
    const run = () => resolveTopology(base, shards, servers, 'mysql');
    expect(run).toThrow(ShardingConfigError);
    expect(run).toThrow(message);
  });

  it('gives each SQLite shard a server of its own, and refuses `servers` there', () => {
    const t = resolveTopology({ type: 'better-sqlite3' }, [{ name: 'a', database: 'a.db' }, { name: 'b', database: 'b.db' }], undefined, 'sqlite');
    expect(t.servers.map((s) => s.name)).toEqual(['a', 'b']);
    expect(t.shards.map((s) => s.server)).toEqual([0, 1]);
    expect(() => resolveTopology({ type: 'better-sqlite3' }, [{ name: 'a' }], [{ name: 'x' }], 'sqlite')).toThrow(/for MySQL/);
  });

  it('names a server given by URL without its credentials', () => {
    const t = resolveTopology({ type: 'mysql' }, [{ name: 's0', url: 'mysql://app:secret@db9:3310/x', database: 'a' }], undefined, 'mysql');
    expect(t.servers[0]!.name).toBe('db9:3310');
  });
});
