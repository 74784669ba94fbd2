/**
 * The source viewer's server side: render a PDF page (pdf.js onto @napi-rs/canvas, in a worker
 * thread) and map a cited character span to pixel rectangles on it from the geometry stored at
 * ingest; or cut the passage around a span out of a DOCX / text document.
 */
import type { Worker } from 'node:worker_threads';
import type { PageImage, Passage, PixelRect } from '../../shared/contract/viewer';
import { CasefileError } from '../../shared/errors';
import type { CaseDocuments } from '../documents/index';
import type { PageIndex } from '../domain/index';
import type { OpenCasesPort } from '../ports';
import type { HandlerMap } from '../router/router';
import { findWorkerEntry, packageFileUrl, startWorker } from '../util/worker-start';
import { passwordKey, type PasswordStore } from '../util/passwords';
import { spanToRects } from './geometry';
import { pageWords } from './words';
import type { RenderedPage, RenderRequest } from './pdf-render';
import type { RenderWorkerRequest, RenderWorkerResponse } from './render-worker';
import { readConfig } from '../config';

/** Renders pages somewhere: a worker thread, or this thread when no worker file exists. */
export interface PageRenderer {
  render(req: RenderRequest): Promise<RenderedPage>;
  close(): Promise<void>;
}

/** render-worker.ts next to this module (source), or `render-worker.js` next to the bundle. */
export function defaultRenderWorkerPath(): string | null {
  return findWorkerEntry(import.meta.url, 'render-worker', 'render-worker', readConfig().workerDir);
}

/** pdf.js, imported natively before tsx loads a TypeScript worker entry (tests, CLI; see startWorker). */
function pdfjsPreload(): string[] {
  return [
    packageFileUrl('pdfjs-dist', 'legacy', 'build', 'pdf.worker.mjs'),
    packageFileUrl('pdfjs-dist', 'legacy', 'build', 'pdf.mjs'),
  ];
}

/** One lazily started worker thread; it exits after a minute idle and is restarted on demand. */
class WorkerRenderer implements PageRenderer {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (p: RenderedPage) => void; reject: (e: unknown) => void }>();
  private idle: NodeJS.Timeout | undefined;

  constructor(private readonly entry: string) {}

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(this.entry, pdfjsPreload);
    worker.unref();
    worker.on('message', (msg: RenderWorkerResponse) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.ok) p.resolve({ ...msg.page, png: new Uint8Array(msg.page.png) });
      else p.reject(new CasefileError(msg.error.code, msg.error.message, msg.error.fields));
      this.armIdle();
    });
    const fail = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      for (const p of this.pending.values())
        p.reject(new CasefileError('failed', `The page could not be drawn (${why}). Try again.`));
      this.pending.clear();
    };
    worker.on('error', (err) => fail(err.message));
    worker.on('exit', (code) => fail(`renderer exited with code ${code}`));
    this.worker = worker;
    return worker;
  }

  private armIdle(): void {
    clearTimeout(this.idle);
    if (this.pending.size > 0) return;
    this.idle = setTimeout(() => void this.close(), 60_000);
    this.idle.unref();
  }

  render(req: RenderRequest): Promise<RenderedPage> {
    clearTimeout(this.idle);
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...req, id } satisfies RenderWorkerRequest);
    });
  }

  async close(): Promise<void> {
    clearTimeout(this.idle);
    const worker = this.worker;
    this.worker = null;
    for (const p of this.pending.values()) p.reject(new CasefileError('cancelled', 'Cancelled.'));
    this.pending.clear();
    await worker?.terminate();
  }
}

/** Fallback when the worker entry is not shipped: render on this thread. */
class InThreadRenderer implements PageRenderer {
  private renderer: Promise<import('./pdf-render').PdfRenderer> | null = null;
  private get(): Promise<import('./pdf-render').PdfRenderer> {
    this.renderer ??= import('./pdf-render').then((m) => new m.PdfRenderer());
    return this.renderer;
  }
  async render(req: RenderRequest): Promise<RenderedPage> {
    return (await this.get()).render(req);
  }
  async close(): Promise<void> {
    if (this.renderer) await (await this.renderer).close();
    this.renderer = null;
  }
}

export function createPageRenderer(workerPath: string | null = defaultRenderWorkerPath()): PageRenderer {
  return workerPath ? new WorkerRenderer(workerPath) : new InThreadRenderer();
}

