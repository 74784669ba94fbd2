/**
 * OCR of one page image, offline: tesseract.js (WebAssembly, in a worker thread) with language data
 * read from an installed `@tesseract.js-data/<lang>` package, never from a CDN. A page comes back as
 * its words in reading order, each with its box in image pixels, confidence and offsets in the page
 * text (words joined by spaces, lines by a line break, paragraphs by a blank line), so it can be
 * stored and cited like a page with a text layer.
 */
import { createWorker, OEM, type Worker } from 'tesseract.js';
import { CasefileError } from '../../shared/errors';
import { languageData, type OcrQuality } from './languages';

export { languageData, type OcrQuality };

export interface OcrWord {
  text: string;
  /** 0–100. */
  confidence: number;
  /** Box in image pixels, origin top-left. */
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** [start, end) of the word in the page text. */
  start: number;
  end: number;
}

export interface OcrPage {
  text: string;
  words: OcrWord[];
  /** Mean word confidence, 0–100 (0 for a page with no words). */
  confidence: number;
}

export interface OcrEngineOptions {
  lang?: string;
  quality?: OcrQuality;
  /** Pages one tesseract worker reads before it is replaced (tesseract.js grows over long runs). */
  recycleAfter?: number;
}

/** One tesseract worker, loaded on first use, replaced every `recycleAfter` pages. Pages are read one at a time. */
export class OcrEngine {
  private worker: Promise<Worker> | null = null;
  private pages = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly lang: string;
  private readonly dataDir: string;
  private readonly recycleAfter: number;

  constructor(options: OcrEngineOptions = {}) {
    this.lang = options.lang ?? 'eng';
    const dir = languageData(this.lang, options.quality ?? 'fast');
    if (!dir) {
      throw new CasefileError(
        'unavailable',
        `No OCR language data for "${this.lang}" is installed (the npm package @tesseract.js-data/${this.lang}).`,
      );
    }
    this.dataDir = dir;
    this.recycleAfter = options.recycleAfter ?? 200;
  }

  private load(): Promise<Worker> {
    this.worker ??= createWorker(this.lang, OEM.LSTM_ONLY, {
      langPath: this.dataDir,
      cacheMethod: 'none',
      gzip: true,
    }).catch((err: unknown) => {
      this.worker = null;
      throw err;
    });
    return this.worker;
  }

  /** Read one page image (PNG or JPEG bytes). Cancelling rejects at once; the page being read finishes in the worker. */
  recognize(image: Uint8Array, signal?: AbortSignal): Promise<OcrPage> {
    const run = this.queue.then(async () => {
      signal?.throwIfAborted();
      if (this.pages >= this.recycleAfter) await this.dispose();
      const worker = await this.load();
      this.pages++;
      const { data } = await worker.recognize(Buffer.from(image), {}, { blocks: true, text: false });
      return pageOf(data.blocks ?? []);
    });
    this.queue = run.catch(() => undefined);
    if (!signal) return run;
    // Rejected at once on cancel; the listener goes when the page is read (one signal serves a whole file).
    let onAbort: () => void = () => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    return Promise.race([run, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
  }

  async dispose(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    this.pages = 0;
    if (w) await (await w.catch(() => null))?.terminate();
  }
}

type Blocks = NonNullable<Awaited<ReturnType<Worker['recognize']>>['data']['blocks']>;

/** The words in reading order with their offsets in the text they make. */
export function pageOf(blocks: Blocks): OcrPage {
  let text = '';
  const words: OcrWord[] = [];
  for (const block of blocks) {
    for (const para of block.paragraphs) {
      if (text && !text.endsWith('\n\n')) text += text.endsWith('\n') ? '\n' : '\n\n';
      for (const line of para.lines) {
        const ws = line.words.filter((w) => w.text.trim());
        if (!ws.length) continue;
        if (text && !text.endsWith('\n')) text += '\n';
        ws.forEach((w, i) => {
          if (i) text += ' ';
          const start = text.length;
          text += w.text.trim();
          // A word's box spans its line's height, as a text layer's does (tesseract's word box hugs the ink).
          words.push({
            text: w.text.trim(),
            confidence: w.confidence,
            x0: w.bbox.x0,
            y0: line.bbox.y0,
            x1: w.bbox.x1,
            y1: line.bbox.y1,
            start,
            end: text.length,
          });
        });
      }
    }
  }
  const confidence = words.length ? words.reduce((a, w) => a + w.confidence, 0) / words.length : 0;
  return { text: text.trimEnd(), words, confidence };
}
