/**
 * Whether a drawn page holds anything for OCR to read. A page without a text layer that draws
 * nothing but rules (a blank page under a footer line, a separator sheet) is not worth Tesseract:
 * loading it and reading such a page, then reading it again turned three ways because it read no
 * words, took seconds and found nothing. Anything else — a letter, a speck, a stamp, faint grey
 * text, a box, a photo — is read as before: the check only ever skips pages that cannot hold a word.
 */

/** A pixel is ink where any channel is under this (on the white the page is drawn over). */
const INK_BELOW = 240;

/**
 * True when every mark on the page (8-connected pixels of ink) is a rule: a straight horizontal or
 * vertical line at least half an inch long and at most 1/24 inch (3 pt) thick. A page with no ink
 * at all is true as well. `rgba` is the page drawn at `dpi`, row by row from the top.
 */
export function onlyRules(rgba: Uint8Array, width: number, height: number, dpi: number): boolean {
  const thick = Math.max(1, Math.round(dpi / 24));
  const long = Math.max(thick + 1, Math.round(dpi / 2));
  const ink = (i: number) => rgba[i * 4]! < INK_BELOW || rgba[i * 4 + 1]! < INK_BELOW || rgba[i * 4 + 2]! < INK_BELOW;
  const seen = new Uint8Array(width * height);
  const stack: number[] = [];
  for (let start = 0; start < width * height; start++) {
    if (seen[start] || !ink(start)) continue;
    // Walk the mark this pixel belongs to, keeping its bounding box; stop at the first sign it is not a rule.
    let x0 = start % width;
    let x1 = x0;
    let y0 = (start - x0) / width;
    let y1 = y0;
    seen[start] = 1;
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
          if (seen[next] || !ink(next)) continue;
          seen[next] = 1;
          stack.push(next);
        }
      }
    }
    // Thin, but short: a speck, a dot, a dash, a thin letter.
    if (Math.max(x1 - x0, y1 - y0) + 1 < long) return false;
  }
  return true;
}
