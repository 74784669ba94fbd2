/**
 * Where each glyph of a PDF page sits — its origin and the end of its advance in PDF user space,
 * recorded by pdf.js's text pass as it moves over the page (patches/: CTM, text matrix, font size,
 * character and word spacing, horizontal scaling, rise, TJ adjustments) — matched with the page's
 * text items. Citation boxes use it to place words inside a text item exactly, where the item's
 * width alone cannot tell how its spacing is shared out.
 */

/**
 * A page's horizontal glyphs in content order, as arrays (a page has thousands: no object each).
 * Glyph i: `text[i]` the text it stands for, `font[i]` the pdf.js font (loadedName) that drew it,
 * and GLYPH_STRIDE numbers from `num[i * GLYPH_STRIDE]`: its advance width in 1/1000 em (-1 where
 * pdf.js gave none), the font's em in user space across the line (font size × the text's vertical
 * scale), its origin (x0, y0) and the end of its width (x1, y1) in user space.
 */
export interface PageGlyphs {
  text: string[];
  font: string[];
  num: Float64Array;
}

export const GLYPH_STRIDE = 6;

type Matrix = [number, number, number, number, number, number];

/** m1 × m2 in PDF's row-vector convention: apply m1, then m2. */
export function multiply(m1: readonly number[], m2: readonly number[]): Matrix {
  return [
    m1[0]! * m2[0]! + m1[1]! * m2[2]!,
    m1[0]! * m2[1]! + m1[1]! * m2[3]!,
    m1[2]! * m2[0]! + m1[3]! * m2[2]!,
    m1[2]! * m2[1]! + m1[3]! * m2[3]!,
    m1[4]! * m2[0]! + m1[5]! * m2[2]! + m2[4]!,
    m1[4]! * m2[1]! + m1[5]! * m2[3]! + m2[5]!,
  ];
}

/** A character boundary of an item: [index, offset along the item, 1 at a word's start or end / 0 inside]. */
export type Boundary = [i: number, x: number, word: 0 | 1];

/**
 * From character `i` of an item on, the base line sits `dy` above the item's (user space, along
 * its up direction) and the text is `size` tall (its em in user space).
 */
export type Lift = [i: number, dy: number, size: number];

/** What the glyphs tell about one item. */
export interface ItemGlyphs {
  bounds: Boundary[];
  lifts: Lift[];
}

/** A base-line move smaller than this (user space units), or a size change under 5 %, is not recorded. */
const LIFT_TOLERANCE = 0.5;

/** How many glyphs (not counting spaces) ahead of the last matched one a character of the next item is looked for, and how many glyphs at most. */
const LOOKAHEAD = 96;
const MAX_SCAN = 4096;

/**
 * What the glyphs tell about each text item of a page: its characters are matched in order with the
 * page's glyphs (pdf.js builds text content from the same glyphs), giving each character's start and
 * word's end on the base line (boundaries) and where the line or size changes (lifts). An item whose
 * glyphs do not lie on its line in order gets nothing. Returns item ordinal → boundaries and lifts.
 * Long on purpose: one pass with two cursors (glyph and character) that every step of the match moves;
 * split, the pieces would hand both cursors back and forth.
 */