/** 1-based pages whose character range overlaps [start, end). */
function pagesOfSpan(index: PageIndex, start: number, end: number): number[] {
  const hi = Math.max(end, start + 1);
  return index.pages.filter((p) => p.start < hi && p.end > start).map((p) => p.page);
}

const round = (n: number) => Math.round(n * 10) / 10;

export interface RenderPageArgs {
  docs: CaseDocuments;
  renderer: PageRenderer;
  file_id: string;
  version?: number | undefined;
  page: number;
  scale: number;
  start?: number | undefined;
  end?: number | undefined;
  /** The password the user gave for a protected PDF, by its original's sha-256. */
  passwordOf?: (sha256: string) => string | undefined;
}

/** Render a page and the span's rectangles on it, in image pixels. */
export async function renderPage(args: RenderPageArgs): Promise<PageImage> {
  const { docs, file_id: fileId, page, scale } = args;
  const { file, version } = await docs.resolve(fileId, args.version);
  if (version.kind !== 'pdf' && version.kind !== 'image') {
    throw new CasefileError('invalid_input', `${file.name} is not a PDF; its passage is shown as text instead.`, [
      { field: 'file_id', message: 'must be a PDF file' },
    ]);
  }
  const [text, index, original] = await Promise.all([
    docs.getText(fileId, version.version),
    docs.getPages(fileId, version.version),
    docs.originalPath(fileId, version.version),
  ]);
  const password = version.locked ? args.passwordOf?.(version.sha256) : undefined;
  const rendered = await args.renderer.render({
    file: original,
    name: file.name,
    page,
    scale,
    ...(password !== undefined ? { password } : {}),
  });
  const [a, b, c, d, e, f] = rendered.transform;
  const toPixel = (x: number, y: number): [number, number] => [a * x + c * y + e, b * x + d * y + f];

  const rects: PixelRect[] = [];
  let spanPages: number[] = [];
  if (args.start !== undefined && args.end !== undefined) {
    spanPages = pagesOfSpan(index, args.start, args.end);
    for (const pr of spanToRects(index, args.start, args.end, text)) {
      if (pr.page !== page) continue;
      for (const r of pr.rects) {
        // Both corners through the viewport transform (handles the view box offset and /Rotate).
        const [x1, y1] = toPixel(r.x, r.y);
        const [x2, y2] = toPixel(r.x + r.width, r.y + r.height);
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
    page_count: rendered.pageCount,
    png: Buffer.from(rendered.png.buffer, rendered.png.byteOffset, rendered.png.byteLength).toString('base64'),
    width: rendered.width,
    height: rendered.height,
    scale: rendered.scale,
    rects,
    span_pages: spanPages,
  };
}

/** The text around [start, end), widened to paragraph boundaries where they are near. */
export async function passage(
  docs: CaseDocuments,
  args: { file_id: string; version?: number | undefined; start: number; end: number; context: number },
): Promise<Passage> {
  const { file, version } = await docs.resolve(args.file_id, args.version);
  const [text, index] = await Promise.all([
    docs.getText(args.file_id, version.version),
    docs.getPages(args.file_id, version.version),
  ]);
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
    // An image is shown as the pages of the PDF it is read as.
    kind: version.kind === 'image' ? 'pdf' : version.kind === 'pdf' || version.kind === 'docx' ? version.kind : 'text',
    text: text.slice(from, to),
    offset: from,
    total_length: text.length,
    start,
    end,
    pages: pagesOfSpan(index, start, end),
  };
}

/**
 * The source viewer of an engine: `citations.page` and `citations.passage` over the open cases,
 * and its page renderer, which the owner closes.
 */
export function createCitationViewer(ports: { openCases: OpenCasesPort; passwords: PasswordStore }): {
  handlers: HandlerMap;
  close(): Promise<void>;
} {
  const renderer = createPageRenderer();
  const docsOf = async (caseId: string) => (await ports.openCases.open(caseId)).documents; // not_found for an unknown case
  return {
    handlers: {
      'citations.page': async (input) =>
        renderPage({
          docs: await docsOf(input.case_id),
          renderer,
          ...input,
          passwordOf: (sha256) => ports.passwords.get(passwordKey(input.case_id, sha256)),
        }),
      'citations.passage': async (input) => passage(await docsOf(input.case_id), input),
      'citations.words': async (input) => pageWords(await docsOf(input.case_id), input),
    },
    close: () => renderer.close(),
  };
}
