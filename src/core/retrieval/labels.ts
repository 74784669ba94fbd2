import type { KeywordLabel, QualityLabel, VectorLabel } from '../../shared/contract/search';
import { contentWords } from '../util/words';

/** BM25 quality: strong ≥15, good 8–15, partial 3–8, weak 1–3, none below 1. */
export function keywordLabel(bm25: number): KeywordLabel {
  if (bm25 >= 15) return 'strong';
  if (bm25 >= 8) return 'good';
  if (bm25 >= 3) return 'partial';
  if (bm25 >= 1) return 'weak';
  return 'none';
}

/** Cosine quality: strong ≥0.5, good 0.35–0.5, marginal 0.2–0.35, noise below 0.2. */
export function vectorLabel(cosine: number): VectorLabel {
  if (cosine >= 0.5) return 'strong';
  if (cosine >= 0.35) return 'good';
  if (cosine >= 0.2) return 'marginal';
  return 'noise';
}

const TIER: Record<QualityLabel, number> = { strong: 4, good: 3, partial: 2, marginal: 2, weak: 1, none: 0, noise: 0 };

/** Share of the query's content words that the passage contains (0 when the query has none). */
export function queryCoverage(queryWords: ReadonlySet<string>, text: string): number {
  if (!queryWords.size) return 0;
  const have = new Set(contentWords(text));
  let n = 0;
  for (const w of queryWords) if (have.has(w)) n++;
  return n / queryWords.size;
}

/** What a hybrid hit's label is judged on: its rank in each search that found it, its cosine, and its share of the question's words. */
export interface HybridEvidence {
  keywordRank?: number | undefined;
  vectorRank?: number | undefined;
  cosine?: number | undefined;
  /** Share of the question's words the passage holds (computed only when the label needs it). */
  coverage: () => number;
}

/**
 * A hybrid hit's relevance to the question: strong when keyword and meaning search both put it at
 * the top and it is close in meaning; weaker as they disagree. Not the better of two raw scores:
 * BM25 reads strong for any passage that repeats one rare word, so every hit would read strong
 * (checked on ContractNLI questions, test/retrieval/semantic.test.ts).
 */
export function hybridLabel(e: HybridEvidence): QualityLabel {
  const k = e.keywordRank ?? Infinity;
  const v = e.vectorRank ?? Infinity;
  const cos = e.cosine ?? 0;
  if (e.vectorRank === undefined) {
    // Found by words alone (or vectors are off): as good as its share of the question's words, never strong.
    const coverage = e.coverage();
    if (k <= 3 && coverage >= 0.6) return 'good';
    return coverage >= 0.34 ? 'partial' : 'weak';
  }
  if (k <= 3 && v <= 3 && cos >= 0.35) return 'strong';
  if ((k <= 5 && v <= 5) || ((k === 1 || v === 1) && cos >= 0.3)) return 'good';
  if ((Number.isFinite(k) && Number.isFinite(v)) || cos >= 0.4 || e.coverage() >= 0.6) return 'partial';
  return 'weak';
}

/** The best quality label among results (strong > good > partial/marginal > weak > none/noise). */
export function bestLabelOf(labels: (string | undefined)[]): string | undefined {
  let best: string | undefined;
  for (const l of labels)
    if (l && (best === undefined || (TIER[l as QualityLabel] ?? 0) > (TIER[best as QualityLabel] ?? 0))) best = l;
  return best;
}
