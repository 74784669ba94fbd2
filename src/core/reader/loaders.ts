import { unzipSync } from 'fflate';
import { LOCKED_REASON } from '../../shared/contract/ingest';
import { readConfig } from '../config';
import {
  decodeText,
  DEFAULT_LIMITS,
  raiseHint,
  ITEM_STRIDE,
  PAGES_FORMAT,
  type ChildFile,
  type EmailMeta,
  type FileKind,
  type PageGeometry,
  type PageIndex,
} from '../domain/index';
import { alignItems, GLYPH_STRIDE, type ItemGlyphs, type PageGlyphs } from './glyphs';
import { chooseStops, inlineModel } from './inline';
import { loadPdfJs, pdfjsDataOptions, type PdfJs } from '../util/pdfjs';
import { popplerMetrics, readFontDescriptors, type FontDescriptorInfo, type PdfJsFontInfo } from './fontmetrics';
import { OCR_FONT, ocrPageKept, type OcrOptions, type OcrPageResult } from './ocr-page';
import { ocrIsBetter, weakTextLayer } from './text-quality';
import {
  annotationsAppendix,
  annotationsCount,
  annotationsSummary,
  readDocxAnnotations,
} from './formats/docx-annotations';

/** A parsed document: its text, pages (with geometry for PDFs) and, for DOCX, HTML for display. */
export interface ParsedDoc {
  kind: FileKind;
  text: string;
  index: PageIndex;
  html?: string;
  /** 1-based pages without any text. */
  emptyPages: number[];
  /** An email's headers. */
  email?: EmailMeta;
  /** Files inside this one (an email's attachments, an archive's entries), read as files of their own. */
  children?: ChildFile[];
  /**
   * DOCX with tracked changes or comments: what they are ("12 tracked changes by Opposing Counsel,
   * 3 comments") and how many of each. They are appended to `text` (and `html`) as a final section,
   * "Tracked changes and comments" (formats/docx-annotations.ts); the body before it is the document
   * as it reads with every change accepted. Absent when the file has none.
   */
  annotations?: { summary: string; count: { insertions: number; deletions: number; comments: number } };
  /** What the file's listing says of it beyond its text (an archive whose end record gives another count than its table of contents). */
  note?: string;
}

/** Expected failure of a loader: the status and plain-words reason recorded for the file. */
export class LoadError extends Error {
  constructor(
    readonly status: 'failed' | 'needs_ocr',
    readonly reason: string,
    readonly pages = 0,
    /** The PDF is password protected (and no password, or a wrong one, was given). */
    readonly locked = false,
  ) {
    super(reason);
    this.name = 'LoadError';
  }
}

export interface LoadOptions {
  signal?: AbortSignal;
  /** Called after each PDF page. */
  onPage?: (done: number, total: number) => void;
  /** Folder with pdf.js standard font data (a path ending in a separator); defaults to pdfjs-dist's own. */
  standardFontDataUrl?: string;
  /** A PDF with more pages fails ("too many pages"); default 20,000. */
  maxPages?: number;
  /** Images of more pixels are left out (pdf.js's maxImageSize); default 100 million. */
  maxImagePixels?: number;
  /** Read pages without a text layer by OCR (absent: such pages stay empty). */
  ocr?: OcrOptions;
  /** The password of a protected PDF (used to open it, never stored). */
  password?: string;
}

/** Lines per pseudo-page of text files, and characters per pseudo-page of DOCX text. */
export const TEXT_LINES_PER_PAGE = 50;
export const DOCX_CHARS_PER_PAGE = 3000;

function checkAbort(signal?: AbortSignal): void {
  if (signal?.aborted)
    throw signal.reason instanceof Error
      ? signal.reason
      : Object.assign(new Error('Cancelled'), { name: 'AbortError' });
}

// ---------------------------------------------------------------- text

