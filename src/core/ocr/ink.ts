/**
 * Whether a drawn page holds anything for OCR to read. A page without a text layer that draws
 * nothing but rules (a blank page under a footer line, a separator sheet) is not worth Tesseract:
 * loading it and reading such a page, then reading it again turned three ways because it read no
 * words, took seconds and found nothing. Anything else — a letter, a speck, a stamp, faint grey
 * text, a box, a photo — is read as before: the check only ever skips pages that cannot hold a word.
 */

/** A pixel is ink where any channel is under this (on the white the page is drawn over). */
const INK_BELOW = 240;
/** Rows read from the canvas at a time. */
const STRIP = 64;

/** A drawn page, read a strip of rows at a time (RGBA). */
export interface DrawnPixels {
  width: number;
  height: number;
  rows(top: number, count: number): Uint8ClampedArray | Uint8Array;
}

/**
 * True when every mark on the page (8-connected pixels of ink) is a rule: a straight horizontal or
 * vertical line at least half an inch long and at most 1/24 inch (3 pt) thick. A page with no ink
 * at all is true as well. `page` is drawn at `dpi`. Memory: one byte a pixel.
 */
export function onlyRules(page: DrawnPixels, dpi: number): boolean {
  const { width, height } = page;
  const thick = Math.max(1, Math.round(dpi / 24));
  const long = Math.max(thick + 1, Math.round(dpi / 2));
  // 1: ink not yet walked; 2: walked.
  const mark = new Uint8Array(width * height);
  for (let top = 0; top < height; top += STRIP) {
    const rgba = page.rows(top, Math.min(STRIP, height - top));
    const base = top * width;
    for (let i = 0; i * 4 < rgba.length; i++) {
      if (rgba[i * 4]! < INK_BELOW || rgba[i * 4 + 1]! < INK_BELOW || rgba[i * 4 + 2]! < INK_BELOW) mark[base + i] = 1;
    }
  }
  const stack: number[] = [];
  for (let start = 0; start < width * height; start++) {
    if (mark[start] !== 1) continue;
    // Walk the mark this pixel belongs to, keeping its bounding box; stop at the first sign it is not a rule.
    let x0 = start % width;
    let x1 = x0;
    let y0 = (start - x0) / width;
    let y1 = y0;
    mark[start] = 2;
    stack.push(start);
    while (stack.length > 0) {
      const at = stack.pop()!;
      const x = at % width;
      const y = (at - x) / width;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      // Thicker than a rule both ways: a letter, a box, a picture.
      if (x1 - x0 >= thick && y1 - y0 >= thick) return false;
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= width) continue;
          const next = ny * width + nx;
          if (mark[next] !== 1) continue;
          mark[next] = 2;
          stack.push(next);
        }
      }
    }
    // Thin, but short: a speck, a dot, a dash, a thin letter.
    if (Math.max(x1 - x0, y1 - y0) + 1 < long) return false;
  }
  return true;
}
