const RANK: Record<string, number> = { strong: 4, good: 3, partial: 2, marginal: 2, weak: 1, none: 0, noise: 0 };

/** The best quality label among results (strong > good > partial/marginal > weak > none/noise). */
export function bestLabelOf(labels: (string | undefined)[]): string | undefined {
  let best: string | undefined;
  for (const l of labels) if (l && (best === undefined || (RANK[l] ?? 0) > (RANK[best] ?? 0))) best = l;
  return best;
}
