/**
 * Where each glyph of a PDF page sits, from pdf.js's operator list: the text state machine that
 * pdf.js's own canvas renderer runs (CTM, text matrix, font size, character and word spacing,
 * horizontal scaling, rise, TJ adjustments), reduced to one thing — each glyph's origin and the end
 * of its advance in PDF user space. Citation boxes use it to place words inside a text item
 * exactly, where the item's width alone cannot tell how its spacing is shared out.
 */

/** One horizontal glyph: the text it stands for, its size, its origin (x0, y0) and the end of its width (x1, y1) in user space. */
export interface PlacedGlyph {
  text: string;
  /** The pdf.js font (loadedName) that drew it, and its advance width in 1/1000 em where pdf.js gave one. */
  font: string;
  width?: number;
  /** The font's em in user space across the line (font size × the text's vertical scale). */
  size: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The pdf.js operator codes this reads (pdfjs.OPS). */
export interface GlyphOps {
  save: number;
  restore: number;
  transform: number;
  beginText: number;
  setCharSpacing: number;
  setWordSpacing: number;
  setHScale: number;
  setLeading: number;
  setFont: number;
  setTextRise: number;
  moveText: number;
  setLeadingMoveText: number;
  setTextMatrix: number;
  nextLine: number;
  showText: number;
  paintFormXObjectBegin: number;
  paintFormXObjectEnd: number;
}

/** What a loaded font needs to say for glyph advances (pdf.js `commonObjs` entry). */
export interface GlyphFont {
  fontMatrix?: number[];
  vertical?: boolean;
}

type Matrix = [number, number, number, number, number, number];

const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

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

/** A matrix operand: pdf.js passes six numbers, or one (typed) array of six. */
function matrixArg(args: unknown[] | null): Matrix {
  const m = (args?.length === 1 ? args[0] : args) as ArrayLike<number> | null | undefined;
  if (!m || m.length < 6) return IDENTITY;
  return [Number(m[0]), Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])];
}

interface TextState {
  ctm: Matrix;
  font: GlyphFont | undefined;
  fontName: string;
  size: number;
  direction: number;
  charSpacing: number;
  wordSpacing: number;
  hScale: number;
  leading: number;
  rise: number;
  /** Text matrix and the position within it (pdf.js saves and restores these with q/Q too). */
  tm: Matrix;
  x: number;
  y: number;
  lineX: number;
  lineY: number;
}

/**
 * Glyph positions of a page, in content-stream order (the order pdf.js's text content follows).
 * Vertical fonts are stepped over (their text keeps the item-based estimate).
 *
 * Long on purpose: one interpreter of the PDF text operators (BT/ET, Tm/Td/TD/T*, Tf/Tc/Tw/Tz/TL/Ts,
 * q/Q/cm, Tj/TJ/'/") over a text state they all update; split, each operator's case would take and
 * return the whole state. It mirrors the PDF specification's text-operator table, section by section.
 */
