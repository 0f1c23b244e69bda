import mysql from 'mysql2/promise';
import { readFileSync } from 'node:fs';
const c = await mysql.createConnection({ host: '127.0.0.1', user: 'root', multipleStatements: false });
const DB = 'bench_feed_layouts';
const cols = '`id`, `amount`, `note`, `createdAt`';
if (process.argv[2] !== 'reuse') {
  await c.query(`DROP DATABASE IF EXISTS ${DB}`);
  await c.query(`CREATE DATABASE ${DB}`);
  const parts = Array.from({ length: 16 }, (_, i) => `PARTITION p${i} VALUES IN (${i})`).join(', ');
  await c.query(`CREATE TABLE ${DB}.pages_part (id bigint NOT NULL, amount int NOT NULL, note varchar(40) NOT NULL, createdAt datetime NOT NULL, bucket smallint NOT NULL, PRIMARY KEY (id, bucket), KEY idx (createdAt, id)) PARTITION BY LIST (bucket) (${parts})`);
  for (let i = 0; i < 16; i++) {
    await c.query(`CREATE TABLE ${DB}.pages_${i} LIKE bench_s${i}.pages`);
    await c.query(`INSERT INTO ${DB}.pages_${i} SELECT * FROM bench_s${i}.pages`);
    await c.query(`INSERT INTO ${DB}.pages_part SELECT ${cols}, ${i} FROM bench_s${i}.pages`);
  }
  await c.query(`ANALYZE TABLE ${DB}.pages_part`);
}
const page = (table) => `SELECT ${cols} FROM ${table} ORDER BY createdAt DESC, id DESC LIMIT 20`;
const union = (tableOf, lim) => Array.from({ length: 16 }, (_, i) => `(SELECT ${cols}, ${i} AS br FROM ${tableOf(i)} ORDER BY createdAt DESC, id DESC LIMIT ${lim})`).join(' UNION ALL ') + ' ORDER BY createdAt DESC, id DESC LIMIT 20';
const variants = {
  unsharded: page('bench_plain.pages'),
  databases: union((i) => `bench_s${i}.pages`, 7),
  tables: union((i) => `${DB}.pages_${i}`, 7),
  partitions: page(`${DB}.pages_part`),
};
const cpu = () => { const s = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(s[11]) + Number(s[12])) * 10000; };
const pid = Number(readFileSync('/run/mysqld/mysqld.pid', 'utf8').trim());
const [[plainFirst]] = await c.query(variants.unsharded);
for (const [k, sql] of Object.entries(variants)) { const [[r]] = await c.query(sql); if (String(r.id) !== String(plainFirst.id)) console.log('MISMATCH', k, r.id, plainFirst.id); }
const [ex] = await c.query(`EXPLAIN ${variants.partitions}`); console.log(JSON.stringify(ex));
const res = {};
for (let rep = 0; rep < 4; rep++) for (const [k, sql] of Object.entries(variants)) {
  const n = 400; const s0 = cpu(); const n0 = process.cpuUsage(); const t0 = performance.now();
  for (let i = 0; i < n; i++) await c.query(sql);
  const dt = (performance.now() - t0) / n; const server = (cpu() - s0) / n; const node = (process.cpuUsage(n0).user + process.cpuUsage(n0).system) / n;
  (res[k] ??= []).push({ qps: 1000 / dt, server, node });
}
for (const [k, v] of Object.entries(res)) { const med = (f) => v.map(f).sort((a, b) => a - b)[v.length >> 1]; console.log(k.padEnd(10), 'qps', med((x) => x.qps).toFixed(0), 'server µs', med((x) => x.server).toFixed(0), 'node µs', med((x) => x.node).toFixed(0), '/unsharded', (med((x) => x.qps) / res.unsharded.map((x) => x.qps).sort((a, b) => a - b)[2]).toFixed(2)); }
await c.end();