export function loadText(bytes: Uint8Array): ParsedDoc {
  const text = decodeText(bytes).text.replace(/\r\n?/g, '\n');
  const pages: PageGeometry[] = [];
  const paragraphs: [number, number][] = [];
  let pageStart = 0;
  let line = 0;
  let pos = 0;
  while (pos <= text.length) {
    const nl = text.indexOf('\n', pos);
    const lineEnd = nl < 0 ? text.length : nl;
    line++;
    const next = nl < 0 ? text.length + 1 : nl + 1;
    if (line % TEXT_LINES_PER_PAGE === 0 || nl < 0) {
      pages.push(emptyPage(pages.length + 1, pageStart, lineEnd));
      pageStart = Math.min(next, text.length);
    }
    pos = next;
  }
  let p = 0;
  for (const m of text.matchAll(/\n\s*\n/g)) {
    if (m.index > p && /\S/.test(text.slice(p, m.index))) paragraphs.push([p, m.index]);
    p = m.index + m[0].length;
  }
  if (p < text.length && /\S/.test(text.slice(p))) paragraphs.push([p, text.length]);
  if (!/\S/.test(text)) throw new LoadError('failed', 'no text in the file (only blank space)');
  return { kind: 'text', text, index: { kind: 'text', pages, paragraphs }, emptyPages: emptyPagesOf(text, pages) };
}

function emptyPage(page: number, start: number, end: number): PageGeometry {
  return { page, start, end, view: [0, 0, 0, 0], rotate: 0, fonts: [], items: [] };
}

function emptyPagesOf(text: string, pages: PageGeometry[]): number[] {
  return pages.filter((p) => !/\S/.test(text.slice(p.start, p.end))).map((p) => p.page);
}

// ---------------------------------------------------------------- docx

export async function loadDocx(bytes: Uint8Array): Promise<ParsedDoc> {
  const mammoth = (await import('mammoth')).default;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let raw: string;
  let html: string;
  try {
    raw = (await mammoth.extractRawText({ buffer })).value;
    html = (await mammoth.convertToHtml({ buffer })).value;
  } catch (err) {
    throw new LoadError('failed', `damaged Word file, it could not be read (${plain(err)})`);
  }
  // mammoth ends every paragraph with "\n\n"; keep one blank line between paragraphs, none at the end.
  const body = raw
    .replace(/\r\n?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/\s+$/, '');
  if (!/\S/.test(body)) throw new LoadError('failed', 'the Word file has no text');
  // mammoth reads the file with every tracked change accepted and its comments dropped: they follow
  // the body as a final section of their own (the body's text stays exactly as mammoth reads it).
  const annotations = await readDocxAnnotations(bytes);
  const appendix = annotationsAppendix(annotations);
  const text = appendix ? `${body}\n\n${appendix.text}` : body;
  if (appendix) html += appendix.html;
  const paragraphs: [number, number][] = [];
  let p = 0;
  for (const m of text.matchAll(/\n\n/g)) {
    if (m.index > p && /\S/.test(text.slice(p, m.index))) paragraphs.push([p, m.index]);
    p = m.index + 2;
  }
  if (p < text.length && /\S/.test(text.slice(p))) paragraphs.push([p, text.length]);
  // Pseudo-pages: whole paragraphs, about DOCX_CHARS_PER_PAGE characters each.
  const pages: PageGeometry[] = [];
  let start = 0;
  let end = 0;
  for (const [ps, pe] of paragraphs) {
    if (pe - start > DOCX_CHARS_PER_PAGE && end > start) {
      pages.push(emptyPage(pages.length + 1, start, end));
      start = ps;
    }
    end = pe;
  }
  pages.push(emptyPage(pages.length + 1, start, text.length));
  const title = docxPropertiesTitle(bytes);
  const doc: ParsedDoc = {
    kind: 'docx',
    text,
    html,
    index: { kind: 'docx', pages, paragraphs, ...(title ? { properties: { title } } : {}) },
    emptyPages: [],
  };
  if (appendix) doc.annotations = { summary: annotationsSummary(annotations), count: annotationsCount(annotations) };
  return doc;
}

