import type { KeywordLabel, QualityLabel, VectorLabel } from '../../shared/contract/search';

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

/** The better of two labels (for hybrid results, which carry both components). */
export function betterLabel(a: QualityLabel | undefined, b: QualityLabel | undefined): QualityLabel {
  if (!a) return b ?? 'none';
  if (!b) return a;
  return TIER[b] > TIER[a] ? b : a;
}

/** The best quality label among results (strong > good > partial/marginal > weak > none/noise). */
export function bestLabelOf(labels: (string | undefined)[]): string | undefined {
  let best: string | undefined;
  for (const l of labels) if (l && (best === undefined || (TIER[l as QualityLabel] ?? 0) > (TIER[best as QualityLabel] ?? 0))) best = l;
  return best;
}
