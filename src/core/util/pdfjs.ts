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
  const AB = ArrayBuffer.prototype as unknown as { transferToFixedLength?: (this: ArrayBuffer, n?: number) => ArrayBuffer };
  if (typeof AB.transferToFixedLength !== 'function') {
    AB.transferToFixedLength = function transferToFixedLength(this: ArrayBuffer, n?: number) {
      const length = n ?? this.byteLength;
      const out = new ArrayBuffer(length);
      new Uint8Array(out).set(new Uint8Array(this, 0, Math.min(length, this.byteLength)));
      return out;
    };
  }
}

/** Load pdf.js once per thread (legacy build for Node), with its worker code in this thread. */
export function loadPdfJs(): Promise<PdfJs> {
  pdfjsPromise ??= (async () => {
    installNode20Polyfills();
    const worker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    return import('pdfjs-dist/legacy/build/pdf.mjs');
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