/** The title a Word file's core properties give it (docProps/core.xml `dc:title`), or '' (none, or the part unreadable). */
export function docxPropertiesTitle(bytes: Uint8Array): string {
  try {
    const parts = unzipSync(bytes, {
      filter: (f) =>
        f.name === 'docProps/core.xml' && (f.compression === 0 || f.compression === 8) && f.originalSize <= 1 << 20,
    });
    const xml = parts['docProps/core.xml'];
    if (!xml) return '';
    const m = /<dc:title>([^<]*)<\/dc:title>/.exec(new TextDecoder('utf-8').decode(xml));
    return m ? decodeXml(m[1]!).replace(/\s+/g, ' ').trim() : '';
  } catch {
    return '';
  }
}

const decodeXml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_m, n: string) => String.fromCodePoint(+n))
    .replace(/&amp;/g, '&');

// ---------------------------------------------------------------- pdf

function plain(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.replace(/\s+/g, ' ').trim().slice(0, 200) || 'unknown error';
}

interface RawItem {
  str: string;
  transform: number[];
  width: number;
  height: number;
  fontName: string;
  hasEOL: boolean;
}

/** A font's style in the text content; `font` is what the FontDescriptor lookup needs (patches/). */
interface RawStyle {
  fontFamily?: string;
  ascent?: number;
  descent?: number;
  vertical?: boolean;
  font?: PdfJsFontInfo;
}

/** Every glyph the text pass moved over, as the patched pdf.js streams it with each chunk (patches/). */
interface RawGlyphs {
  /** The glyphs' unicode one after the other, and each glyph's length in it. */
  text: string;
  lens: Uint16Array;
  /** Font runs: the index of the glyph each starts at, and its pdf.js font (loadedName). */
  fonts: (number | string)[];
  /** GLYPH_STRIDE (six) per glyph: width in 1/1000 em (-1: unknown), em across the line, x0, y0, x1, y1. */
  num: Float64Array;
}

/** A page's text content: its items, its fonts' styles, and where each glyph sits (undefined without the patch). */
interface PageContent {
  items: object[];
  styles: Record<string, RawStyle>;
  glyphs?: PageGlyphs;
}

/**
 * Read a page's text content from pdf.js's stream, keeping the glyph places the patched text pass
 * sends with each chunk (`getTextContent` would drop them): one pass over the page's operators
 * gives the text and the exact place of every glyph the citation boxes need.
 */
async function readTextContent(page: PdfPage): Promise<PageContent> {
  const reader = page.streamTextContent().getReader();
  const content: PageContent = { items: [], styles: {} };
  const nums: Float64Array[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const chunk = value as { items: object[]; styles: Record<string, RawStyle>; glyphs?: RawGlyphs };
    for (const it of chunk.items) content.items.push(it);
    Object.assign(content.styles, chunk.styles);
    const g = chunk.glyphs;
    if (!g) continue;
    const glyphs = (content.glyphs ??= { text: [], font: [], num: new Float64Array(0) });
    let font = '';
    for (let i = 0, at = 0, run = 0; i < g.lens.length; i++) {
      if (run < g.fonts.length && g.fonts[run] === i) {
        font = String(g.fonts[run + 1]);
        run += 2;
      }
      glyphs.text.push(g.text.slice(at, (at += g.lens[i]!)));
      glyphs.font.push(font);
    }
    nums.push(g.num);
  }
  if (content.glyphs) {
    const num = (content.glyphs.num = new Float64Array(content.glyphs.text.length * GLYPH_STRIDE));
    let at = 0;
    for (const n of nums) {
      num.set(n, at);
      at += n.length;
    }
  }
  return content;
}

const r2 = (n: number) => Math.round(n * 100) / 100;
const r3 = (n: number) => Math.round(n * 1000) / 1000;

