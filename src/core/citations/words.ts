/**
 * The words of one PDF page and where they are drawn, as fractions of the page image: the source
 * viewer's selectable text layer and the boxes around found words. From the geometry stored at
 * ingest (no PDF parsing, no rendering), so OCR'd pages have it too.
 */
import type { PageWord, PageWords } from '../../shared/contract/viewer';
import { CasefileError } from '../../shared/errors';
import type { CaseDocuments } from '../documents/index';
import type { PageGeometry } from '../domain/index';
import { pageSpanRects, type Rect } from './geometry';

type Matrix = [number, number, number, number, number, number];

/**
 * pdf.js's viewport at scale 1 (PageViewport, not flipped): the transform from PDF user space to
 * the page image's pixels, and the image's size. The page image is this viewport at some scale.
 */
export function pageViewport(
  view: [number, number, number, number],
  rotate: number,
): { transform: Matrix; width: number; height: number } {
  const [x0, y0, x1, y1] = view;
  const cx = (x0 + x1) / 2;
  const cy = (y0 + y1) / 2;
  const r = ((rotate % 360) + 360) % 360;
  const [a, b, c, d] = r === 90 ? [0, 1, 1, 0] : r === 180 ? [-1, 0, 0, 1] : r === 270 ? [0, -1, -1, 0] : [1, 0, 0, -1];
  const sideways = a === 0;
  const offX = Math.abs(sideways ? cy - y0 : cx - x0);
  const offY = Math.abs(sideways ? cx - x0 : cy - y0);
  const w = Math.abs(x1 - x0);
  const h = Math.abs(y1 - y0);
  return {
    transform: [a, b, c, d, offX - a * cx - c * cy, offY - b * cx - d * cy],
    width: sideways ? h : w,
    height: sideways ? w : h,
  };
}

const round = (n: number) => Math.round(n * 1e5) / 1e5;

/** A user-space rectangle as fractions of the page image (through the viewport, rotation included). */
function toFractions(r: Rect, vp: ReturnType<typeof pageViewport>): Rect {
  const [a, b, c, d, e, f] = vp.transform;
  const px = (x: number, y: number) => [a * x + c * y + e, b * x + d * y + f] as const;
  const [x1, y1] = px(r.x, r.y);
  const [x2, y2] = px(r.x + r.width, r.y + r.height);
  return {
    x: round(Math.min(x1, x2) / vp.width),
    y: round(Math.min(y1, y2) / vp.height),
    width: round(Math.abs(x2 - x1) / vp.width),
    height: round(Math.abs(y2 - y1) / vp.height),
  };
}

/** The bounding box of a word's line fragments (one, unless the word is drawn in pieces). */
function union(rects: Rect[]): Rect {
  const x = Math.min(...rects.map((r) => r.x));
  const y = Math.min(...rects.map((r) => r.y));
  return {
    x,
    y,
    width: Math.max(...rects.map((r) => r.x + r.width)) - x,
    height: Math.max(...rects.map((r) => r.y + r.height)) - y,
  };
}

/** Each whitespace-separated word of the page's text that is drawn on it, with its box. */
export function wordsOfPage(page: PageGeometry, text: string): PageWord[] {
  const vp = pageViewport(page.view, page.rotate);
  const words: PageWord[] = [];
  const re = /\S+/g;
  const slice = text.slice(page.start, page.end);
  for (let m = re.exec(slice); m; m = re.exec(slice)) {
    const start = page.start + m.index;
    const end = start + m[0].length;
    const rects = pageSpanRects(page, start, end, text);
    if (!rects.length) continue;
    const box = toFractions(rects.length === 1 ? rects[0]! : union(rects), vp);
    if (box.width <= 0 || box.height <= 0) continue;
    words.push({ text: m[0], start, end, ...box });
  }
  return words;
}

/** `citations.words`: the words of one page of a PDF (or image read as one) with their boxes. */
export async function pageWords(
  docs: CaseDocuments,
  args: { file_id: string; version?: number | undefined; page: number },
): Promise<PageWords> {
  const { file, version } = await docs.resolve(args.file_id, args.version);
  if (version.kind !== 'pdf' && version.kind !== 'image') {
    throw new CasefileError('invalid_input', `${file.name} is not a PDF; it has no pages to draw words on.`, [
      { field: 'file_id', message: 'must be a PDF file' },
    ]);
  }
  const [text, index] = await Promise.all([
    docs.getText(args.file_id, version.version),
    docs.getPages(args.file_id, version.version),
  ]);
  const page = index.pages.find((p) => p.page === args.page);
  if (!page) {
    throw new CasefileError(
      'invalid_input',
      `${file.name} has ${index.pages.length} page${index.pages.length === 1 ? '' : 's'}; there is no page ${args.page}.`,
      [{ field: 'page', message: `must be between 1 and ${index.pages.length}` }],
    );
  }
  return {
    file_id: file.id,
    version: version.version,
    page: args.page,
    page_count: index.pages.length,
    words: index.kind === 'pdf' ? wordsOfPage(page, text) : [],
  };
}
