/**
 * Where a character sits inside a PDF text item, along its base line: one model shared by ingest
 * (which stores corrections) and citations (which draws boxes). Each character advances by its font
 * width, and the item's leftover width is shared out evenly per character, as PDF character spacing
 * is. Stops stored at ingest from exact glyph positions pin chosen boundaries; between two stops the
 * model runs on that stretch only.
 */

/** A stop: character boundary `i` (0…length) of an item sits at offset `x` (user space) along it. */
export type Stop = readonly [i: number, x: number];

export interface InlineModel {
  /** Prefix sums of the characters' advances: cum[i] = advance of characters [0, i). */
  cum: Float64Array;
  /** True: real widths, the rest shared out evenly per character; false: estimated widths, scaled to fit. */
  share: boolean;
  length: number;
  width: number;
}

/**
 * The model for characters [s, s+len) of `text`, an item `width` long whose font's em is `size`
 * along the line; `widths` are the font's real advances (1/1000 em) when known, `family` picks
 * the estimate otherwise (0 sans-serif, 1 serif, 2 monospace).
 */
export function inlineModel(
  text: string,
  s: number,
  len: number,
  width: number,
  size: number,
  family: number,
  widths?: Record<string, number>,
): InlineModel {
  const cum = new Float64Array(len + 1);
  if (widths) {
    const table = family === 1 ? TIMES : HELVETICA;
    for (let i = 0; i < len; i++) {
      const ch = text[s + i]!;
      const space = /\s/.test(ch);
      let w = widths[space ? ' ' : ch];
      if (w === undefined) {
        // A character the font table lacks (a space the font never draws, half of a surrogate pair): its standard width.
        const code = space ? 32 : ch.charCodeAt(0);
        w = code >= 32 && code < 127 ? table[code - 32]! : code >= 0xd800 && code < 0xe000 ? 0 : 556;
      }
      cum[i + 1] = cum[i]! + (w / 1000) * size;
    }
    if (cum[len]! > 0 && width > 0) return { cum, share: true, length: len, width };
  }
  // Estimated: Helvetica for sans-serif, Times for serif, equal widths for monospace.
  const table = family === 1 ? TIMES : HELVETICA;
  for (let i = 0; i < len; i++) {
    const code = text.charCodeAt(s + i);
    const w =
      family === 2
        ? 1
        : code >= 32 && code < 127
          ? table[code - 32]!
          : code >= 0x3000
            ? 1000
            : family === 1
              ? 500
              : 556;
    cum[i + 1] = cum[i]! + w;
  }
  return { cum, share: false, length: len, width };
}

/** Offset (user space, along the base line from the item's origin) of character boundary `i`; `stops` sorted by i. */
export function inlineOffset(model: InlineModel, i: number, stops: readonly Stop[] = []): number {
  const { cum, length, width } = model;
  let ia = 0;
  let xa = 0;
  let ib = length;
  let xb = width;
  for (const [si, sx] of stops) {
    if (si <= i) {
      ia = si;
      xa = sx;
    }
    if (si >= i) {
      ib = si;
      xb = sx;
      break;
    }
  }
  if (i <= ia) return xa;
  if (i >= ib) return xb;
  const natural = cum[ib]! - cum[ia]!;
  if (model.share) {
    const extra = (xb - xa - natural) / (ib - ia);
    return xa + (cum[i]! - cum[ia]!) + extra * (i - ia);
  }
  return natural > 0 ? xa + ((xb - xa) * (cum[i]! - cum[ia]!)) / natural : xa + ((xb - xa) * (i - ia)) / (ib - ia);
}

/**
 * The fewest stops (greedy: the worst-placed boundary first) that bring every `exact` boundary
 * within tolerance of the model — `word` at a word's start or end (where citations begin and end),
 * `inner` between two characters of one word — at most `max` of them. Empty when the model alone
 * is close enough.
 */
export function chooseStops(
  model: InlineModel,
  exact: readonly (readonly [i: number, x: number, word: 0 | 1])[],
  tolerance: { word: number; inner: number },
  max = 64,
): Stop[] {
  const stops: Stop[] = [];
  while (stops.length < max) {
    let worst: Stop | undefined;
    let excess = 0;
    for (const [i, x, word] of exact) {
      const e = Math.abs(inlineOffset(model, i, stops) - x) - (word ? tolerance.word : tolerance.inner);
      if (e > excess) {
        excess = e;
        worst = [i, x];
      }
    }
    if (!worst) break;
    stops.push(worst);
    stops.sort((p, q) => p[0] - q[0]);
  }
  return stops;
}

/** Advance widths (1/1000 em) of ASCII 32–126 in Helvetica and Times-Roman (Adobe AFM metrics, as pdf.js ships them). */
const HELVETICA = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556,
  556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833,
  722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556,
  556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334,
  260, 334, 584,
];
const TIMES = [
  250, 333, 408, 500, 500, 833, 778, 180, 333, 333, 500, 564, 250, 333, 250, 278, 500, 500, 500, 500, 500, 500, 500,
  500, 500, 500, 278, 278, 564, 564, 564, 444, 921, 722, 667, 667, 722, 611, 556, 722, 722, 333, 389, 722, 611, 889,
  722, 722, 556, 722, 667, 556, 611, 722, 722, 944, 722, 722, 611, 333, 278, 333, 469, 500, 333, 444, 500, 444, 500,
  444, 333, 500, 500, 278, 278, 500, 278, 778, 500, 500, 500, 500, 333, 389, 278, 500, 500, 722, 500, 500, 444, 480,
  200, 480, 541,
];
