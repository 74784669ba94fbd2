/**
 * The source viewer's server side: render a PDF page with pdf.js onto @napi-rs/canvas and map a
 * cited character span to pixel rectangles on it (from the geometry stored at ingest), or cut
 * the passage around a span out of a DOCX / text document.
 */
import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PageImage, Passage, PixelRect } from '../../shared/contract/viewer';
import { CasefileError } from '../../shared/errors';
import type { Engine } from '../engine';
import { CaseDocuments } from '../ingest/documents';
import type { PageIndex } from '../ingest/types';
import type { HandlerMap } from '../router/router';
import { spanToRects } from './geometry';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;
let pdfjsPromise: Promise<PdfJs> | undefined;

function loadPdfJs(): Promise<PdfJs> {
  pdfjsPromise ??= (async () => {
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
    // Node 20 lacks ArrayBuffer#transferToFixedLength, which pdf.js 6 uses when it hands image
    // data between its layers (Electron's Node 22 has it); a copy is equivalent for pdf.js.
    const AB = ArrayBuffer.prototype as unknown as { transferToFixedLength?: (this: ArrayBuffer, n?: number) => ArrayBuffer };
    if (typeof AB.transferToFixedLength !== 'function') {
      AB.transferToFixedLength = function transferToFixedLength(this: ArrayBuffer, n?: number) {
        const length = n ?? this.byteLength;
        const out = new ArrayBuffer(length);
        new Uint8Array(out).set(new Uint8Array(this, 0, Math.min(length, this.byteLength)));
        return out;
      };
    }
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

/** A few open documents, so paging through one PDF does not re-parse it each time. */
class PdfCache {
  private readonly open = new Map<string, Promise<PdfDocument>>();
  constructor(private readonly size = 3) {}

  async get(file: string): Promise<PdfDocument> {
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
        throw new CasefileError('failed', `The PDF could not be opened for display (${err instanceof Error ? err.message : String(err)}).`);
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

  async close(): Promise<void> {
    const docs = [...this.open.values()];
    this.open.clear();
    await Promise.all(docs.map((d) => d.then((x) => x.loadingTask.destroy()).catch(() => {})));
  }
}

/** 1-based pages whose character range overlaps [start, end). */
function pagesOfSpan(index: PageIndex, start: number, end: number): number[] {
  const hi = Math.max(end, start + 1);
  return index.pages.filter((p) => p.start < hi && p.end > start).map((p) => p.page);
}

export interface RenderPageArgs {
  docs: CaseDocuments;
  cache: PdfCache;
  fileId: string;
  version?: number | undefined;
  page: number;
  scale: number;
  start?: number | undefined;
  end?: number | undefined;
}

/** Render a page and the span's rectangles on it, in image pixels. */
export async function renderPage(args: RenderPageArgs): Promise<PageImage> {
  const { docs, fileId, page, scale } = args;
  const { file, version } = await docs.resolve(fileId, args.version);
  if (version.kind !== 'pdf') {
    throw new CasefileError('invalid_input', `${file.name} is not a PDF; its passage is shown as text instead.`, [
      { field: 'fileId', message: 'must be a PDF file' },
    ]);
  }
  const [text, index] = await Promise.all([docs.getText(fileId, version.version), docs.getPages(fileId, version.version)]);
  const pdf = await args.cache.get(await docs.originalPath(fileId, version.version));
  if (page > pdf.numPages) {
    throw new CasefileError('not_found', `${file.name} has ${pdf.numPages} pages; there is no page ${page}.`, [
      { field: 'page', message: `must be at most ${pdf.numPages}` },
    ]);
  }
  const pdfPage = await pdf.getPage(page);
  const viewport = pdfPage.getViewport({ scale });
  const width = Math.ceil(viewport.width);
  const height = Math.ceil(viewport.height);
  const { createCanvas } = await import('@napi-rs/canvas');
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  type RenderParams = Parameters<typeof pdfPage.render>[0];
  // @napi-rs/canvas implements the canvas API pdf.js draws with (pdf.js uses it itself in Node).
  await pdfPage.render({
    canvas: canvas as unknown as RenderParams['canvas'],
    canvasContext: ctx as unknown as NonNullable<RenderParams['canvasContext']>,
    viewport,
  }).promise;
  pdfPage.cleanup();
  const png = (await canvas.encode('png')).toString('base64');

  const rects: PixelRect[] = [];
  let spanPages: number[] = [];
  if (args.start !== undefined && args.end !== undefined) {
    spanPages = pagesOfSpan(index, args.start, args.end);
    for (const pr of spanToRects(index, args.start, args.end, text)) {
      if (pr.page !== page) continue;
      for (const r of pr.rects) {
        // Both corners through the viewport transform (handles view box offset and /Rotate).
        const [x1, y1] = viewport.convertToViewportPoint(r.x, r.y) as [number, number];
        const [x2, y2] = viewport.convertToViewportPoint(r.x + r.width, r.y + r.height) as [number, number];
        rects.push({
          x: round(Math.min(x1, x2)),
          y: round(Math.min(y1, y2)),
          width: round(Math.abs(x2 - x1)),
          height: round(Math.abs(y2 - y1)),
        });
      }
    }
  }
  return {
    file_id: file.id,
    file_name: file.name,
    version: version.version,
    page,
    page_count: pdf.numPages,
    png,
    width,
    height,
    scale,
    rects,
    span_pages: spanPages,
  };
}

const round = (n: number) => Math.round(n * 10) / 10;

/** The text around [start, end), widened to paragraph boundaries where they are near. */
export async function passage(
  docs: CaseDocuments,
  args: { fileId: string; version?: number | undefined; start: number; end: number; context: number },
): Promise<Passage> {
  const { file, version } = await docs.resolve(args.fileId, args.version);
  const [text, index] = await Promise.all([docs.getText(args.fileId, version.version), docs.getPages(args.fileId, version.version)]);
  const start = Math.min(args.start, text.length);
  const end = Math.min(Math.max(args.end, start), text.length);
  let from = Math.max(0, start - args.context);
  let to = Math.min(text.length, end + args.context);
  if (from > 0) {
    const para = text.lastIndexOf('\n\n', start);
    if (para >= from - args.context) from = Math.max(0, Math.min(from, para + 2));
  }
  if (to < text.length) {
    const para = text.indexOf('\n\n', end);
    if (para !== -1 && para <= to + args.context) to = Math.max(to, para);
  }
  return {
    file_id: file.id,
    file_name: file.name,
    version: version.version,
    kind: version.kind === 'pdf' || version.kind === 'docx' ? version.kind : 'text',
    text: text.slice(from, to),
    offset: from,
    total_length: text.length,
    start,
    end,
    pages: pagesOfSpan(index, start, end),
  };
}

/** `citations.page` and `citations.passage`, bound to the engine's cases. */
export function citationViewerHandlers(engine: Engine): HandlerMap {
  const cache = new PdfCache();
  engine.onClose(() => cache.close());
  const docsOf = async (caseId: string) => {
    await engine.cases.get(caseId); // not_found for an unknown case
    return new CaseDocuments(engine.cases.caseDir(caseId));
  };
  return {
    'citations.page': async (input) =>
      renderPage({ docs: await docsOf(input.caseId), cache, ...input }),
    'citations.passage': async (input) => passage(await docsOf(input.caseId), input),
  };
}
