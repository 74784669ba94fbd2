/**
 * Finding words in a document for the source viewer and the search results: the terms of a
 * search query, their hits in a text, a phrase's hits, and the boxes of a hit on a page from the
 * page's word boxes (citations.words). Pure functions.
 */
import type { PageBox, PageWord } from '../../../shared/contract/viewer';

/** A found stretch of the document text, [start, end), and the page it starts on. */
export interface Hit {
  start: number;
  end: number;
  page: number;
}

/** Words a search query has that are worth marking (not "the", "of"…). */
const STOP = new Set(
  'a an and are as at be by did do does for from had has have how i if in is it its of on or so than that the their them then there these they this to was were what when where which who whom why will with would you your'.split(
    ' ',
  ),
);

/** The distinct words of a query to mark: letters and digits, lower case, stop words and single letters left out. */
export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => (w.length > 1 || /\d/.test(w)) && !STOP.has(w)))];
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Words starting with one of the terms ("terminat" marks "termination" too), case-insensitive. */
export function termPattern(terms: string[]): RegExp | null {
  if (!terms.length) return null;
  const alt = [...terms]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|');
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${alt})[\\p{L}\\p{N}]*`, 'giu');
}

/** A phrase as typed, any run of spaces or line breaks matching any other, case-insensitive. */
export function phrasePattern(phrase: string): RegExp | null {
  const words = phrase.trim().split(/\s+/).filter(Boolean);
  if (!words.length) return null;
  return new RegExp(words.map(escapeRegExp).join('\\s+'), 'giu');
}

/** The 1-based page that character `at` is on, from the pages' character ranges. */
export function pageAt(pages: { page: number; start: number; end: number }[], at: number): number {
  let lo = 0;
  let hi = pages.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (pages[mid]!.start <= at) lo = mid;
    else hi = mid - 1;
  }
  return pages[lo]?.page ?? 1;
}

/** Every match of `pattern` in `text` (at most `max`), with its page. */
export function findHits(
  text: string,
  pages: { page: number; start: number; end: number }[],
  pattern: RegExp | null,
  max = 5000,
): Hit[] {
  if (!pattern) return [];
  const hits: Hit[] = [];
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m && hits.length < max; m = pattern.exec(text)) {
    if (m[0].length === 0) {
      pattern.lastIndex++;
      continue;
    }
    hits.push({ start: m.index, end: m.index + m[0].length, page: pageAt(pages, m.index) });
  }
  return hits;
}

/** Text split into plain parts and marked parts (the matches of `pattern`), for <mark>. */
export function splitMarked(text: string, pattern: RegExp | null): { text: string; marked: boolean }[] {
  if (!pattern) return [{ text, marked: false }];
  const out: { text: string; marked: boolean }[] = [];
  let at = 0;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    if (m[0].length === 0) {
      pattern.lastIndex++;
      continue;
    }
    if (m.index > at) out.push({ text: text.slice(at, m.index), marked: false });
    out.push({ text: m[0], marked: true });
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push({ text: text.slice(at), marked: false });
  return out;
}

/**
 * The boxes of [start, end) on a page from its word boxes: the part of each word inside the
 * range (shared out by characters), merged along each line.
 */
export function rangeBoxes(words: PageWord[], start: number, end: number): PageBox[] {
  const out: PageBox[] = [];
  for (const w of words) {
    if (w.end <= start || w.start >= end) continue;
    const len = Math.max(1, w.end - w.start);
    const a = (Math.max(start, w.start) - w.start) / len;
    const b = (Math.min(end, w.end) - w.start) / len;
    const box = { x: w.x + w.width * a, y: w.y, width: w.width * (b - a), height: w.height };
    const prev = out[out.length - 1];
    const sameLine = prev && Math.abs(prev.y - box.y) < Math.min(prev.height, box.height) * 0.5 && box.x >= prev.x;
    if (prev && sameLine) {
      const right = Math.max(prev.x + prev.width, box.x + box.width);
      prev.y = Math.min(prev.y, box.y);
      prev.height = Math.max(prev.height, box.height);
      prev.width = right - prev.x;
    } else out.push(box);
  }
  return out;
}

/** The words of a selection, joined as they read: a space between words of a line, a line break between lines. */
export function joinWords(words: { text: string; y: number; height: number }[]): string {
  let out = '';
  words.forEach((w, i) => {
    const prev = words[i - 1];
    if (prev) out += Math.abs(w.y - prev.y) > Math.min(w.height, prev.height) * 0.5 ? '\n' : ' ';
    out += w.text;
  });
  return out;
}