export function placeGlyphs(fnArray: ArrayLike<number>, argsArray: ArrayLike<unknown>, OPS: GlyphOps, fontOf: (name: string) => GlyphFont | undefined): PlacedGlyph[] {
  const out: PlacedGlyph[] = [];
  let st: TextState = { ctm: IDENTITY, font: undefined, fontName: '', size: 0, direction: 1, charSpacing: 0, wordSpacing: 0, hScale: 1, leading: 0, rise: 0, tm: IDENTITY, x: 0, y: 0, lineX: 0, lineY: 0 };
  // q pushes the state itself; the first operator to change it after a q or Q changes a copy
  // (some generators wrap every operator in q … Q: 77,000 pairs a page, each copied before).
  const stack: TextState[] = [];
  let shared = false;
  const changes = new Set(STATE_CHANGES.map((op) => OPS[op]));
  const moveText = (dx: number, dy: number) => {
    st.x = st.lineX += dx;
    st.y = st.lineY += dy;
  };
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] as unknown[] | null;
    if (shared && changes.has(fn!)) {
      st = { ...st };
      shared = false;
    }
    switch (fn) {
      case OPS.save:
        stack.push(st);
        shared = true;
        break;
      case OPS.transform:
        st.ctm = multiply(matrixArg(args), st.ctm);
        break;
      case OPS.paintFormXObjectBegin: {
        stack.push(st);
        st = { ...st };
        shared = false;
        const m = args?.[0] as ArrayLike<number> | null | undefined;
        if (m && m.length === 6) st.ctm = multiply(matrixArg([m]), st.ctm);
        break;
      }
      case OPS.restore:
      case OPS.paintFormXObjectEnd:
        if (stack.length) {
          st = stack.pop()!;
          shared = true;
        }
        break;
      case OPS.beginText:
        st.tm = IDENTITY;
        st.x = st.y = st.lineX = st.lineY = 0;
        break;
      case OPS.setTextMatrix:
        st.tm = matrixArg(args);
        st.x = st.y = st.lineX = st.lineY = 0;
        break;
      case OPS.moveText:
        moveText(Number(args![0]), Number(args![1]));
        break;
      case OPS.setLeadingMoveText:
        st.leading = Number(args![1]);
        moveText(Number(args![0]), Number(args![1]));
        break;
      case OPS.nextLine:
        moveText(0, st.leading);
        break;
      case OPS.setLeading:
        st.leading = -Number(args![0]);
        break;
      case OPS.setCharSpacing:
        st.charSpacing = Number(args![0]);
        break;
      case OPS.setWordSpacing:
        st.wordSpacing = Number(args![0]);
        break;
      case OPS.setHScale:
        st.hScale = Number(args![0]) / 100;
        break;
      case OPS.setTextRise:
        st.rise = Number(args![0]);
        break;
      case OPS.setFont: {
        const size = Number(args![1]);
        st.fontName = String(args![0]);
        st.font = fontOf(st.fontName);
        st.size = Math.abs(size);
        st.direction = size < 0 ? -1 : 1;
        break;
      }
      case OPS.showText: {
        const glyphs = args![0] as unknown[];
        const font = st.font;
        if (!font || st.size === 0 || !Array.isArray(glyphs)) break;
        const vertical = !!font.vertical;
        const scale = st.hScale * st.direction;
        const advanceScale = st.size * (font.fontMatrix?.[0] || 0.001);
        // Text space → user space for this run.
        const m = multiply(st.tm, st.ctm);
        const at = (tx: number, ty: number): [number, number] => [m[0] * tx + m[2] * ty + m[4], m[1] * tx + m[3] * ty + m[5]];
        const em = st.size * Math.hypot(m[2], m[3]);
        let run = 0;
        for (const g of glyphs) {
          if (typeof g === 'number') {
            run += ((vertical ? 1 : -1) * g * st.size) / 1000;
            continue;
          }
          if (!g || typeof g !== 'object') continue;
          const { unicode, width, isSpace, vmetric } = g as { unicode?: string; width?: number; isSpace?: boolean; vmetric?: number[] };
          const spacing = (isSpace ? st.wordSpacing : 0) + st.charSpacing;
          if (vertical) {
            const w = vmetric ? -vmetric[0]! : (width ?? 0);
            run += w * advanceScale - spacing * st.direction;
            continue;
          }
          // The glyph covers its width; character and word spacing move the next one on (as poppler's
          // text boxes see it: TextPage::addChar takes the spacing back out of each advance).
          const glyphWidth = (width ?? 0) * advanceScale;
          const advance = glyphWidth + spacing * st.direction;
          const [x0, y0] = at(st.x + run * scale, st.y + st.rise);
          const [x1, y1] = at(st.x + (run + glyphWidth) * scale, st.y + st.rise);
          if (unicode) {
            // Widths are in glyph space: 1/1000 em for all but Type 3 fonts, whose matrix says.
            const em1000 = typeof width === 'number' && width >= 0 ? width * (font.fontMatrix?.[0] ? font.fontMatrix[0] * 1000 : 1) : undefined;
            out.push({ text: unicode, font: st.fontName, width: em1000, size: em, x0, y0, x1, y1 });
          }
          run += advance;
        }
        if (vertical) st.y -= run;
        else st.x += run * scale;
        break;
      }
      default:
        break;
    }
  }
  return out;
}

/** The operators that change the text state in place (those `placeGlyphs` reads but q, Q and forms). */
const STATE_CHANGES = ['transform', 'beginText', 'setCharSpacing', 'setWordSpacing', 'setHScale', 'setLeading', 'setFont', 'setTextRise', 'moveText', 'setLeadingMoveText', 'setTextMatrix', 'nextLine', 'showText'] as const satisfies readonly (keyof GlyphOps)[];

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
 * What the glyphs tell about each text item of a page: the items' characters are matched, in
 * order, with the page's glyphs (pdf.js builds its text content from the same glyphs, in the same
 * order); each character's start and each word's end are projected on the item's base line
 * (boundaries), and where the base line or the size changes inside the item is noted (lifts). An
 * item whose matched glyphs do not lie on its line, in order, within its extent, gets nothing (the
 * inline model alone places its words).
 *
 * `items` is the page's flat geometry (ITEM_STRIDE numbers per item, offsets into the document
 * text), `text` the page's characters with `offset` the document offset of its first,
 * `skip(font)` true for fonts whose items are not placed this way (vertical ones).
 * Returns item ordinal → its boundaries and lifts.
 *
 * Long on purpose: one pass with two cursors (the glyph and the character inside it) that every
 * step of the match moves; split, the pieces would hand both cursors back and forth.
 */
