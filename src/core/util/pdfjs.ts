/**
 * pdf.js in Node, set up once per thread for ingest (text + geometry) and page rendering alike:
 * Node 20 stand-ins for what pdf.js 6 expects, the "fake worker" in this thread (callers are
 * already off the engine's main thread), and the package's own data folders as plain filesystem
 * paths (pdf.js in Node reads them with fs, so `file:` URLs silently fail and fonts fall back).
 */
import { createRequire } from 'node:module';
import path from 'node:path';

export type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

let pdfjsPromise: Promise<PdfJs> | undefined;

function installNode20Polyfills(): void {
  // Promise.withResolvers and ArrayBuffer#transferToFixedLength arrive in Node 22 (Electron has
  // them); pdf.js 6 uses both, and rendering image streams hangs without the latter.
  const P = Promise as unknown as { withResolvers?: unknown };
  if (typeof P.withResolvers !== 'function') {
    P.withResolvers = function withResolvers<T>() {
      let resolve!: (v: T) => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    };
  }
  const AB = ArrayBuffer.prototype as unknown as {
    transferToFixedLength?: (this: ArrayBuffer, n?: number) => ArrayBuffer;
  };
  if (typeof AB.transferToFixedLength !== 'function') {
    AB.transferToFixedLength = function transferToFixedLength(this: ArrayBuffer, n?: number) {
      const length = n ?? this.byteLength;
      const out = new ArrayBuffer(length);
      new Uint8Array(out).set(new Uint8Array(this, 0, Math.min(length, this.byteLength)));
      return out;
    };
  }
}

/**
 * pdf.js's legacy build bundles core-js, whose feature tests fail on Node 20 for edge cases no
 * caller here meets, so it replaces two built-ins of the whole thread with JavaScript versions:
 * Array.prototype.push (about 3.6× slower) and JSON.stringify (about 2.9× slower; every artifact a
 * reader writes goes through it). Keep the thread's own: call before importing pdf.js, and the
 * function it returns after. (The methods core-js only adds, which pdf.js uses, stay.) The tsx
 * worker bootstrap does the same around its preloads (util/worker-start.ts).
 */
export function keepNativeBuiltins(): () => void {
  const push = Array.prototype.push;
  const stringify = JSON.stringify;
  return () => {
    Array.prototype.push = push;
    JSON.stringify = stringify;
  };
}

/** Load pdf.js once per thread (legacy build for Node), with its worker code in this thread. */
export function loadPdfJs(): Promise<PdfJs> {
  pdfjsPromise ??= (async () => {
    installNode20Polyfills();
    const restore = keepNativeBuiltins();
    try {
      const worker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
      (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
      return await import('pdfjs-dist/legacy/build/pdf.mjs');
    } finally {
      restore();
    }
  })();
  return pdfjsPromise;
}

/** A data folder of the pdfjs-dist package as a filesystem path ending in a separator. */
export function pdfjsAssetDir(folder: 'standard_fonts' | 'cmaps' | 'wasm' | 'iccs'): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('pdfjs-dist/package.json')), folder) + path.sep;
}

/** getDocument options every caller shares: fonts, CMaps (CID-font text), wasm image decoders, ICC profiles. */
export function pdfjsDataOptions(): {
  standardFontDataUrl: string;
  cMapUrl: string;
  cMapPacked: true;
  wasmUrl: string;
  iccUrl: string;
  useSystemFonts: false;
} {
  return {
    standardFontDataUrl: pdfjsAssetDir('standard_fonts'),
    cMapUrl: pdfjsAssetDir('cmaps'),
    cMapPacked: true,
    wasmUrl: pdfjsAssetDir('wasm'),
    iccUrl: pdfjsAssetDir('iccs'),
    useSystemFonts: false,
  };
}