export function alignItems(
  glyphs: PageGlyphs,
  items: number[],
  stride: number,
  text: string,
  offset: number,
  skip: (font: number) => boolean,
): Map<number, ItemGlyphs> {
  const out = new Map<number, ItemGlyphs>();
  const norm = glyphs.text.map((t) => t.normalize('NFKC'));
  const num = glyphs.num;
  // Glyph j's origin (x0, y0) and the end of its width (x1, y1).
  const x0 = (j: number) => num[j * GLYPH_STRIDE + 2]!;
  const y0 = (j: number) => num[j * GLYPH_STRIDE + 3]!;
  const x1 = (j: number) => num[j * GLYPH_STRIDE + 4]!;
  const y1 = (j: number) => num[j * GLYPH_STRIDE + 5]!;
  let gj = 0;
  let sub = 0;
  for (let k = 0, ordinal = 0; k + stride <= items.length; k += stride, ordinal++) {
    const s = items[k]! - offset;
    const len = items[k + 1]!;
    if (skip(items[k + 10]!)) continue;
    const [a, b, , , e, f, width, height] = [
      items[k + 2]!,
      items[k + 3]!,
      items[k + 4]!,
      items[k + 5]!,
      items[k + 6]!,
      items[k + 7]!,
      items[k + 8]!,
      items[k + 9]!,
    ];
    const scale = Math.hypot(a, b);
    if (!(scale > 0) || !(width > 0)) continue;
    const ux = a / scale;
    const uy = b / scale;
    const size = Math.max(height, scale, 1);
    const slack = Math.max(1, 0.3 * size);
    const savedJ = gj;
    const savedSub = sub;
    // Per character, four numbers: [start, end] along the item, its base line's offset across it,
    // its size; start NaN where no glyph matched it.
    const at = new Float64Array(len * 4).fill(Number.NaN);
    const has = (i: number) => i >= 0 && i < len && !Number.isNaN(at[i * 4]!);
    let matched = 0;
    let ok = true;
    let lastStart = -Infinity;
    let lastGlyph = -1;
    let wanted = 0;
    let dropped = 0;
    for (let i = 0; i < len; i++) {
      const c = text[s + i]!;
      if (/\s/.test(c)) continue;
      wanted++;
      if (!(gj < norm.length && norm[gj]![sub] === c)) {
        let found = -1;
        // Runs of space glyphs (layout by spaces) do not count against the look-ahead.
        for (
          let j = sub > 0 ? gj + 1 : gj, seen = 0, lim = Math.min(norm.length, gj + MAX_SCAN);
          j < lim && seen < LOOKAHEAD;
          j++
        ) {
          const t = norm[j]!;
          if (t[0] === c) {
            found = j;
            break;
          }
          if (!/^\s*$/.test(t)) seen++;
        }
        if (found < 0) continue;
        // Glyphs passed over (a soft hyphen pdf.js leaves out of the text) still took room on the line.
        for (let j = sub > 0 ? gj + 1 : gj; j < found; j++)
          dropped += Math.abs((x1(j) - x0(j)) * ux + (y1(j) - y0(j)) * uy);
        gj = found;
        sub = 0;
      }
      const n = norm[gj]!.length;
      const a0 = (x0(gj) - e) * ux + (y0(gj) - f) * uy;
      const a1 = (x1(gj) - e) * ux + (y1(gj) - f) * uy;
      const across = -(x0(gj) - e) * uy + (y0(gj) - f) * ux;
      const start = a0 + ((a1 - a0) * sub) / n;
      const end = a0 + ((a1 - a0) * (sub + 1)) / n;
      // On the line, in order, starting within the item (whose width leaves out the glyphs pdf.js dropped).
      if (Math.abs(across) > 0.5 * size || start < -slack || start > width + slack + dropped || start < lastStart - 0.5)
        ok = false;
      lastStart = start;
      at[i * 4] = start;
      at[i * 4 + 1] = end;
      at[i * 4 + 2] = across;
      at[i * 4 + 3] = num[gj * GLYPH_STRIDE + 1]!;
      matched++;
      lastGlyph = gj;
      if (++sub >= n) {
        gj++;
        sub = 0;
      }
    }
    if (!ok || matched < wanted) {
      // Glyphs that do not fit this item: keep going after them only if most characters found one.
      if (matched * 2 < wanted) {
        gj = savedJ;
        sub = savedSub;
      } else if (lastGlyph >= 0 && gj <= lastGlyph) {
        gj = lastGlyph + 1;
        sub = 0;
      }
      if (!ok) continue;
    }
    // Every matched character's start, and each word's end (its last character's advance).
    const bounds: Boundary[] = [];
    for (let i = 0; i < len; i++) {
      const wordStart = i === 0 || /\s/.test(text[s + i - 1]!);
      if (has(i)) bounds.push([i, at[i * 4]!, wordStart ? 1 : 0]);
      else if (has(i - 1) && /\s/.test(text[s + i]!)) bounds.push([i, at[(i - 1) * 4 + 1]!, 1]);
    }
    if (has(len - 1)) bounds.push([len, at[(len - 1) * 4 + 1]!, 1]);
    // Where the base line moves inside the item (pdf.js joins words set a little higher or lower).
    // Or where the text changes size (small capitals set as a scaled-down run of the same font).
    const lifts: Lift[] = [];
    let base = 0;
    let em = height;
    for (let i = 0; i < len; i++) {
      if (!has(i) || (Math.abs(at[i * 4 + 2]! - base) <= LIFT_TOLERANCE && Math.abs(at[i * 4 + 3]! - em) <= 0.05 * em))
        continue;
      base = at[i * 4 + 2]!;
      em = at[i * 4 + 3]!;
      // The move belongs to the word: start it there (after the preceding whitespace).
      let from = i;
      while (from > 0 && !/\s/.test(text[s + from - 1]!) && !has(from - 1)) from--;
      lifts.push([from, Math.round(base * 100) / 100, Math.round(em * 100) / 100]);
    }
    if (bounds.length || lifts.length) out.set(ordinal, { bounds, lifts });
  }
  return out;
}
