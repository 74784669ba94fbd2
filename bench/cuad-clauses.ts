/**
 * The cuad-clauses set: 363 clause questions over 94 CUAD PDFs, written as a lawyer would ask them
 * (bench/data/cuad-clause-questions.jsonl), each pointing at a clause span of
 * ../shared/corpus/cuad/derived_clause_spans_selected.jsonl. Shared by the retrieval and the
 * extractive-answer evals.
 *
 * The cuad-client set (bench/data/cuad-client-questions.jsonl) is HELD OUT: questions over the same
 * PDFs in a client's words, about half naming the contract only loosely ("the Zounds deal"), on
 * (contract, category) pairs the 363 do not ask about. Written once and frozen: never tune on it
 * (tune on the 363) and never edit it; its checksum is checked before every run.
 *
 * The cuad-client-tune set (bench/data/cuad-client-tune-questions.jsonl) is its tuning twin: 120
 * client-worded questions over the same PDFs, half naming the contract loosely, on (contract,
 * category) pairs neither other file asks about, so that client wording can be tuned for without
 * touching the held-out set.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { holdsAnswer, wordsOf } from './gold';

const here = import.meta.dirname;
const corpus = path.resolve(here, '..', '..', 'shared', 'corpus');

export interface ClauseQuestion {
  query: string;
  /** The contract's PDF, relative to the corpus's cuad/ folder. */
  pdf: string;
  pages: number[];
  words: Set<string>;
}

export { wordsOf };

export function cuadClauses(file = 'cuad-clause-questions.jsonl'): ClauseQuestion[] {
  const base = path.join(corpus, 'cuad');
  const rows = readFileSync(path.join(base, 'derived_clause_spans_selected.jsonl'), 'utf8').split('\n').filter(Boolean);
  return readFileSync(path.join(here, 'data', file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const q = JSON.parse(l) as { line: number; question: string };
      const r = JSON.parse(rows[q.line]!) as { pdf: string; clause_text: string; pdf_pages: number[] };
      return { query: q.question, pdf: r.pdf, pages: r.pdf_pages, words: wordsOf(r.clause_text) };
    });
}

/** sha256 of bench/data/cuad-client-questions.jsonl as frozen. Held out: never tune on this set, never change this value. */
export const CUAD_CLIENT_SHA256 = 'b45aec15ff1bd3d7df70f18901dd3419005bb10b1b6ee53a9f3325215fbdacbe';

/** The held-out cuad-client questions; refuses to load a file that is not the frozen one. */
export function cuadClientClauses(): ClauseQuestion[] {
  const file = 'cuad-client-questions.jsonl';
  const sha = createHash('sha256')
    .update(readFileSync(path.join(here, 'data', file)))
    .digest('hex');
  if (sha !== CUAD_CLIENT_SHA256) {
    throw new Error(
      `bench/data/${file} is not the frozen held-out set (sha256 ${sha}, expected ${CUAD_CLIENT_SHA256}); restore it from git: it must not be edited or tuned on`,
    );
  }
  return cuadClauses(file);
}

/** The cuad-client-tune questions: client-worded like cuad-client, but a tuning set (no checksum). */
export function cuadClientTuneClauses(): ClauseQuestion[] {
  return cuadClauses('cuad-client-tune-questions.jsonl');
}

/** The result holds the clause on a gold page of the gold contract (the rule of bench/gold.ts). */
export function holdsClause(r: { file: string; pages: [number, number]; text: string }, q: ClauseQuestion): boolean {
  return holdsAnswer(r, { file: q.pdf, pages: q.pages, words: q.words });
}