/** The document's text, built as parts (not `+=` with look-backs, which would flatten a growing string per item). */
class TextBuilder {
  readonly parts: string[] = [];
  length = 0;
  /** The last character appended. */
  last = '';
  /** Where the text ends now, to go back to (a page's text layer replaced by its OCR). */
  mark(): { parts: number; length: number; last: string } {
    return { parts: this.parts.length, length: this.length, last: this.last };
  }
  rollback(m: { parts: number; length: number; last: string }): void {
    this.parts.length = m.parts;
    this.length = m.length;
    this.last = m.last;
  }
  append(s: string): void {
    if (!s) return;
    this.parts.push(s);
    this.length += s.length;
    this.last = s[s.length - 1]!;
  }
}

type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;
type PdfPage = Awaited<ReturnType<PdfDocument['getPage']>>;

/** What one document's pages share: glyph widths, each font's metrics, the PDF's font descriptors (read once, when needed). */
interface FontState {
  bytes: Uint8Array;
  glyphWidths: GlyphWidths;
  /** pdf.js font → poppler's [ascent, descent] (null: unknown). */
  metrics: Map<string, [number, number] | null>;
  descriptors?: FontDescriptorInfo[];
}

export async function loadPdf(bytes: Uint8Array, options: LoadOptions = {}): Promise<ParsedDoc> {
  const pdfjs = await loadPdfJs();
  // Text and glyphs come from pdf.js's text pass, which steps over images without decoding them
  // (a scan's JPEG under its text layer costs nothing until OCR draws the page).
  const { task, doc } = await openPdf(pdfjs, bytes, options);
  // Everything below ends with task.destroy(), which also frees the document.
  try {
    const total = doc.numPages;
    const maxPages = options.maxPages ?? DEFAULT_LIMITS.maxPages;
    if (total > maxPages) {
      throw new LoadError(
        'failed',
        `too many pages (${total.toLocaleString('en-US')}; the limit is ${maxPages.toLocaleString('en-US')}): split the file.${raiseHint('maxPages')}`,
      );
    }
    // The page count is known as soon as the document is open: report it before the first page.
    if (total > 0) options.onPage?.(0, total);
    const out = new TextBuilder();
    const fontState: FontState = { bytes, glyphWidths: new Map(), metrics: new Map() };
    const pages: PageGeometry[] = [];
    const emptyPages: number[] = [];
    let brokenPages = 0;
    for (let n = 1; n <= total; n++) {
      checkAbort(options.signal);
      if (n > 1) out.append('\n\n');
      const start = out.length;
      let read: PageRead;
      const mark = out.mark();
      try {
        const page = await doc.getPage(n);
        read = await readPage(page, n, out, fontState);
        if (options.ocr) read = await withOcr(pdfjs, page, n, total, out, mark, read, options.ocr, options.signal);
      } catch (err) {
        if ((err as Error).name === 'AbortError' || options.signal?.aborted) throw err;
        // One unreadable page does not lose the document: it counts as a page without text (and
        // whatever of it was read before the failure goes, so the text matches the page ranges).
        out.rollback(mark);
        brokenPages++;
        read = { geometry: emptyPage(n, start, start), hasText: false };
      }
      if (!read.hasText) emptyPages.push(n);
      pages.push(read.geometry);
      options.onPage?.(n, total);
      // Let messages (cancel) through between pages.
      await new Promise<void>((r) => setImmediate(r));
    }
    return finishPdf(out, pages, emptyPages, brokenPages, options.ocr !== undefined);
  } finally {
    await task.destroy().catch(() => {});
  }
}

/** A page as read: its geometry; for a page with a text layer, that text. */
interface PageRead {
  geometry: PageGeometry;
  hasText: boolean;
  text?: string;
}

/**
 * OCR where the page needs it: a page without text, or whose text layer is a stamp on a scan or
 * garbage (reader/text-quality.ts) — then the OCR'd text replaces the layer if it reads better.
 */
