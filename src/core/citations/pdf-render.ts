/**
 * Page rendering with pdf.js onto @napi-rs/canvas. Used inside the render worker (and in-thread
 * when no worker file is available). Keeps a few documents open so paging through one PDF does
 * not re-parse it each time.
 */
import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CasefileError } from '../../shared/errors';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;

/** A rendered page: PNG bytes, pixel size, and the viewport transform (PDF user space → pixels). */
export interface RenderedPage {
  png: Uint8Array;
  width: number;
  height: number;
  pageCount: number;
  /** [a, b, c, d, e, f]: x' = a·x + c·y + e, y' = b·x + d·y + f. */
  transform: [number, number, number, number, number, number];
}

export interface RenderRequest {
  /** Path of the PDF's original bytes. */
  file: string;
  /** For messages only. */
  name: string;
  page: number;
  scale: number;
}

let pdfjsPromise: Promise<PdfJs> | undefined;

function loadPdfJs(): Promise<PdfJs> {
  pdfjsPromise ??= (async () => {
    // Node 20 lacks Promise.withResolvers and ArrayBuffer#transferToFixedLength, both used by
    // pdf.js 6 (Electron's Node 22 has them); these stand-ins behave the same for pdf.js.
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
    // pdf.js's "fake worker" runs in this thread (already off the engine's main thread).
    const worker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    return import('pdfjs-dist/legacy/build/pdf.mjs');
  })();
  return pdfjsPromise;
}

function pdfjsDataUrl(folder: string): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve('pdfjs-dist/package.json');
  return pathToFileURL(path.join(path.dirname(pkg), folder) + path.sep).href;
}

export class PdfRenderer {
  private readonly open = new Map<string, Promise<PdfDocument>>();
  constructor(private readonly size = 3) {}

  private document(file: string, name: string): Promise<PdfDocument> {
    let hit = this.open.get(file);
    if (hit) {
      this.open.delete(file);
      this.open.set(file, hit);
      return hit;
    }
    hit = (async () => {
      const pdfjs = await loadPdfJs();
      const data = new Uint8Array(await fs.readFile(file));
      const task = pdfjs.getDocument({
        data,
        standardFontDataUrl: pdfjsDataUrl('standard_fonts'),
        cMapUrl: pdfjsDataUrl('cmaps'),
        cMapPacked: true,
        useSystemFonts: false,
        verbosity: pdfjs.VerbosityLevel.ERRORS,
      });
      try {
        return await task.promise;
      } catch (err) {
        await task.destroy().catch(() => {});
        throw new CasefileError('failed', `${name} could not be opened for display (${err instanceof Error ? err.message : String(err)}).`);
      }
    })();
    this.open.set(file, hit);
    hit.catch(() => this.open.delete(file));
    while (this.open.size > this.size) {
      const [oldest, doc] = this.open.entries().next().value as [string, Promise<PdfDocument>];
      this.open.delete(oldest);
      void doc.then((d) => d.loadingTask.destroy()).catch(() => {});
    }
    return hit;
  }

  async render(req: RenderRequest): Promise<RenderedPage> {
    const pdf = await this.document(req.file, req.name);
    if (req.page > pdf.numPages) {
      throw new CasefileError('not_found', `${req.name} has ${pdf.numPages} pages; there is no page ${req.page}.`, [
        { field: 'page', message: `must be at most ${pdf.numPages}` },
      ]);
    }
    const page = await pdf.getPage(req.page);
    const viewport = page.getViewport({ scale: req.scale });
    const width = Math.ceil(viewport.width);
    const height = Math.ceil(viewport.height);
    const { createCanvas } = await import('@napi-rs/canvas');
    const canvas = createCanvas(width, height);
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, height);
    type RenderParams = Parameters<typeof page.render>[0];
    // @napi-rs/canvas implements the canvas API pdf.js draws with (pdf.js uses it itself in Node).
    await page.render({
      canvas: canvas as unknown as RenderParams['canvas'],
      canvasContext: ctx as unknown as NonNullable<RenderParams['canvasContext']>,
      viewport,
    }).promise;
    page.cleanup();
    const png = new Uint8Array(await canvas.encode('png'));
    const [a, b, c, d, e, f] = viewport.transform as number[];
    return { png, width, height, pageCount: pdf.numPages, transform: [a!, b!, c!, d!, e!, f!] };
  }

  async close(): Promise<void> {
    const docs = [...this.open.values()];
    this.open.clear();
    await Promise.all(docs.map((d) => d.then((x) => x.loadingTask.destroy()).catch(() => {})));
  }
}
