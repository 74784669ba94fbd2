/**
 * pdf.js's legacy build (core-js inside) replaces Array.prototype.push and JSON.stringify with
 * JavaScript versions several times slower, for the whole thread: every page read and every
 * artifact written would pay for it. Readers keep the thread's own, however pdf.js is loaded.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startWorker, packageFileUrl } from '../../src/core/util/worker-start';

const root = path.resolve(import.meta.dirname, '..', '..');
const entry = path.join(root, 'test', 'fixtures', 'builtins-entry.ts');
type Report = { push: boolean; stringify: boolean; pdfjs: string };

describe('pdf.js and the thread built-ins', () => {
  it('a reader that loads pdf.js itself keeps V8 push and JSON.stringify', () => {
    const script = `
      const vm = await import('node:vm');
      const source = vm.runInNewContext('Function.prototype.toString');
      const native = (fn) => source.call(fn).includes('[native code]');
      const { loadPdfJs } = await import(${JSON.stringify(path.join(root, 'src', 'core', 'util', 'pdfjs.ts'))});
      const pdfjs = await loadPdfJs();
      // pdf.js still loads and works with V8's own built-ins back.
      const out = { push: native(Array.prototype.push), stringify: native(JSON.stringify), pdfjs: typeof pdfjs.getDocument };
      console.log(JSON.stringify(out));`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n').pop()!)).toEqual({ push: true, stringify: true, pdfjs: 'function' });
  });

  it('a TypeScript worker with pdf.js preloaded natively keeps them too', async () => {
    const preload = () => [
      packageFileUrl('pdfjs-dist', 'legacy', 'build', 'pdf.worker.mjs'),
      packageFileUrl('pdfjs-dist', 'legacy', 'build', 'pdf.mjs'),
    ];
    const worker = startWorker(entry, preload);
    try {
      const report = await new Promise<Report>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      expect(report).toEqual({ push: true, stringify: true, pdfjs: 'object' });
    } finally {
      await worker.terminate();
    }
  });
});
