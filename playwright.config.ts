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

/** Browser options of the serve projects: Debian's Chromium, headless. */
const serveUse = {
  shell: 'serve' as const,
  browserName: 'chromium' as const,
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
};

/** Specs that measure the renderer's timing: run after the rest, with nothing beside them. */
const ALONE = /longtask\.spec\.ts$/;

/**
 * End-to-end tests of the real renderer over the real engine. `serve`: Debian's Chromium against
 * `casefile serve` on a temp data home (`serve-alone` after it: the timing specs). `electron`: the
 * same specs in the Electron app, run only where an Electron binary is installed (skipped with a
 * message otherwise).
 */
export default defineConfig<ShellOptions>({
  testDir: 'test/e2e',
  outputDir: 'test-results/playwright',
  timeout: 120_000,
  expect: { timeout: 15_000 },
  // Two tests at a time: a test waits on its page and its engine for much of its run, so a second
  // one fills the other core. Tests, not spec files, are handed out (every test has its own data
  // home and server): a long spec no longer runs alone at the end while the other worker idles.
  // A third worker measured no faster.
  workers: 2,
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  reporter: [['list']],
  use: {
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    viewport: { width: 1400, height: 900 },
  },
  projects: [
    { name: 'serve', testIgnore: ALONE, use: serveUse },
    { name: 'serve-alone', testMatch: ALONE, dependencies: ['serve'], workers: 1, use: serveUse },
    { name: 'electron', use: { shell: 'electron' } },
  ],
});
