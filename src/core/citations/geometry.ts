import { ITEM_STRIDE, type PageGeometry, type PageIndex } from '../ingest/types';

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
 * geometry stored at ingest — no PDF parsing. Within a text item, character positions are
 * interpolated in proportion to the item's width. Whitespace-only fragments are left out when
 * `text` (the document text) is given. Pages without geometry (DOCX/text) yield no pages.
 */
export function spanToRects(index: PageIndex, start: number, end: number, text?: string): PageRects[] {
  const out: PageRects[] = [];
  if (index.kind !== 'pdf' || end <= start) return out;
  for (const page of index.pages) {
    if (page.items.length === 0) continue;
    const rects = pageRects(page, start, end, text);
    if (rects.length) out.push({ page: page.page, view: page.view, rotate: page.rotate, rects: mergeLines(rects) });
  }
  return out;
}

function pageRects(page: PageGeometry, start: number, end: number, text?: string): Rect[] {
  const rects: Rect[] = [];
  const it = page.items;
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
    const [a, b, c, d, e, f, width, height, font] = [it[k + 2]!, it[k + 3]!, it[k + 4]!, it[k + 5]!, it[k + 6]!, it[k + 7]!, it[k + 8]!, it[k + 9]!, it[k + 10]!];
    const [ascent0, descent0, vertical, family = 0, boxAscent, boxDescent] = page.fonts[font] ?? [DEFAULT_ASCENT, DEFAULT_DESCENT, 0, 0];
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
    const real = page.widths?.[font];
    const [f0, f1] = !text
      ? [(from - s) / len, (to - s) / len]
      : real && !vertical
        ? realFractions(text, s, len, from, to, real, width, sa, family)
        : weightedFractions(text, s, len, from, to, family);
    let corners: [number, number][];
    if (vertical) {
      // Vertical text runs downwards along -n; its width spans the glyph box across.
      const y0 = -width * f0;
      const y1 = -width * f1;
      corners = [
        [e + nx * y0 - ux * size * 0.5, f + ny * y0 - uy * size * 0.5],
        [e + nx * y0 + ux * size * 0.5, f + ny * y0 + uy * size * 0.5],
        [e + nx * y1 - ux * size * 0.5, f + ny * y1 - uy * size * 0.5],
        [e + nx * y1 + ux * size * 0.5, f + ny * y1 + uy * size * 0.5],
      ];
    } else {
      const x0 = width * f0;
      const x1 = width * f1;
      const top = size * ascent;
      const bottom = size * descent;
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
  return rects;
}

/**
 * Where characters [from, to) sit within the item [s, s+len), as fractions of its width, from the
 * font's real advance widths stored at ingest (1/1000 em; `size` is the em in user space along the
 * line, the item's transform scale).
 */
function realFractions(
  text: string,
  s: number,
  len: number,
  from: number,
  to: number,
  widths: Record<string, number>,
  width: number,
  size: number,
  family: number,
): [number, number] {
  const table = family === 1 ? TIMES : HELVETICA;
  const adv: number[] = new Array<number>(len);
  let natural = 0;
  for (let i = 0; i < len; i++) {
    const ch = text[s + i]!;
    const space = /\s/.test(ch);
    let w = widths[space ? ' ' : ch];
    if (w === undefined) {
      // A character the font table lacks (a space the font never draws, half of a surrogate pair): its standard width.
      const code = space ? 32 : ch.charCodeAt(0);
      w = code >= 32 && code < 127 ? table[code - 32]! : code >= 0xd800 && code < 0xe000 ? 0 : 556;
    }
    adv[i] = (w / 1000) * size;
    natural += adv[i]!;
  }
  if (natural <= 0 || width <= 0) return weightedFractions(text, s, len, from, to, family);
  // What the item's width holds beyond the advances (character and word spacing, justification)
  // is shared out evenly per character, as the PDF's character spacing is.
  const extra = (width - natural) / len;
  let before = 0;
  let inside = 0;
  for (let i = 0; i < len; i++) {
    const a = adv[i]! + extra;
    if (s + i < from) before += a;
    else if (s + i < to) inside += a;
  }
  return [before / width, (before + inside) / width];
}

/**
 * Where characters [from, to) sit within the item [s, s+len), as fractions of its width. Glyph
 * widths are not stored (pages.json format 1); they are estimated from the standard font metrics of the item's family
 * (Helvetica for sans-serif, Times for serif, equal widths for monospace), which places words
 * inside a line far better than equal widths.
 */
function weightedFractions(text: string, s: number, len: number, from: number, to: number, family: number): [number, number] {
  if (family === 2) return [(from - s) / len, (to - s) / len];
  const table = family === 1 ? TIMES : HELVETICA;
  let before = 0;
  let inside = 0;
  let total = 0;
  for (let i = s; i < s + len; i++) {
    const code = text.charCodeAt(i);
    const w = code >= 32 && code < 127 ? table[code - 32]! : code >= 0x3000 ? 1000 : family === 1 ? 500 : 556;
    total += w;
    if (i < from) before += w;
    else if (i < to) inside += w;
  }
  if (total <= 0) return [(from - s) / len, (to - s) / len];
  return [before / total, (before + inside) / total];
}

/** Advance widths (1/1000 em) of ASCII 32–126 in Helvetica and Times-Roman (Adobe AFM metrics, as pdf.js ships them). */
const HELVETICA = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667,
  667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500,
  556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];
const TIMES = [
  250, 333, 408, 500, 500, 833, 778, 180, 333, 333, 500, 564, 250, 333, 250, 278, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 278, 278, 564, 564, 564, 444, 921, 722,
  667, 667, 722, 611, 556, 722, 722, 333, 389, 722, 611, 889, 722, 722, 556, 722, 667, 556, 611, 722, 722, 944, 722, 722, 611, 333, 278, 333, 469, 500, 333, 444, 500, 444,
  500, 444, 333, 500, 500, 278, 278, 500, 278, 778, 500, 500, 500, 500, 333, 389, 278, 500, 500, 722, 500, 500, 444, 480, 200, 480, 541,
];

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
