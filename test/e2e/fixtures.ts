/**
 * Fixtures shared by every spec: a fresh data home, the app opened on it (serve mode in
 * Chromium, or the Electron app), and `op()` to call the engine directly for assertions.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { test as base, _electron, expect, type Browser, type Page } from '@playwright/test';

export const repoRoot = path.resolve(import.meta.dirname, '..', '..');
export const corpusDir = path.resolve(repoRoot, '..', 'shared', 'corpus');
export const screensDir = path.join(repoRoot, 'test-results', 'screens');
/** The `casefile` command as the app's build has it (`npm test` builds before Playwright). */
export const cliEntry = path.join(repoRoot, 'out', 'main', 'cli.js');
const electronDist = path.join(repoRoot, 'node_modules', 'electron', 'dist');

export interface ShellOptions {
  shell: 'serve' | 'electron';
}

export interface ServeProcess {
  home: string;
  url: string;
  loginUrl: string;
  token: string;
  child: ChildProcess;
}

/**
 * Folders the test server may read besides uploads (serve mode reads nothing else): the temp
 * folders specs build their case folders in, and ../shared (the tiny GGUF models they import).
 */
export const serveAllowPaths = [os.tmpdir(), path.resolve(repoRoot, '..', 'shared')].filter((dir) => existsSync(dir));

/**
 * Start `casefile serve` on `home`, started for tests (`--allow-scripted-models`, and the folders
 * above allowed with `--allow-path`), and wait for its JSON line.
 */
export async function startServe(
  home: string,
  env: NodeJS.ProcessEnv = {},
  extraArgs: string[] = [],
): Promise<ServeProcess> {
  const allow = serveAllowPaths.flatMap((dir) => ['--allow-path', dir]);
  const args = [
    cliEntry,
    '--home',
    home,
    'serve',
    '--port',
    '0',
    '--json',
    '--allow-scripted-models',
    ...allow,
    ...extraArgs,
  ];
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`casefile serve exited with ${code}: ${stderr}`)));
  });
  const info = JSON.parse(first) as { url: string; login_url: string; token: string };
  return { home, child, url: info.url, loginUrl: info.login_url, token: info.token };
}

/** Call an engine operation of a running `casefile serve` over its HTTP API. */
export async function serveOp<T = unknown>(server: ServeProcess, name: string, input: unknown): Promise<T> {
  const res = await fetch(`${server.url}api/op/${name}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as T & { error?: { message: string } };
  if (!res.ok) throw new Error(body.error?.message ?? `HTTP ${res.status}`);
  return body;
}

export async function stopServe(server: ServeProcess): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

export interface AppFixture {
  page: Page;
  home: string;
  /** Call an engine operation directly (bypassing the UI), e.g. to check geometry. */
  op<T = unknown>(name: string, input: unknown): Promise<T>;
}

export function electronAvailable(): boolean {
  return existsSync(electronDist) && existsSync(path.join(repoRoot, 'out', 'main', 'index.js'));
}

export const test = base.extend<
  ShellOptions & { app: AppFixture; home: string; engineEnv: Record<string, string> },
  { chromiumOnce: () => Promise<Browser> }
>({
  shell: ['serve', { option: true }],
  /**
   * Chromium for serve mode, launched on first use and kept for the worker's tests (a launch is
   * 0.5–2 s on a loaded 2-core machine); each test still gets a browser context of its own (its own
   * storage, cookies and pages), closed when it ends. Never launched for the Electron project.
   */
  chromiumOnce: [
    async ({ playwright, launchOptions }, use) => {
      let browser: Promise<Browser> | undefined;
      await use(() => (browser ??= playwright.chromium.launch({ ...launchOptions, headless: true })));
      if (browser) await (await browser).close();
    },
    { scope: 'worker' },
  ],
  /** Extra environment for the engine process (e.g. CASEFILE_SCRIPTED_MODEL); set with test.use(). */
  engineEnv: [{}, { option: true }],
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this destructuring.
  home: async ({}, use) => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-'));
    await use(home);
    rmSync(home, { recursive: true, force: true });
  },
  app: async ({ shell, home, engineEnv, chromiumOnce }, use, testInfo) => {
    if (shell === 'electron') {
      testInfo.skip(
        !electronAvailable(),
        'Electron project skipped: no Electron binary here (node_modules/electron/dist is missing — installed with ELECTRON_SKIP_BINARY_DOWNLOAD=1). The serve project covers the same specs.',
      );
      const electronApp = await _electron.launch({
        args: [repoRoot],
        cwd: repoRoot,
        env: { ...process.env, ...engineEnv, CASEFILE_HOME: home } as Record<string, string>,
      });
      const page = await electronApp.firstWindow();
      const op = async <T>(name: string, input: unknown): Promise<T> =>
        page.evaluate(
          async ([n, i]) => {
            const bridge = (
              globalThis as unknown as {
                casefile: Record<
                  string,
                  (x: unknown) => Promise<{ ok: boolean; value?: unknown; error?: { message: string } }>
                >;
              }
            ).casefile;
            const r = await bridge[n as string]!(i);
            if (!r.ok) throw new Error(r.error!.message);
            return r.value;
          },
          [name, input] as const,
        ) as Promise<T>;
      await use({ page, home, op });
      await electronApp.close();
      return;
    }
    const server = await startServe(home, engineEnv);
    const browser = await chromiumOnce();
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (msg) => {
      // Expected 4xx answers (a refused name) log "Failed to load resource"; they are not page errors.
      if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) errors.push(msg.text());
    });
    await page.goto(server.loginUrl);
    const op = <T>(name: string, input: unknown): Promise<T> => serveOp<T>(server, name, input);
    await use({ page, home, op });
    await context.close();
    await stopServe(server);
    // A page that logged errors (CSP violations, uncaught exceptions) fails the test.
    expect(errors, 'browser console errors').toEqual([]);
  },
});

/** Save a screenshot of a main screen under test-results/screens/ for people to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(screensDir, { recursive: true });
  await page.screenshot({ path: path.join(screensDir, `${name}.png`) });
}

export { expect };
