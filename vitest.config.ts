import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**'],
    // Real models and real LanceDB tables: generous per-test time, never asserted on.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // 2-core CI machine: two files at a time keeps model-loading tests from starving each other.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