async function withOcr(
  pdfjs: PdfJs,
  page: PdfPage,
  n: number,
  total: number,
  out: TextBuilder,
  mark: ReturnType<TextBuilder['mark']>,
  read: PageRead,
  ocr: OcrOptions,
  signal?: AbortSignal,
): Promise<PageRead> {
  const weak = read.hasText ? weakTextLayer(read.text ?? '', true) : 'empty';
  if (!weak) return read;
  try {
    // A few characters are a stamp on a scan only where the page draws an image.
    if (weak === 'sparse' && !(await drawsImage(pdfjs, page))) return read;
    const result = await ocrPageKept(page, n, total, ocr, signal);
    if (read.hasText && !ocrIsBetter(result.text, read.text ?? '')) return read;
    out.rollback(mark);
    return placeOcr(page, n, out, result);
  } finally {
    page.cleanup();
  }
}

/** Whether the page draws an image (its operator list, images decoded: the page is drawn next). */
async function drawsImage(pdfjs: PdfJs, page: PdfPage): Promise<boolean> {
  const { OPS } = pdfjs;
  const images = new Set<number>([
    OPS.paintImageXObject,
    OPS.paintInlineImageXObject,
    OPS.paintImageMaskXObject,
    OPS.paintImageXObjectRepeat,
  ]);
  const ops = await page.getOperatorList({ annotationMode: pdfjs.AnnotationMode.DISABLE });
  return ops.fnArray.some((f) => images.has(f));
}

/** Page `n` as OCR read it, into `out`: its geometry holds one item per word, in the OCR font. */
function placeOcr(page: PdfPage, n: number, out: TextBuilder, read: OcrPageResult): PageRead {
  const start = out.length;
  const view = page.view;
  const geometry: PageGeometry = {
    page: n,
    start,
    end: start,
    view: [r2(view[0]!), r2(view[1]!), r2(view[2]!), r2(view[3]!)],
    rotate: page.rotate,
    fonts: [OCR_FONT],
    items: [],
    ocr: { confidence: Math.round(read.confidence) },
  };
  if (!read.words) return { geometry, hasText: false };
  out.append(read.text);
  geometry.end = out.length;
  for (let k = 0; k < read.items.length; k += ITEM_STRIDE)
    geometry.items.push(read.items[k]! + start, ...read.items.slice(k + 1, k + ITEM_STRIDE));
  return { geometry, hasText: true };
}

/** Whether `password` opens the protected PDF `bytes` (false: it does not; other failures throw). */
export async function pdfPasswordOpens(bytes: Uint8Array, password: string): Promise<boolean> {
  const pdfjs = await loadPdfJs();
  try {
    const { task } = await openPdf(pdfjs, bytes, { password });
    await task.destroy().catch(() => {});
    return true;
  } catch (err) {
    if (err instanceof LoadError && err.locked) return false;
    throw err;
  }
}

/** Open the document, or fail with the reason a user can act on (password, damage). */
async function openPdf(pdfjs: PdfJs, bytes: Uint8Array, options: LoadOptions) {
  const task = pdfjs.getDocument({
    // pdf.js takes ownership of (and may detach) the buffer it is given: pass a copy.
    data: new Uint8Array(bytes),
    // pdf.js 6 removed `isEvalSupported` together with its eval code path (nothing to turn off).
    ...pdfjsDataOptions(),
    maxImageSize: options.maxImagePixels ?? DEFAULT_LIMITS.maxImagePixels,
    ...(options.password !== undefined ? { password: options.password } : {}),
    ...(options.standardFontDataUrl ? { standardFontDataUrl: options.standardFontDataUrl } : {}),
    verbosity: readConfig().pdfjsVerbose ? pdfjs.VerbosityLevel.INFOS : pdfjs.VerbosityLevel.ERRORS,
  });
  try {
    return { task, doc: await task.promise };
  } catch (err) {
    await task.destroy().catch(() => {});
    const name = (err as { name?: string }).name;
    if (name === 'PasswordException') {
      const wrong =
        options.password !== undefined &&
        (err as { code?: number }).code === pdfjs.PasswordResponses.INCORRECT_PASSWORD;
      throw new LoadError(
        'failed',
        wrong ? 'password protected, and the password given does not open it — enter it again' : LOCKED_REASON,
        0,
        true,
      );
    }
    if (name === 'InvalidPDFException')
      throw new LoadError('failed', `damaged or incomplete PDF, it could not be opened (${plain(err)})`);
    throw new LoadError('failed', `the PDF could not be opened (${plain(err)})`);
  }
}

