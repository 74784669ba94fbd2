/**
 * The cuad-clauses set: 363 clause questions over 94 CUAD PDFs, written as a lawyer would ask them
 * (bench/data/cuad-clause-questions.jsonl), each pointing at a clause span of
 * ../shared/corpus/cuad/derived_clause_spans_selected.jsonl. Shared by the retrieval and the
 * extractive-answer evals.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const here = import.meta.dirname;
const corpus = path.resolve(here, '..', '..', 'shared', 'corpus');

export interface ClauseQuestion {
  query: string;
  /** The contract's PDF, relative to the corpus's cuad/ folder. */
  pdf: string;
  pages: number[];
  words: Set<string>;
}

const STOP = new Set('the of and to a an in or for by be is are as at on with this that any such shall will its it from under'.split(' '));
export const wordsOf = (text: string) => new Set((text.normalize('NFKC').toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => !STOP.has(w)));

export function cuadClauses(): ClauseQuestion[] {
  const base = path.join(corpus, 'cuad');
  const rows = readFileSync(path.join(base, 'derived_clause_spans_selected.jsonl'), 'utf8').split('\n').filter(Boolean);
  return readFileSync(path.join(here, 'data', 'cuad-clause-questions.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const q = JSON.parse(l) as { line: number; question: string };
      const r = JSON.parse(rows[q.line]!) as { pdf: string; clause_text: string; pdf_pages: number[] };
      return { query: q.question, pdf: r.pdf, pages: r.pdf_pages, words: wordsOf(r.clause_text) };
    });
}

/** The result holds the clause on a gold page of the gold contract. */
export function holdsClause(r: { file: string; pages: [number, number]; text: string }, q: ClauseQuestion): boolean {
  if (r.file !== q.pdf || !q.pages.some((p) => p >= r.pages[0] && p <= r.pages[1])) return false;
  const words = wordsOf(r.text);
  let shared = 0;
  for (const w of q.words) if (words.has(w)) shared++;
  return q.words.size > 0 && shared / Math.min(q.words.size, words.size || 1) >= 0.6;
}

