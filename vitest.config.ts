import { defineConfig } from 'vitest/config';

// Two projects: `unit` holds the pure pipeline stages (no database, milliseconds),
// `integration` talks to real SQLite files/memory and the MariaDB on 127.0.0.1:3306.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          isolate: false,
          include: ['packages/typeorm-sharding/src/**/*.test.ts'],
          setupFiles: ['test/support/fast-check-seed.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          setupFiles: ['test/support/fast-check-seed.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Integration files share one MariaDB server; each file uses its own databases.
          fileParallelism: false,
          // The deep-page memory test measures retained heap after forced collections.
          execArgv: ['--expose-gc'],
        },
      },
    ],
  },
});