/** Append page `n`'s text to `out` and return its geometry (glyph widths and font metrics where it shows text). */
async function readPage(page: PdfPage, n: number, out: TextBuilder, fontState: FontState): Promise<PageRead> {
  const start = out.length;
  const pageParts = out.parts.length;
  const content = await readTextContent(page);
  const fonts: PageGeometry['fonts'] = [];
  const fontIndex = new Map<string, number>();
  const items: number[] = [];
  let prev: RawItem | undefined;
  let prevEOL = true;
  let pageEnd = start;
  let pageHasText = false;
  for (const it of content.items) {
    if (!('str' in it)) continue;
    const item = it as RawItem;
    if (item.str === '') {
      if (item.hasEOL && out.length > start && out.last !== '\n') out.append('\n');
      prevEOL = prevEOL || item.hasEOL;
      continue;
    }
    if (prev && out.length > start) out.append(separatorBetween(prev, item, prevEOL, out.last));
    let fi = fontIndex.get(item.fontName);
    if (fi === undefined) {
      const style = content.styles[item.fontName];
      fi = fonts.length;
      fonts.push([
        r2(style?.ascent ?? 0.8),
        r2(style?.descent ?? -0.2),
        style?.vertical ? 1 : 0,
        familyCode(style?.fontFamily),
      ]);
      fontIndex.set(item.fontName, fi);
    }
    const t = item.transform;
    items.push(
      out.length,
      item.str.length,
      r2(t[0]!),
      r2(t[1]!),
      r2(t[2]!),
      r2(t[3]!),
      r2(t[4]!),
      r2(t[5]!),
      r2(item.width),
      r2(item.height),
      fi,
    );
    out.append(item.str);
    if (/\S/.test(item.str)) {
      pageHasText = true;
      pageEnd = out.length;
    }
    if (item.hasEOL) out.append('\n');
    prev = item;
    prevEOL = item.hasEOL;
  }
  // A page's range ends at its last visible character; trailing breaks fall between pages.
  const view = page.view;
  const geometry: PageGeometry = {
    page: n,
    start,
    end: pageEnd,
    view: [r2(view[0]!), r2(view[1]!), r2(view[2]!), r2(view[3]!)],
    rotate: page.rotate,
    fonts,
    items,
  };
  if (!pageHasText) {
    page.cleanup();
    return { geometry, hasText: false };
  }
  const pageText = out.parts.slice(pageParts).join('');
  const glyphs = readGlyphs(content.glyphs, fontState.glyphWidths, geometry, [...fontIndex.keys()], pageText);
  // The page's own glyphs are every character its fonts show here.
  geometry.widths = widthTable(glyphs, fontState.glyphWidths);
  if (glyphs.bounds) setStops(geometry, glyphs.bounds, pageText);
  addFontMetrics(content.styles, fontIndex, fonts, fontState);
  page.cleanup();
  return { geometry, hasText: true, text: pageText };
}

/** Poppler's ascent and descent of each font of the page, where its descriptor gives them. */
function addFontMetrics(
  styles: Record<string, RawStyle>,
  fontIndex: Map<string, number>,
  fonts: PageGeometry['fonts'],
  state: FontState,
): void {
  for (const [name, fi] of fontIndex) {
    if (!state.metrics.has(name)) {
      const info = styles[name]?.font;
      if (!info) continue;
      state.descriptors ??= readFontDescriptors(state.bytes);
      state.metrics.set(name, popplerMetrics(info, state.descriptors) ?? null);
    }
    const m = state.metrics.get(name);
    const f = fonts[fi]!;
    if (m) fonts[fi] = [f[0], f[1], f[2], f[3] ?? 0, r3(m[0]), r3(m[1])];
  }
}

