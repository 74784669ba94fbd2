import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import { cspMetaPlugin } from './src/main/security';

// Main-process entries: the app, plus the files the engine starts as workers (render, embedding:
// worker_threads), as reader processes (ingest: child processes it can measure and stop) and as the
// model process (the local chat model, below the app's priority). `cli`: the `casefile` command,
// built beside them (the tests start it; it finds its workers as the app does).
const mainInputs: Record<string, string> = { index: resolve('src/main/index.ts'), cli: resolve('src/cli/index.ts') };
if (existsSync('src/core/reader/worker.ts')) mainInputs['ingest-worker'] = resolve('src/core/reader/worker.ts');
if (existsSync('src/core/citations/render-worker.ts'))
  mainInputs['render-worker'] = resolve('src/core/citations/render-worker.ts');
if (existsSync('src/core/retrieval/embed-worker.ts'))
  mainInputs['embed-worker'] = resolve('src/core/retrieval/embed-worker.ts');
if (existsSync('src/core/agent/llama-worker.ts'))
  mainInputs['llama-worker'] = resolve('src/core/agent/llama-worker.ts');

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: { input: mainInputs },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // A sandboxed preload can only require('electron'): bundle everything else (zod) into it,
      // and emit CommonJS, which is what Electron loads for sandboxed preloads.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve('src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'src/renderer',
    build: {
      outDir: resolve('out/renderer'),
      // electron-vite leaves the renderer unminified by default; minified, the bundle is about a
      // third of the size, which the browser (serve mode) and the app window parse at every start.
      minify: true,
      rollupOptions: { input: { index: resolve('src/renderer/index.html') } },
    },
    // The built page carries its Content-Security-Policy in a <meta>: loaded from file://, it gets no headers.
    plugins: [react(), cspMetaPlugin()],
  },
});
