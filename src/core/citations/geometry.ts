import { inlineModel, inlineOffset, type Stop } from '../reader/index';
import { ITEM_STRIDE, type PageGeometry, type PageIndex } from '../domain/index';

/** An axis-aligned rectangle in PDF user space (origin bottom-left, y up), as stored at ingest. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The rectangles of a character span on one page, with what is needed to draw them. */
export interface PageRects {
  /** 1-based page number. */
  page: number;
  /** Page view box [x0, y0, x1, y1] in PDF user space and /Rotate in degrees (pdf.js `page.view` / `page.rotate`). */
  view: [number, number, number, number];
  rotate: number;
  /** One rectangle per line fragment of the span, merged along each line. */
  rects: Rect[];
}

const DEFAULT_ASCENT = 0.75;
const DEFAULT_DESCENT = -0.21;
const MAX_ASCENT = 0.75;
const MAX_DESCENT = -0.22;

/**
 * Map the character range [start, end) of a document's text to (page, rectangles) using the
 * geometry stored at ingest — no PDF parsing. Within a text item, character positions come from
 * the inline model (the font's advance widths, the rest of the item's width shared out) pinned by
 * the exact word boundaries stored at ingest (format 3). Whitespace-only fragments are left out when
 * `text` (the document text) is given. Pages without geometry (DOCX/text) yield no pages.
 */
export function spanToRects(index: PageIndex, start: number, end: number, text?: string): PageRects[] {
  const out: PageRects[] = [];
  if (index.kind !== 'pdf' || end <= start) return out;
  for (const page of index.pages) {
    // Only pages the span touches (their items all lie within the page's text range).
    if (page.items.length === 0 || page.end <= start || page.start >= end) continue;
    const rects = pageRects(page, start, end, text);
    if (rects.length) out.push({ page: page.page, view: page.view, rotate: page.rotate, rects: mergeLines(rects) });
  }
  return out;
}

/** The rectangles of [start, end) on one page (PDF user space), merged into one per line fragment. */
export function pageSpanRects(page: PageGeometry, start: number, end: number, text: string): Rect[] {
  return end > start && page.items.length ? mergeLines(pageRects(page, start, end, text)) : [];
}

/**
 * The rectangles of [start, end) on one page, one per item piece it touches. Long on purpose: one
 * loop over the page's flat item array (ITEM_STRIDE numbers per item) that works out, per item and
 * from the same dozen locals (its matrix, direction vectors and size), the box height from the font
 * metrics, the span's ends along the line (the inline model pinned by the stored stops) and the
 * pieces where the base line lifts; its tests compare every box with poppler's
 * (test/ingest/geometry.test.ts, test/server/viewer-corpus.test.ts).
 */
