/**
 * Is a page's text layer worth keeping, or should the page be read by OCR instead? A scan often
 * carries a text layer that is no use: a few characters (a stamp, a Bates number) over a page
 * full of ink, or a layer of garbage — a font without a Unicode map ("Ɨǻǿ"), or a poor OCR layer a
 * scanner added ("tbe Agrcemcnt"). The rules are measured over the corpus's text PDFs (see
 * bench/text-quality.ts): they keep every page of the typed documents.
 */

/** Fewer non-space characters than this on a page with an image: the text is a stamp on a scan. */
export const SPARSE_CHARS = 20;
/** With at least this many words, a page where fewer than GARBAGE_SHARE of them look like words is garbage. */
export const MIN_WORDS = 8;
export const GARBAGE_SHARE = 0.5;

const BAD_CHARS = /[\uFFFD\uE000-\uF8FF\u0000-\u0008\u000E-\u001F]/gu;
const VOWEL = /[aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüýÿœAEIOUYÀÁÂÃÄÅÆÈÉÊËÌÍÎÏÒÓÔÕÖØÙÚÛÜÝŸŒ]/u;

/** A token that reads as a word: letters (an apostrophe or hyphen inside), a vowel in a Latin word, no case flips inside ("aBc"). */
export function looksLikeWord(token: string): boolean {
  const t = token.replace(/^[("'“‘[]+|[)"'”’\].,;:!?]+$/gu, '');
  if (!/^\p{L}[\p{L}'’-]*$/u.test(t)) return false;
  if (/\p{Ll}\p{Lu}/u.test(t)) return false;
  // Scripts without Latin vowels (Greek, Cyrillic, CJK…) pass on letters alone.
  return !/^[A-Za-z'’-]+$/.test(t) || t.length <= 3 || VOWEL.test(t);
}

/** Counted words of a text: those with letters (not codes, numbers, dates, addresses), and how many of them look like words. */
export function wordCounts(text: string): { words: number; good: number } {
  let words = 0;
  let good = 0;
  for (const token of text.split(/\s+/)) {
    if (!/\p{L}/u.test(token)) continue;
    // "14/760,060", "9-Jul-15", "hartco.com", "a@b": identifiers, neither words nor garbage.
    if (/[\d@/._:#]/.test(token.replace(/[.,;:!?)\]"'”’]+$/u, ''))) continue;
    words++;
    if (looksLikeWord(token)) good++;
  }
  return { words, good };
}

/** Why a page's text layer should be replaced by OCR ('sparse' | 'garbage'), or null when it is fine. */
export function weakTextLayer(text: string, hasImage: boolean): 'sparse' | 'garbage' | null {
  const chars = text.replace(/\s+/g, '').length;
  if (chars < SPARSE_CHARS) return hasImage ? 'sparse' : null;
  if ((text.match(BAD_CHARS)?.length ?? 0) > chars * 0.1) return 'garbage';
  const { words, good } = wordCounts(text);
  return words >= MIN_WORDS && good < words * GARBAGE_SHARE ? 'garbage' : null;
}

/** Whether the page as OCR read it is better than its text layer: clearly more words that read as words. */
export function ocrIsBetter(ocrText: string, layerText: string): boolean {
  const ocr = wordCounts(ocrText).good;
  const layer = wordCounts(layerText).good;
  return ocr >= 3 && ocr > layer * 1.2;
}
