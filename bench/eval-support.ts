/**
 * Calibrates and measures citation verification on bench/data/support-pairs.jsonl (made by
 * bench/make-support-pairs.ts): for each (sentence, passage, supports?) pair the real verifier
 * runs, once with word overlap and once with the embedding model (all-MiniLM-L6-v2 from
 * test/.models, through the product's embedding worker). Reports precision and recall of
 * "supported" at the thresholds in SUPPORT_THRESHOLDS, per kind of negative, and the sweep that
 * chose them (the highest recall with precision ≥ 0.95). Writes bench/support-results.json.
 *
 *   npm run eval:support [-- --pairs FILE]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CitationRecord } from '../src/shared/contract/search';
import { RemoteEmbedder } from '../src/core/retrieval/embed-host';
import {
  embeddingSimilarity,
  SUPPORT_THRESHOLDS,
  verifyCitations,
  type Similarity,
  type SupportScores,
} from '../src/core/citations/verify';
import type { SupportPair } from './make-support-pairs';

const args = process.argv.slice(2);
const pairsFile = path.resolve(
  args[args.indexOf('--pairs') + 1] && args.includes('--pairs')
    ? args[args.indexOf('--pairs') + 1]!
    : path.join(import.meta.dirname, 'data/support-pairs.jsonl'),
);
const pairs: SupportPair[] = readFileSync(pairsFile, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));

interface Scored {
  pair: SupportPair;
  /** The verdict at the shipped thresholds. */
  green: boolean;
  reason: string;
  /** Scores of the sentence against its best passage sentence(s); null when a quote decided alone. */
  scores: SupportScores | null;
  /** With the similarity thresholds off: green when no scores were needed (a quote decided). */
  greenWithoutScores: boolean;
}

async function score(pair: SupportPair, similarity: Similarity | undefined): Promise<Scored> {
  const record = {
    id: 'c1',
    file_id: 'f1',
    file_name: `${pair.title || 'contract'}.pdf`,
    version: 1,
    pages: [1],
    start: pair.start,
    end: pair.end,
  } as CitationRecord;
  const lookup = { get: (id: string) => (id === 'c1' ? record : undefined) };
  const source = async () => ({ text: pair.passage, title: pair.title, names: `${pair.names} ${pair.title}` });
  const answer = `${pair.sentence} [cite:c1]`;
  const atDefault = (await verifyCitations(answer, lookup, source, { ...(similarity ? { similarity } : {}) }))
    .citations[0]!;
  let scores: SupportScores | null = null;
  const off = { ...SUPPORT_THRESHOLDS, cosine: -1, lexical: -1, lexicalFloor: -1, lexicalAlone: -1 };
  const open = (
    await verifyCitations(answer, lookup, source, {
      ...(similarity ? { similarity } : {}),
      thresholds: off,
      onScores: (s) => (scores = s),
    })
  ).citations[0]!;
  return { pair, green: atDefault.verified, reason: atDefault.reason, scores, greenWithoutScores: open.verified };
}

type Rule = (s: SupportScores) => boolean;

function metrics(rows: Scored[], rule: Rule | null, label: Record<string, number>) {
  let tp = 0,
    fp = 0,
    fn = 0;
  const falseGreen: Record<string, number> = {};
  for (const r of rows) {
    const yes = rule ? (r.scores ? r.scores.factsOk && rule(r.scores) : r.greenWithoutScores) : r.green;
    if (yes && r.pair.supports) tp++;
    else if (yes) {
      fp++;
      falseGreen[r.pair.kind] = (falseGreen[r.pair.kind] ?? 0) + 1;
    } else if (r.pair.supports) fn++;
  }
  return {
    ...label,
    precision: +(tp + fp ? tp / (tp + fp) : 1).toFixed(3),
    recall: +(tp + fn ? tp / (tp + fn) : 0).toFixed(3),
    false_green: falseGreen,
  };
}

function best<T extends { precision: number; recall: number }>(rows: T[]): T | null {
  return rows.filter((m) => m.precision >= 0.95).sort((a, b) => b.recall - a.recall)[0] ?? null;
}

const grid = (from: number, to: number, step: number) =>
  Array.from({ length: Math.round((to - from) / step) + 1 }, (_, i) => +(from + i * step).toFixed(3));

const lexRows: Scored[] = [];
for (const p of pairs) lexRows.push(await score(p, undefined));

const embedder = new RemoteEmbedder({
  id: 'all-MiniLM-L6-v2',
  dir: path.join(import.meta.dirname, '../test/.models/all-MiniLM-L6-v2'),
});
await embedder.init();
const embRows: Scored[] = [];
const t0 = performance.now();
for (const p of pairs) embRows.push(await score(p, embeddingSimilarity(embedder)));
const embedMs = (performance.now() - t0) / pairs.length;
await embedder.dispose();

const lexSweep = grid(0.2, 0.9, 0.05).map((t) => metrics(lexRows, (x) => x.lexical >= t, { lexical: t }));
const embSweep = grid(0.4, 0.85, 0.025).flatMap((c) =>
  grid(0, 0.6, 0.05).map((f) =>
    metrics(embRows, (x) => ((x.cosine ?? 0) >= c && x.lexical >= f) || x.lexical >= SUPPORT_THRESHOLDS.lexicalAlone, {
      cosine: c,
      lexical_floor: f,
    }),
  ),
);
const negatives = pairs.filter((p) => !p.supports);
const missed = (rows: Scored[]) =>
  rows
    .filter((r) => r.pair.supports && !r.green)
    .map((r) => ({ id: r.pair.id, scores: r.scores, reason: r.reason, sentence: r.pair.sentence.slice(0, 160) }));
const falseGreens = (rows: Scored[]) =>
  rows
    .filter((r) => !r.pair.supports && r.green)
    .map((r) => ({
      id: r.pair.id,
      scores: r.scores,
      reason: r.reason,
      sentence: r.pair.sentence.slice(0, 200),
      passage: r.pair.passage.slice(r.pair.start, r.pair.end).slice(0, 200),
    }));
const result = {
  pairs: pairs.length,
  positives: pairs.length - negatives.length,
  negatives_by_kind: Object.fromEntries(
    [...new Set(negatives.map((p) => p.kind))].map((k) => [k, negatives.filter((p) => p.kind === k).length]),
  ),
  thresholds: SUPPORT_THRESHOLDS,
  facts_rejected: {
    positives: lexRows.filter((r) => r.pair.supports && r.scores && !r.scores.factsOk).length,
    negatives: lexRows.filter((r) => !r.pair.supports && r.scores && !r.scores.factsOk).length,
  },
  lexical: {
    at_default: metrics(lexRows, null, { lexical: SUPPORT_THRESHOLDS.lexical }),
    best: best(lexSweep),
    false_greens: falseGreens(lexRows),
    missed: missed(lexRows).length,
  },
  embedding: {
    at_default: metrics(embRows, null, {
      cosine: SUPPORT_THRESHOLDS.cosine,
      lexical_floor: SUPPORT_THRESHOLDS.lexicalFloor,
    }),
    best: best(embSweep),
    ms_per_pair: Math.round(embedMs),
    false_greens: falseGreens(embRows),
    missed: missed(embRows),
  },
  sweeps: { lexical: lexSweep, embedding: embSweep },
};
const { sweeps: _s, ...short } = result;
console.log(JSON.stringify(short, null, 2));
writeFileSync(path.join(import.meta.dirname, 'support-results.json'), JSON.stringify(result, null, 2) + '\n');