function pageRects(page: PageGeometry, start: number, end: number, text?: string): Rect[] {
  const rects: Rect[] = [];
  const it = page.items;
  const stops = text ? byItem(page.stops, 3) : undefined;
  const lifts = text ? byItem(page.lifts, 4) : undefined;
  for (let k = 0; k + ITEM_STRIDE <= it.length; k += ITEM_STRIDE) {
    const s = it[k]!;
    const len = it[k + 1]!;
    if (s + len <= start || s >= end || len === 0) continue;
    let from = Math.max(start, s);
    let to = Math.min(end, s + len);
    if (text) {
      while (from < to && /\s/.test(text[from]!)) from++;
      while (to > from && /\s/.test(text[to - 1]!)) to--;
      if (to <= from) continue;
    }
    const [a, b, c, d, e, f, width, height, font] = [
      it[k + 2]!,
      it[k + 3]!,
      it[k + 4]!,
      it[k + 5]!,
      it[k + 6]!,
      it[k + 7]!,
      it[k + 8]!,
      it[k + 9]!,
      it[k + 10]!,
    ];
    const [ascent0, descent0, vertical, family = 0, boxAscent, boxDescent] = page.fonts[font] ?? [
      DEFAULT_ASCENT,
      DEFAULT_DESCENT,
      0,
      0,
    ];
    // The FontDescriptor's ascent/descent, stored at ingest: boxes exactly as tall as poppler's
    // (base line + ascent × size down to base line + descent × size).
    // Older data (or a descriptor that could not be read): pdf.js's metrics, the font file's
    // extremes (often the bbox: 0.9–1.0 up, 0.3 down), capped to typographic ascender/descender so
    // boxes hug the words; fonts without metrics report 0/0 and get the usual proportions.
    const known = boxAscent !== undefined && boxDescent !== undefined;
    const ascent = known ? boxAscent : Math.min(ascent0 > 0 ? ascent0 : DEFAULT_ASCENT, MAX_ASCENT);
    const descent = known ? boxDescent : Math.max(ascent0 > 0 ? Math.min(descent0, 0) : DEFAULT_DESCENT, MAX_DESCENT);
    const sa = Math.hypot(a, b) || 1;
    const sc = Math.hypot(c, d) || 1;
    // Text direction u and "up" direction n in user space.
    const ux = a / sa;
    const uy = b / sa;
    const nx = c / sc;
    const ny = d / sc;
    const size = height || sc;
    // Offsets of the span's ends along the item: the inline model, pinned by the stops stored at
    // ingest from the page's exact glyph positions (format 3).
    const real = page.widths?.[font];
    const model = text ? inlineModel(text, s, len, width, sa, family, real && !vertical ? real : undefined) : undefined;
    const pinned = vertical ? undefined : (stops?.get(k / ITEM_STRIDE) as Stop[] | undefined);
    const offset = (i: number) => (model ? inlineOffset(model, i - s, pinned) : (width * (i - s)) / len);
    // Where the base line moves or the size changes inside the item (format 3), the span is drawn piece by piece.
    const moves = vertical ? undefined : lifts?.get(k / ITEM_STRIDE);
    const pieces: [from: number, to: number, dy: number, size: number][] = [];
    if (!moves || !text) pieces.push([from, to, 0, size]);
    else {
      let dy = 0;
      let em = size;
      let at = from;
      for (const [i, lift, liftSize] of moves as [number, number, number][]) {
        if (s + i <= from) [dy, em] = [lift, liftSize];
        else if (s + i < to) {
          pieces.push([at, s + i, dy, em]);
          at = s + i;
          [dy, em] = [lift, liftSize];
        }
      }
      pieces.push([at, to, dy, em]);
    }
    for (const [p0, p1, dy, em] of pieces) {
      let a0 = p0;
      let a1 = p1;
      if (text) {
        while (a0 < a1 && /\s/.test(text[a0]!)) a0++;
        while (a1 > a0 && /\s/.test(text[a1 - 1]!)) a1--;
      }
      if (a1 <= a0) continue;
      const x0 = offset(a0);
      const x1 = offset(a1);
      let corners: [number, number][];
      if (vertical) {
        // Vertical text runs downwards along -n; its width spans the glyph box across.
        const y0 = -x0;
        const y1 = -x1;
        corners = [
          [e + nx * y0 - ux * size * 0.5, f + ny * y0 - uy * size * 0.5],
          [e + nx * y0 + ux * size * 0.5, f + ny * y0 + uy * size * 0.5],
          [e + nx * y1 - ux * size * 0.5, f + ny * y1 - uy * size * 0.5],
          [e + nx * y1 + ux * size * 0.5, f + ny * y1 + uy * size * 0.5],
        ];
      } else {
        const top = em * ascent + dy;
        const bottom = em * descent + dy;
        corners = [
          [e + ux * x0 + nx * bottom, f + uy * x0 + ny * bottom],
          [e + ux * x1 + nx * bottom, f + uy * x1 + ny * bottom],
          [e + ux * x0 + nx * top, f + uy * x0 + ny * top],
          [e + ux * x1 + nx * top, f + uy * x1 + ny * top],
        ];
      }
      const xs = corners.map((p) => p[0]);
      const ys = corners.map((p) => p[1]);
      const x = Math.min(...xs);
      const y = Math.min(...ys);
      rects.push({ x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y });
    }
  }
  return rects;
}

/** A page's stops (stride 3) or lifts (stride 4), stored flat as [item, character, values…], by item ordinal, sorted by character. */
function byItem(flat: number[] | undefined, stride: number): Map<number, number[][]> | undefined {
  if (!flat?.length) return undefined;
  const out = new Map<number, number[][]>();
  for (let j = 0; j + stride <= flat.length; j += stride) {
    const list = out.get(flat[j]!) ?? [];
    list.push(flat.slice(j + 1, j + stride));
    out.set(flat[j]!, list);
  }
  for (const list of out.values()) list.sort((p, q) => p[0]! - q[0]!);
  return out;
}

/** Merge rectangles that sit on the same line and touch or nearly touch into one per line fragment. */
function mergeLines(rects: Rect[]): Rect[] {
  const out: Rect[] = [];
  for (const r of rects) {
    const prev = out[out.length - 1];
    if (prev) {
      const overlapY = Math.min(prev.y + prev.height, r.y + r.height) - Math.max(prev.y, r.y);
      const minH = Math.min(prev.height, r.height) || 1;
      const gap = Math.max(r.x - (prev.x + prev.width), prev.x - (r.x + r.width));
      if (overlapY >= 0.5 * minH && gap <= Math.max(prev.height, r.height) * 1.2) {
        const x = Math.min(prev.x, r.x);
        const y = Math.min(prev.y, r.y);
        prev.width = Math.max(prev.x + prev.width, r.x + r.width) - x;
        prev.height = Math.max(prev.y + prev.height, r.y + r.height) - y;
        prev.x = x;
        prev.y = y;
        continue;
      }
    }
    out.push({ ...r });
  }
  return out.map((r) => ({ x: round(r.x), y: round(r.y), width: round(r.width), height: round(r.height) }));
}

const round = (n: number) => Math.round(n * 100) / 100;
