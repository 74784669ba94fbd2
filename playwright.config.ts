import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';
import type { ShellOptions } from './test/e2e/fixtures';

if (!existsSync('node_modules/electron/dist') && process.env.TEST_WORKER_INDEX === undefined) {
  console.log(
    'Playwright: the "electron" project is skipped — no Electron binary (node_modules/electron/dist) on this machine; the "serve" project runs the same specs in Chromium.',
  );
}

// The served and Electron engines read only models/manifest.json, not the default model the install
// put into models/ (see vitest.config.ts): a spec gives a case a model when it wants one.
process.env.CASEFILE_BUNDLED_MODELS = 'off';

/**
 * End-to-end tests of the real renderer over the real engine. `serve`: Debian's Chromium against
 * `casefile serve` on a temp data home. `electron`: the same specs in the Electron app, run only
 * where an Electron binary is installed (skipped with a message otherwise).
 */
export default defineConfig<ShellOptions>({
  testDir: 'test/e2e',
  outputDir: 'test-results/playwright',
  timeout: 120_000,
  expect: { timeout: 15_000 },
  // Two cores shared with the engine's workers: one browser at a time.
  workers: 1,
  fullyParallel: false,
  forbidOnly: true,
  retries: 0,
  reporter: [['list']],
  use: {
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    viewport: { width: 1400, height: 900 },
  },
  projects: [
    {
      name: 'serve',
      use: {
        shell: 'serve',
        browserName: 'chromium',
        headless: true,
        launchOptions: {
          executablePath: process.env.CASEFILE_CHROMIUM ?? '/usr/bin/chromium',
          args: [
            '--headless',
            '--no-sandbox',
            '--disable-gpu',
            '--disable-background-networking',
            '--disable-component-update',
          ],
        },
      },
    },
    {
      name: 'electron',
      use: { shell: 'electron' },
    },
  ],
});
