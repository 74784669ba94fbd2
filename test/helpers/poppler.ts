/**
 * poppler's `pdftotext -bbox`: the independent oracle the citation-geometry tests (and
 * bench/geometry-vs-poppler.ts) compare our boxes with.
 */
import { execFileSync, spawnSync } from 'node:child_process';

export const hasPoppler = spawnSync('pdftotext', ['-v']).status === 0;

/** A word and its box in PDF points; which way y runs depends on the function that made it. */
export interface PopplerWord {
  word: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

function unescapeXml(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** poppler's words of one page (1-based), y measured down from the top of the page, as poppler reports. */
export function popplerWords(file: string, page: number): PopplerWord[] {
  const html = execFileSync('pdftotext', ['-bbox', '-f', String(page), '-l', String(page), file, '-'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return [
    ...html.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g),
  ].map((m) => ({
    word: unescapeXml(m[5]!),
    x0: Number(m[1]),
    y0: Number(m[2]),
    x1: Number(m[3]),
    y1: Number(m[4]),
  }));
}

/** The same words in PDF user space (y up), for a page `pageHeight` points tall. */
export function popplerWordsUserSpace(file: string, page: number, pageHeight: number): PopplerWord[] {
  return popplerWords(file, page).map((w) => ({ ...w, y0: pageHeight - w.y1, y1: pageHeight - w.y0 }));
}

/** Intersection over union of a word box and a rectangle {x, y, width, height} in the same space. */
export function boxIou(b: PopplerWord, r: { x: number; y: number; width: number; height: number }): number {
  const ix = Math.max(0, Math.min(b.x1, r.x + r.width) - Math.max(b.x0, r.x));
  const iy = Math.max(0, Math.min(b.y1, r.y + r.height) - Math.max(b.y0, r.y));
  const inter = ix * iy;
  return inter / ((b.x1 - b.x0) * (b.y1 - b.y0) + r.width * r.height - inter);
}