/** The parsed document, or the reason it has no text (no pages, every page broken, scanned). */
function finishPdf(
  out: TextBuilder,
  pages: PageGeometry[],
  emptyPages: number[],
  brokenPages: number,
  ocrTried: boolean,
): ParsedDoc {
  const total = pages.length;
  const readable = total - emptyPages.length;
  if (total === 0) throw new LoadError('failed', 'the PDF has no pages');
  if (readable === 0 && brokenPages === total)
    throw new LoadError(
      'failed',
      `damaged PDF: none of its ${total === 1 ? 'page' : `${total.toLocaleString('en-US')} pages`} could be read — ask for a new copy`,
    );
  if (readable === 0 && ocrTried)
    throw new LoadError(
      'failed',
      `no text found, even by OCR: ${total === 1 ? 'the page looks' : 'the pages look'} blank, or the scan is too faint or small to read — check the original, or scan it again at 300 dpi`,
      total,
    );
  if (readable === 0)
    throw new LoadError(
      'needs_ocr',
      'scanned pages without a text layer — turn on OCR in the case settings to make it searchable',
      total,
    );
  // Trailing line breaks after the last page carry nothing.
  const text = out.parts.join('').replace(/\s+$/, '');
  for (const p of pages) {
    p.start = Math.min(p.start, text.length);
    p.end = Math.min(p.end, text.length);
  }
  return { kind: 'pdf', text, index: { kind: 'pdf', format: PAGES_FORMAT, pages }, emptyPages };
}

/** Per pdf.js font (loadedName, stable within a document): character → advance width in 1/1000 em. */
type GlyphWidths = Map<string, Map<string, number>>;

/** A page's fonts (pdf.js names, in `fonts` order) and the characters each draws. */
interface PageFonts {
  geometry: PageGeometry;
  names: string[];
  used: Set<string>[];
  /** Item ordinal → exact character boundaries, from the glyphs. */
  bounds?: Map<number, ItemGlyphs>;
}

/**
 * From a page's glyphs (the text pass's, patches/): learn the real advance widths of the characters
 * its fonts draw (each glyph carries its unicode and width from the font program or the PDF's
 * /Widths), and find the exact word boundaries inside each text item. This is what makes citation
 * boxes land on the words; without glyphs, positions inside items are estimated.
 */
function readGlyphs(
  glyphs: PageGlyphs | undefined,
  known: GlyphWidths,
  geometry: PageGeometry,
  names: string[],
  pageText: string,
): PageFonts {
  const { fonts, items } = geometry;
  const used: Set<string>[] = fonts.map(() => new Set());
  for (let k = 0; k + ITEM_STRIDE <= items.length; k += ITEM_STRIDE) {
    const fi = items[k + 10]!;
    if (fonts[fi]![2]) continue;
    const from = items[k]! - geometry.start;
    for (const ch of pageText.slice(from, from + items[k + 1]!)) used[fi]!.add(/\s/.test(ch) ? ' ' : ch);
  }
  // Fonts of this page whose glyphs give no width still count as seen.
  for (const name of names) if (!known.has(name)) known.set(name, new Map());
  if (!glyphs) return { geometry, names, used };
  for (let i = 0; i < glyphs.text.length; i++) {
    const width = glyphs.num[i * GLYPH_STRIDE]!;
    if (width < 0) continue;
    const font = glyphs.font[i]!;
    const text = glyphs.text[i]!;
    let m = known.get(font);
    if (!m) known.set(font, (m = new Map()));
    // Most glyphs are one character already known (the first width met is kept).
    if (m.has(text)) continue;
    // A ligature glyph ("ﬁ") becomes several characters of text: share its width.
    const chars = [...text.normalize('NFKC')];
    for (const ch of chars) if (!m.has(ch)) m.set(/\s/.test(ch) ? ' ' : ch, width / chars.length);
  }
  const bounds = alignItems(glyphs, items, ITEM_STRIDE, pageText, geometry.start, (fi) => !!fonts[fi]?.[2]);
  return { geometry, names, used, bounds };
}

