import 'reflect-metadata';
import { describe, it } from 'vitest';
import { useOracleEnv } from './support/oracle-env.js';
describe('d', () => {
  const env = useOracleEnv('mariadb');
  it('debug', async () => {
    const sql = "SELECT amount AS c0, SUM(amount) AS c1, COUNT(*) AS c2 FROM orders WHERE id = 0 GROUP BY amount UNION ALL SELECT amount, SUM(amount), COUNT(*) FROM coded_orders WHERE id IN ('R') GROUP BY amount";
    for (const s of env.sources) {
      s.fx.physical.length = 0;
      console.log(s.name, await s.fx.sharded.query(sql).catch((e) => e.stack));
      console.log(s.fx.physical.map((e) => `${e.shard} ${e.sql}`));
    }
  });
});
