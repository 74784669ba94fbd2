/**
 * Page rendering with pdf.js onto @napi-rs/canvas. Used inside the render worker (and in-thread
 * when no worker file is available). Keeps a few documents open so paging through one PDF does
 * not re-parse it each time.
 */
import { promises as fs } from 'node:fs';
import { CasefileError } from '../../shared/errors';
import { loadPdfJs, pdfjsDataOptions, type PdfJs } from '../util/pdfjs';
import { readConfig } from '../config';
import { resolveLimits, imageFormat } from '../domain/index';
import { imageToPdf } from '../reader/index';
import { drawPdfPage, MAX_CANVAS_PIXELS } from '../util/pdf-draw';

/**
 * Largest page image drawn (pixels): a page of 200000 × 200000 points asked for at 100% is drawn
 * at the scale that fits (its boxes follow through the returned transform), never as a 160 GB canvas.
 */

type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;

/** A rendered page: PNG bytes, pixel size, and the viewport transform (PDF user space → pixels). */
export interface RenderedPage {
  png: Uint8Array;
  width: number;
  height: number;
  pageCount: number;
  /** The scale drawn at: the one asked for, or less for a page too large to draw at it. */
  scale: number;
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
  /** The password of a protected PDF (given by the user; in memory only). */
  password?: string;
}

export class PdfRenderer {
  private readonly open = new Map<string, Promise<PdfDocument>>();
  constructor(private readonly size = 3) {}

  private document(file: string, name: string, password?: string): Promise<PdfDocument> {
    let hit = this.open.get(file);
    if (hit) {
      this.open.delete(file);
      this.open.set(file, hit);
      return hit;
    }
    hit = (async () => {
      const pdfjs = await loadPdfJs();
      const original = new Uint8Array(await fs.readFile(file));
      const limits = resolveLimits(readConfig().limits);
      // An image is shown as the PDF ingest read it as (made again, the same).
      const data = imageFormat(original)
        ? await imageToPdf(original, limits).catch((err: unknown) => {
            throw new CasefileError(
              'failed',
              `${name} could not be opened for display (${err instanceof Error ? err.message : String(err)}).`,
            );
          })
        : original;
      const task = pdfjs.getDocument({
        data,
        ...pdfjsDataOptions(),
        // An image of more pixels than this is left out of the page (a 20000² image would need gigabytes).
        maxImageSize: limits.maxImagePixels,
        canvasMaxAreaInBytes: MAX_CANVAS_PIXELS * 4,
        verbosity: pdfjs.VerbosityLevel.ERRORS,
        ...(password !== undefined ? { password } : {}),
      });
      try {
        return await task.promise;
      } catch (err) {
        await task.destroy().catch(() => {});
        if ((err as { name?: string }).name === 'PasswordException') {
          throw new CasefileError('conflict', `${name} is password protected: enter its password to show its pages.`);
        }
        throw new CasefileError(
          'failed',
          `${name} could not be opened for display (${err instanceof Error ? err.message : String(err)}).`,
        );
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
    const pdf = await this.document(req.file, req.name, req.password);
    if (req.page > pdf.numPages) {
      throw new CasefileError('not_found', `${req.name} has ${pdf.numPages} pages; there is no page ${req.page}.`, [
        { field: 'page', message: `must be at most ${pdf.numPages}` },
      ]);
    }
    const page = await pdf.getPage(req.page);
    const { png, width, height, scale, viewport } = await drawPdfPage(page, req.scale);
    page.cleanup();
    const [a, b, c, d, e, f] = viewport.transform as number[];
    return { png, width, height, pageCount: pdf.numPages, scale, transform: [a!, b!, c!, d!, e!, f!] };
  }

  async close(): Promise<void> {
    const docs = [...this.open.values()];
    this.open.clear();
    await Promise.all(docs.map((d) => d.then((x) => x.loadingTask.destroy()).catch(() => {})));
  }
}
