/**
 * A PDF page without a text layer, read by OCR: drawn at 300 dpi, or at its scan's own resolution
 * where the page is a scan made at less (less again for a page too large to draw at it,
 * util/pdf-draw.ts), read by the OCR engine, and stored in the
 * geometry model of a text page — one item per word, in PDF user space through the page's own
 * viewport (so rotation holds) — so chunking, search, citations and their boxes work unchanged.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readJson, writeFileAtomic } from '../util/fs';
import { drawPdfCanvas, drawPdfPage, type DrawnPage } from '../util/pdf-draw';
import { onlyRules } from '../ocr/ink';
import type { OcrEngine, OcrPage } from '../ocr/tesseract';
import { multiply } from './glyphs';
import { looksLikeWord } from './text-quality';
import { loadPdfJs } from '../util/pdfjs';
import type { PageGeometry } from '../domain/index';
import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** Dots per inch pages are drawn at for OCR: at most this, less for a scan made at less (see scanDpi). */
export const OCR_DPI = 300;
/** The least a page made of a scan is drawn at for OCR, however coarse the scan. */
const MIN_SCAN_DPI = 150;

/** The font every OCR word is set in: a box from the base line (descent 0) up its whole height (ascent 1). */
export const OCR_FONT: PageGeometry['fonts'][number] = [1, 0, 0, 0, 1, 0];

const r2 = (n: number) => Math.round(n * 100) / 100;

export interface OcrPageResult {
  /** The page's text (words by spaces, lines by line breaks, paragraphs by blank lines). */
  text: string;
  /** Items (see PageGeometry.items) with offsets relative to the page's text. */
  items: number[];
  /** Mean word confidence, 0–100. */
  confidence: number;
  words: number;
}

/** How a document's pages are read by OCR. */
export interface OcrOptions {
  engine: OcrEngine;
  /**
   * Folder where each page read is kept until the document is done, so a killed or cancelled
   * ingest resumes at the page, not at the start of the file (none: pages are not kept).
   */
  cacheDir?: string;
  /** Called when page `page` of `total` starts being read by OCR (not for a page kept from before). */
  onPage?: (page: number, total: number) => void;
}

/** Bumped when what a kept page holds changes (a kept page of another format is read again). */
const CACHE_FORMAT = 1;

/** Page `n` read by OCR, or as kept from an earlier, interrupted read of the same file. */
export async function ocrPageKept(
  page: PDFPageProxy,
  n: number,
  total: number,
  options: OcrOptions,
  signal?: AbortSignal,
): Promise<OcrPageResult> {
  const file = options.cacheDir ? path.join(options.cacheDir, `${n}.json`) : null;
  if (file) {
    const kept = (await readJson(file).catch(() => undefined)) as
      | (OcrPageResult & { format?: number; dpi?: number })
      | undefined;
    if (
      kept?.format === CACHE_FORMAT &&
      kept.dpi === OCR_DPI &&
      Array.isArray(kept.items) &&
      typeof kept.text === 'string'
    ) {
      return { text: kept.text, items: kept.items, confidence: kept.confidence, words: kept.words };
    }
  }
  options.onPage?.(n, total);
  const read = await ocrPage(page, options.engine, signal);
  if (file) {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await writeFileAtomic(file, JSON.stringify({ format: CACHE_FORMAT, dpi: OCR_DPI, ...read }));
  }
  return read;
}

/**
 * A first read under this mean confidence (or with fewer words) may be of a page scanned sideways
 * or upside down — unless at least ORIENTATION_CHECK_WORDS of its words, and a third of them, are
 * sure words: text read turned is nearly all unsure (a page of the tests scanned sideways: 36 sure
 * of 1,520), an upright page printed poorly is not (a CUAD exhibit at 68 % confidence: 217 of 401).
 */
export const ORIENTATION_CHECK_CONFIDENCE = 70;
const ORIENTATION_CHECK_WORDS = 20;
/** Dots per inch of the quick reads that compare the four orientations. */
const ORIENTATION_DPI = 100;

/** How well a read reads: its sure words (confidence ≥ 70) that look like words. */
function readScore(read: OcrPage): number {
  return read.words.filter((w) => w.confidence >= 70 && looksLikeWord(w.text)).length;
}

/**
 * Draw the page and read it — unless it holds nothing but rules (ocr/ink.ts). A page read
 * poorly, and not clearly upright, is read again, quickly, turned 90, 270 and 180 degrees; the
 * first turn that reads clearly better than the page as it is (only one of the four reads as
 * words) is read in full (a page scanned sideways or upside down). Small skew is tesseract's own
 * to handle.
 */