/**
 * Per font of a page, the widths (1/1000 em, 0.1 precision) of the characters it draws there; 0
 * where none are known, for vertical fonts, and where all are equal (monospace: equal shares are
 * exact). Characters still without a width are estimated when boxes are drawn.
 */
function widthTable({ geometry, names, used }: PageFonts, known: GlyphWidths): (Record<string, number> | 0)[] {
  return names.map((name, fi) => {
    const m = known.get(name);
    if (!m || geometry.fonts[fi]![2]) return 0;
    const out: Record<string, number> = {};
    const seen = new Set<number>();
    for (const ch of used[fi]!) {
      const w = m.get(ch);
      if (w === undefined) continue;
      out[ch] = Math.round(w * 10) / 10;
      seen.add(out[ch]);
    }
    return seen.size > 1 ? out : 0;
  });
}

/**
 * How far (user space units, ≈ points) the inline model may place a boundary from where its glyphs
 * are: at a word's start or end, and between two characters of a word (kerning inside words is
 * left to the model unless it adds up).
 */
const STOP_TOLERANCE = { word: 0.4, inner: 1.5 };

/**
 * Store, per item, the fewest stops that bring every known word boundary within STOP_TOLERANCE of
 * the model (the same one citations draw with: the page's width tables, the stored item values),
 * and where its base line moves.
 */
function setStops(geometry: PageGeometry, bounds: Map<number, ItemGlyphs>, pageText: string): void {
  const { items, fonts, widths } = geometry;
  const flat: number[] = [];
  const lifts: number[] = [];
  for (const [ordinal, { bounds: exact, lifts: moves }] of bounds) {
    for (const [i, dy, size] of moves) lifts.push(ordinal, i, dy, size);
    const k = ordinal * ITEM_STRIDE;
    const [s, len, a, b, width, fi] = [
      items[k]! - geometry.start,
      items[k + 1]!,
      items[k + 2]!,
      items[k + 3]!,
      items[k + 8]!,
      items[k + 10]!,
    ];
    const real = widths?.[fi];
    const model = inlineModel(pageText, s, len, width, Math.hypot(a, b) || 1, fonts[fi]?.[3] ?? 0, real || undefined);
    for (const [i, x] of chooseStops(model, exact, STOP_TOLERANCE)) flat.push(ordinal, i, r2(x));
  }
  if (flat.length) geometry.stops = flat;
  if (lifts.length) geometry.lifts = lifts;
}

/** 0 sans-serif (and unknown), 1 serif, 2 monospace — picks the width table used to place characters inside an item. */
function familyCode(family: string | undefined): number {
  const f = (family ?? '').toLowerCase();
  if (f.includes('mono') || f.includes('courier')) return 2;
  if (f.includes('sans')) return 0;
  if (f.includes('serif') || f.includes('times')) return 1;
  return 0;
}

/** What goes between two consecutive text items: nothing, a space or a line break. */
function separatorBetween(prev: RawItem, item: RawItem, prevEOL: boolean, last: string): string {
  if (prevEOL) return last === '\n' ? '' : '\n';
  const [a, b] = prev.transform as [number, number, number, number, number, number];
  const scale = Math.hypot(a, b) || 1;
  const ux = a / scale;
  const uy = b / scale;
  const dx = item.transform[4]! - prev.transform[4]!;
  const dy = item.transform[5]! - prev.transform[5]!;
  const along = dx * ux + dy * uy;
  const across = -dx * uy + dy * ux;
  const size = Math.max(prev.height, item.height, 1);
  const endsSpace = /\s/.test(last);
  const startsSpace = /^\s/.test(item.str);
  if (Math.abs(across) > size * 0.5) return endsSpace || startsSpace ? '' : '\n';
  const gap = along - prev.width;
  if (gap < -size) return endsSpace || startsSpace ? '' : '\n'; // jumped back on the same baseline: a new column/line
  if (gap > size * 0.15 && !endsSpace && !startsSpace) return ' ';
  return '';
}