export function alignItems(glyphs: PlacedGlyph[], items: number[], stride: number, text: string, offset: number, skip: (font: number) => boolean): Map<number, ItemGlyphs> {
  const out = new Map<number, ItemGlyphs>();
  const norm = glyphs.map((g) => g.text.normalize('NFKC'));
  let gj = 0;
  let sub = 0;
  for (let k = 0, ordinal = 0; k + stride <= items.length; k += stride, ordinal++) {
    const s = items[k]! - offset;
    const len = items[k + 1]!;
    if (skip(items[k + 10]!)) continue;
    const [a, b, , , e, f, width, height] = [items[k + 2]!, items[k + 3]!, items[k + 4]!, items[k + 5]!, items[k + 6]!, items[k + 7]!, items[k + 8]!, items[k + 9]!];
    const scale = Math.hypot(a, b);
    if (!(scale > 0) || !(width > 0)) continue;
    const ux = a / scale;
    const uy = b / scale;
    const size = Math.max(height, scale, 1);
    const slack = Math.max(1, 0.3 * size);
    const savedJ = gj;
    const savedSub = sub;
    // Per matched character: [start, end] along the item, its base line's offset across it, its size.
    const at: ([number, number, number, number] | undefined)[] = new Array(len);
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
        for (let j = sub > 0 ? gj + 1 : gj, seen = 0, lim = Math.min(norm.length, gj + MAX_SCAN); j < lim && seen < LOOKAHEAD; j++) {
          const t = norm[j]!;
          if (t[0] === c) {
            found = j;
            break;
          }
          if (!/^\s*$/.test(t)) seen++;
        }
        if (found < 0) continue;
        // Glyphs passed over (a soft hyphen pdf.js leaves out of the text) still took room on the line.
        for (let j = sub > 0 ? gj + 1 : gj; j < found; j++) dropped += Math.abs((glyphs[j]!.x1 - glyphs[j]!.x0) * ux + (glyphs[j]!.y1 - glyphs[j]!.y0) * uy);
        gj = found;
        sub = 0;
      }
      const g = glyphs[gj]!;
      const n = norm[gj]!.length;
      const a0 = (g.x0 - e) * ux + (g.y0 - f) * uy;
      const a1 = (g.x1 - e) * ux + (g.y1 - f) * uy;
      const across = -(g.x0 - e) * uy + (g.y0 - f) * ux;
      const start = a0 + ((a1 - a0) * sub) / n;
      const end = a0 + ((a1 - a0) * (sub + 1)) / n;
      // On the line, in order, starting within the item (whose width leaves out the glyphs pdf.js dropped).
      if (Math.abs(across) > 0.5 * size || start < -slack || start > width + slack + dropped || start < lastStart - 0.5) ok = false;
      lastStart = start;
      at[i] = [start, end, across, g.size];
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
      const here = at[i];
      const wordStart = i === 0 || /\s/.test(text[s + i - 1]!);
      if (here) bounds.push([i, here[0], wordStart ? 1 : 0]);
      const last = at[i - 1];
      if (!here && last && /\s/.test(text[s + i]!)) bounds.push([i, last[1], 1]);
    }
    const end = at[len - 1];
    if (end) bounds.push([len, end[1], 1]);
    // Where the base line moves inside the item (pdf.js joins words set a little higher or lower).
    // Or where the text changes size (small capitals set as a scaled-down run of the same font).
    const lifts: Lift[] = [];
    let base = 0;
    let em = height;
    for (let i = 0; i < len; i++) {
      const here = at[i];
      if (!here || (Math.abs(here[2] - base) <= LIFT_TOLERANCE && Math.abs(here[3] - em) <= 0.05 * em)) continue;
      base = here[2];
      em = here[3];
      // The move belongs to the word: start it there (after the preceding whitespace).
      let from = i;
      while (from > 0 && !/\s/.test(text[s + from - 1]!) && !at[from - 1]) from--;
      lifts.push([from, Math.round(base * 100) / 100, Math.round(em * 100) / 100]);
    }
    if (bounds.length || lifts.length) out.set(ordinal, { bounds, lifts });
  }
  return out;
}
