import path from 'node:path';
import { defineConfig } from 'vitest/config';

// Vitest 5's reporter calls Map.groupBy (Node ≥ 21) when it prints a failure; on Node 20 that
// crash would hide the failure itself. Polyfill it in the runner's process.
if (typeof (Map as { groupBy?: unknown }).groupBy !== 'function') {
  Object.defineProperty(Map, 'groupBy', {
    configurable: true,
    writable: true,
    value<K, T>(items: Iterable<T>, key: (item: T, index: number) => K): Map<K, T[]> {
      const groups = new Map<K, T[]>();
      let i = 0;
      for (const item of items) {
        const k = key(item, i++);
        const group = groups.get(k);
        if (group) group.push(item);
        else groups.set(k, [item]);
      }
      return groups;
    },
  });
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**'],
    // Real models and real LanceDB tables: generous per-test time, never asserted on. Sized for a
    // 2-core machine with a second CPU-heavy process beside it (CI measured the slowest setup hook at
    // ~95 s and the slowest tests at ~120 s on a loaded machine): a guard against hangs, not a target.
    testTimeout: 300_000,
    hookTimeout: 600_000,
    // The tests start the built `casefile` (out/main/cli.js): build it once before any file runs.
    globalSetup: ['test/helpers/build-app.ts'],
    pool: 'forks',
    // 2-core CI machine: two files at a time keeps model-loading tests from starving each other.
    maxWorkers: 2,
    reporters: ['default'],
    // The app's models/ holds the default embedding model after `npm ci`; tests (and the CLI and
    // serve processes they start) read only its manifest.json, so a case is keyword-only unless a
    // test gives it a model.
    // The readers, embedding and render threads an engine opened in a test starts come from the
    // same build (util/worker-start.ts), not from the source through tsx.
    env: { CASEFILE_BUNDLED_MODELS: 'off', CASEFILE_WORKER_DIR: path.resolve('out', 'main') },
  },
});
