/**
 * Gold answers as excerpts: a question's gold is a file of the corpus, its 1-based pages and an
 * exact excerpt of the page text (pdftotext) that answers it. Used by bench/eval-relevance.ts for
 * the opinions and absent-facts sets (bench/data/opinion-questions.jsonl,
 * absent-questions.jsonl, absent-tune-questions.jsonl). The rule is the cuad-clauses one
 * (`holdsClause` in cuad-clauses.ts): right file, a gold page inside the passage's page range, and
 * ≥ 60 % of the answer's words (or of the passage's words when the answer is the longer).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const STOP = new Set(
  'the of and to a an in or for by be is are as at on with this that any such shall will its it from under'.split(' '),
);
/** The words a gold text is matched on: lower case, letters and digits, a few function words out. */
export const wordsOf = (text: string) =>
  new Set(
    (
      text
        .normalize('NFKC')
        .toLowerCase()
        .match(/[a-z0-9]+/g) ?? []
    ).filter((w) => !STOP.has(w)),
  );

export interface GoldAnswer {
  /** The document, relative to the corpus (../shared/corpus). */
  file: string;
  /** 1-based pages the answer is on. */
  pages: number[];
  /** The answer's words (wordsOf of the excerpt). */
  words: Set<string>;
}

/** The passage (file relative to the corpus, page range [first, last], text) holds the gold answer. */
export function holdsAnswer(r: { file: string; pages: [number, number]; text: string }, g: GoldAnswer): boolean {
  if (r.file !== g.file || !g.pages.some((p) => p >= r.pages[0] && p <= r.pages[1])) return false;
  const words = wordsOf(r.text);
  let shared = 0;
  for (const w of g.words) if (words.has(w)) shared++;
  return g.words.size > 0 && shared / Math.min(g.words.size, words.size || 1) >= 0.6;
}

export const sha256Of = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** The rows of a JSONL file; with `frozen`, refuses a file whose sha256 is not that one. */
export function readJsonl<T>(file: string, frozen?: string): T[] {
  if (frozen) {
    const sha = sha256Of(file);
    if (sha !== frozen) {
      throw new Error(
        `${path.relative(process.cwd(), file)} is not the frozen evaluation set (sha256 ${sha}, expected ${frozen}); restore it from git: it must not be edited or tuned on`,
      );
    }
  }
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}

export const goldOf = (row: { file: string; pages: number[]; answer: string }): GoldAnswer => ({
  file: row.file,
  pages: row.pages,
  words: wordsOf(row.answer),
});

/** An answer's first line, where it says what it found. */
export const firstLine = (answer: string) => answer.trim().split('\n')[0] ?? '';

/** The answer says, in its first line, that the documents don't say (the extractive answer's wording). */
export const saysAbsent = (answer: string) => /the documents don['’]t (appear to )?say/i.test(firstLine(answer));