export async function ocrPage(page: PDFPageProxy, engine: OcrEngine, signal?: AbortSignal): Promise<OcrPageResult> {
  // A page whose images cannot be listed is drawn at 300 dpi, as before (and fails there, if it does).
  const dpi = (await scanDpi(page).catch(() => null)) ?? OCR_DPI;
  const canvas = await drawPdfCanvas(page, dpi / 72);
  // Nothing on the page but rules (or nothing at all): no word to read, and no Tesseract to load.
  if (onlyRules(canvas, canvas.scale * 72)) return { text: '', items: [], confidence: 0, words: 0 };
  let drawn = await canvas.png();
  let read = await engine.recognize(drawn.png, signal);
  // The full read stands for the page as it is: drawn at 150-300 dpi, it scores at least what a
  // quick 100-dpi read would.
  const asIs = readScore(read);
  const upright = asIs >= ORIENTATION_CHECK_WORDS && asIs * 3 >= read.words.length;
  if ((read.confidence < ORIENTATION_CHECK_CONFIDENCE || read.words.length < ORIENTATION_CHECK_WORDS) && !upright) {
    for (const turn of [90, 270, 180]) {
      const score = readScore(
        await engine.recognize((await drawPdfPage(page, ORIENTATION_DPI / 72, turn)).png, signal),
      );
      if (score > Math.max(5, asIs * 1.5)) {
        drawn = await drawPdfPage(page, dpi / 72, turn);
        read = await engine.recognize(drawn.png, signal);
        break;
      }
    }
  }
  return placeWords(read, drawn.viewport);
}

/**
 * The resolution of the scan a page is made of — the image that covers at least half the page, in
 * its pixels per inch as placed (the finer of its two directions) — within MIN_SCAN_DPI..OCR_DPI;
 * null for a page that is not one scan. Drawing a 150-dpi scan at 300 dpi adds no detail and
 * about doubles the reading (figures: bench/RESULTS.md, "Figures behind choices in the code").
 */
async function scanDpi(page: PDFPageProxy): Promise<number | null> {
  const { OPS, AnnotationMode } = await loadPdfJs();
  const { fnArray, argsArray } = await page.getOperatorList({ annotationMode: AnnotationMode.DISABLE });
  const [x0, y0, x1, y1] = page.view as [number, number, number, number];
  const pageArea = Math.abs((x1 - x0) * (y1 - y0));
  const stack: number[][] = [];
  let ctm: readonly number[] = [1, 0, 0, 1, 0, 0];
  let best: { area: number; dpi: number } | null = null;
  for (let i = 0; i < fnArray.length; i++) {
    const args = argsArray[i] as unknown[] | null;
    const fn = fnArray[i];
    if (fn === OPS.save || fn === OPS.paintFormXObjectBegin) stack.push([...ctm]);
    if (fn === OPS.restore || fn === OPS.paintFormXObjectEnd) ctm = stack.pop() ?? ctm;
    const m = fn === OPS.transform ? args : fn === OPS.paintFormXObjectBegin ? (args?.[0] as number[] | null) : null;
    if (m && m.length === 6) ctm = multiply(Array.from(m as ArrayLike<number>), ctm);
    const size =
      fn === OPS.paintImageXObject
        ? [args?.[1], args?.[2]]
        : fn === OPS.paintInlineImageXObject
          ? [(args?.[0] as { width?: number })?.width, (args?.[0] as { height?: number })?.height]
          : null;
    if (!size || typeof size[0] !== 'number' || typeof size[1] !== 'number') continue;
    // The image's unit square, placed by the matrix: its sides in points.
    const w = Math.hypot(ctm[0]!, ctm[1]!);
    const h = Math.hypot(ctm[2]!, ctm[3]!);
    const area = Math.abs(ctm[0]! * ctm[3]! - ctm[1]! * ctm[2]!);
    // A placed area over 0 has both sides over 0.
    if (area > (best?.area ?? 0)) best = { area, dpi: Math.max(size[0] / (w / 72), size[1] / (h / 72)) };
  }
  if (!best || best.area < pageArea / 2) return null;
  return Math.round(Math.min(OCR_DPI, Math.max(MIN_SCAN_DPI, best.dpi)));
}

/** The words as items in PDF user space, through the viewport they were drawn with (rotation included). */
function placeWords(read: OcrPage, viewport: DrawnPage['viewport']): OcrPageResult {
  const items: number[] = [];
  for (const w of read.words) {
    // The word's box corners in user space: bottom-left (base line), bottom-right, top-left.
    const [ox, oy] = viewport.convertToPdfPoint(w.x0, w.y1) as [number, number];
    const [rx, ry] = viewport.convertToPdfPoint(w.x1, w.y1) as [number, number];
    const [tx, ty] = viewport.convertToPdfPoint(w.x0, w.y0) as [number, number];
    const along = Math.hypot(rx - ox, ry - oy);
    const up = Math.hypot(tx - ox, ty - oy);
    if (along === 0 || up === 0) continue;
    // A transform whose text direction runs along the word and whose "up" is the line's height.
    const k = up / along;
    items.push(
      w.start,
      w.end - w.start,
      r2((rx - ox) * k),
      r2((ry - oy) * k),
      r2(tx - ox),
      r2(ty - oy),
      r2(ox),
      r2(oy),
      r2(along),
      r2(up),
      0,
    );
  }
  return { text: read.text, items, confidence: read.confidence, words: read.words.length };
}
