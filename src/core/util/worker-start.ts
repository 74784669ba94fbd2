import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { Worker } from 'node:worker_threads';

/**
 * A built worker entry (`<bundleName>.js`) in `dir` (config.ts's `workerDir`), used before the
 * source beside the calling module. Null when no folder is given or it holds no such entry.
 */
export function builtWorkerEntry(dir: string | undefined, bundleName: string): string | null {
  if (!dir) return null;
  const file = path.join(dir, `${bundleName}.js`);
  return existsSync(file) ? file : null;
}

/**
 * Where a worker entry lives: `<sourceName>.ts` next to the calling module when running from
 * TypeScript source (tests, CLI under tsx), `<sourceName>.js` when compiled, or `<bundleName>.js`
 * next to the electron-vite bundle (the module may itself sit in a shared chunk, out/main/chunks/).
 * `moduleUrl` is the caller's `import.meta.url`; `builtDir`, a folder of built entries tried first
 * (see builtWorkerEntry). Null when none exists.
 */
export function findWorkerEntry(
  moduleUrl: string,
  sourceName: string,
  bundleName: string,
  builtDir?: string,
): string | null {
  const built = builtWorkerEntry(builtDir, bundleName);
  if (built) return built;
  const here = fileURLToPath(moduleUrl);
  const dir = path.dirname(here);
  const candidates = [
    path.join(dir, `${sourceName}${path.extname(here) || '.js'}`),
    path.join(dir, `${bundleName}.js`),
    path.join(dir, `${bundleName}.mjs`),
    path.join(dir, '..', `${bundleName}.js`),
  ];
  return candidates.find((c) => existsSync(c)) ?? null;
}

/** file: URL of a file inside an installed package (found from this module; works when the package does not export package.json). */
export function packageFileUrl(pkg: string, ...rel: string[]): string {
  const lookup = createRequire(import.meta.url).resolve.paths(pkg) ?? [];
  const dir = lookup.map((d) => path.join(d, pkg)).find((d) => existsSync(path.join(d, 'package.json')));
  if (!dir) throw new Error(`Package ${pkg} is not installed.`);
  return pathToFileURL(path.join(dir, ...rel)).href;
}

/**
 * Worker code that runs a TypeScript entry (tests, CLI via tsx). Big libraries (`preload`, file
 * URLs) are imported natively first — tsx would otherwise transform their megabytes of code in
 * every worker, costing memory and seconds of start-up — then tsx is registered (its ESM API:
 * `execArgv: ['--import', 'tsx']` does not reach the entry module on Node 20) and the entry loaded.
 */
export function tsWorkerBootstrap(entry: string, preload: string[] = []): string {
  const tsx = packageFileUrl('tsx', 'dist', 'esm', 'api', 'index.mjs');
  const imports = preload.map((url) => `await import(${JSON.stringify(url)});`).join('\n    ');
  // The preloads may replace built-ins with slower JavaScript versions (pdf.js's core-js does,
  // on Node 20): the thread keeps its own, as loadPdfJs does (util/pdfjs.ts).
  return `(async () => {
    const push = Array.prototype.push, stringify = JSON.stringify;
    ${imports}
    Array.prototype.push = push;
    JSON.stringify = stringify;
    (await import(${JSON.stringify(tsx)})).register();
    await import(${JSON.stringify(pathToFileURL(entry).href)});
  })().catch((err) => { throw err; });`;
}

/**
 * Start a worker thread on `entry`: through tsx for a .ts entry, with the file URLs `preload`
 * returns imported natively first (only asked for then); directly for a built .js entry.
 */
export function startWorker(entry: string, preload: () => string[] = () => []): Worker {
  return /\.(c|m)?ts$/.test(entry)
    ? new Worker(tsWorkerBootstrap(entry, preload()), { eval: true })
    : new Worker(entry);
}

/**
 * Start a child process on `entry` with an IPC channel (structured-clone serialization): through
 * tsx for a .ts entry (the same bootstrap as a worker's, evaluated by a plain `node`), with `fork`
 * for a built .js entry (in Electron, fork runs the entry with Electron's own Node). A child, unlike
 * a worker thread, can be measured and killed on its own: what it decodes outside the JS heap
 * counts in its resident set, not the app's.
 */
export function startChild(
  entry: string,
  preload: () => string[] = () => [],
  opts: { execArgv?: string[]; env?: NodeJS.ProcessEnv } = {},
): ChildProcess {
  const execArgv = opts.execArgv ?? [];
  const env = opts.env ?? process.env;
  if (/\.(c|m)?ts$/.test(entry)) {
    return spawn(
      process.execPath,
      [...execArgv, '--input-type=module', '--eval', tsWorkerBootstrap(entry, preload())],
      {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        serialization: 'advanced',
        env,
      },
    );
  }
  // In Electron, the child is Electron's own Node (ELECTRON_RUN_AS_NODE), not a second app.
  const childEnv = process.versions.electron ? { ...env, ELECTRON_RUN_AS_NODE: '1' } : env;
  return fork(entry, [], {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
    env: childEnv,
  });
}
