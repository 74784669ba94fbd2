import type {
  ComponentScore,
  KeywordLabel,
  SearchMode,
  SearchResponse,
  SearchResult,
  VectorLabel,
} from '../../shared/contract/search';
import { CasefileError } from '../../shared/errors';
import { CitationLedger, pageRange, type ChunkRecord } from '../domain/index';
import { hybridLabel, keywordLabel, queryCoverage, vectorLabel } from './labels';
import { contentWords } from '../util/words';
import { dot } from '../util/vectors';
import { filterToWhere, type ChunkFilter, type ChunkStore, type ScoredChunk } from './store';
import { RETRIEVAL_TUNING } from './tuning';
import { expandQuery } from './lexicon';
import { passageSentences } from '../text/index';

/** Turns a query into a normalised vector with the same model that embedded the case. */
export interface QueryEmbedder {
  readonly modelId: string;
  readonly dimension: number;
  embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array>;
  /** Vectors of several texts in one batch (a hybrid search's second look, `secondLook`); absent: no second look. */
  embedTexts?(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** A cross-encoder: one relevance score per (query, passage) pair, higher is better. */
export interface Reranker {
  readonly modelId: string;
  score(query: string, passages: string[], signal?: AbortSignal): Promise<number[]>;
}

/** Whether vectors can be used for this case, and if not, why (shown on every surface). */
export type SemanticState = { embedder: QueryEmbedder; reason?: undefined } | { embedder: null; reason: string };

export interface SearchOptions extends ChunkFilter {
  query: string;
  mode: SearchMode;
  top_k: number;
  score_threshold?: number;
  rerank_top_n?: number;
  reject_hashes?: Iterable<string>;
  signal?: AbortSignal;
}

/** Keep the best-scored chunk of each text hash (rows arrive best first). */
export function dedupByHash(rows: ScoredChunk[]): ScoredChunk[] {
  const seen = new Set<string>();
  const out: ScoredChunk[] = [];
  for (const r of rows) {
    if (seen.has(r.chunk.hash)) continue;
    seen.add(r.chunk.hash);
    out.push(r);
  }
  return out;
}

interface Fused {
  chunk: ChunkRecord;
  rrf: number;
  keyword?: ComponentScore<KeywordLabel>;
  vector?: ComponentScore<VectorLabel>;
}

/** Reciprocal Rank Fusion: Σ weight/(k + rank) over the lists a chunk appears in; component ranks and scores are kept. */
export function reciprocalRankFusion(
  keyword: ScoredChunk[],
  vector: ScoredChunk[],
  k = RETRIEVAL_TUNING.rrfK,
  weights: { keyword: number; vector: number } = {
    keyword: RETRIEVAL_TUNING.keywordWeight,
    vector: RETRIEVAL_TUNING.vectorWeight,
  },
): Fused[] {
  const byHash = new Map<string, Fused>();
  keyword.forEach((r, i) => {
    const f: Fused = byHash.get(r.chunk.hash) ?? { chunk: r.chunk, rrf: 0 };
    f.rrf += weights.keyword / (k + i + 1);
    f.keyword = { rank: i + 1, score: r.score, label: keywordLabel(r.score) };
    byHash.set(r.chunk.hash, f);
  });
  vector.forEach((r, i) => {
    const f: Fused = byHash.get(r.chunk.hash) ?? { chunk: r.chunk, rrf: 0 };
    f.rrf += weights.vector / (k + i + 1);
    f.vector = { rank: i + 1, score: r.score, label: vectorLabel(r.score) };
    byHash.set(r.chunk.hash, f);
  });
  return [...byHash.values()].sort((a, b) => b.rrf - a.rrf || (a.chunk.chunk_id < b.chunk.chunk_id ? -1 : 1));
}

function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw new CasefileError('cancelled', 'Search cancelled.');
}

/**
 * Search one case's store. Keyword = LanceDB BM25; vector = cosine over normalised embeddings;
 * hybrid = RRF of both (falls back to keyword when vectors are unavailable, saying so).
 * `score_threshold` applies to `score` in the mode searched (BM25, cosine, or RRF for hybrid).
 */
export async function searchChunks(
  store: ChunkStore,
  semantic: SemanticState,
  options: SearchOptions,
  ledger: CitationLedger = new CitationLedger(),
  reranker: Reranker | null = null,
): Promise<SearchResponse> {
  const { query, top_k: topK } = options;
  const where = filterToWhere({ ...options, exclude_hashes: options.reject_hashes });
  const fetch = Math.max(topK * 4, options.rerank_top_n ?? 0, RETRIEVAL_TUNING.candidates);
  const mode = options.mode;
  const useVectors = semantic.embedder !== null && mode !== 'keyword';
  if (mode === 'vector' && !semantic.embedder) {
    throw new CasefileError('unavailable', `Semantic search is off: ${semantic.reason}.`);
  }

  throwIfAborted(options.signal);
  const expanded = RETRIEVAL_TUNING.lexicon || RETRIEVAL_TUNING.lexiconVector ? expandQuery(query) : query;
  const keywordQuery = RETRIEVAL_TUNING.lexicon ? expanded : query;
  // The keyword and the vector search run side by side: a hybrid search waits for the slower, not the sum.
  const keywordSearch = async (): Promise<ScoredChunk[]> =>
    mode === 'vector'
      ? []
      : dedupByHash(await store.keyword(keywordQuery, where, fetch, { contextBoost: RETRIEVAL_TUNING.contextBoost }));
  const vectorSearch = async (): Promise<ScoredChunk[]> => {
    if (!useVectors) return [];
    const vec = await semantic.embedder!.embedQuery(RETRIEVAL_TUNING.lexiconVector ? expanded : query, options.signal);
    throwIfAborted(options.signal);
    return dedupByHash(await store.vector(vec, where, fetch));
  };
  const [keywordRows, vectorRows] = await Promise.all([keywordSearch(), vectorSearch()]);
  throwIfAborted(options.signal);

  const fused = fuse(mode, useVectors, keywordRows, vectorRows);
  const hybrid = mode === 'hybrid' && useVectors;

  const queryWords = new Set(contentWords(query));
  let results: SearchResult[] = fused.map((f) => toResult(f, mode, hybrid, queryWords));

  if (options.score_threshold !== undefined) results = results.filter((r) => r.score >= options.score_threshold!);

  if (reranker && options.rerank_top_n)
    results = await rerankHead(reranker, query, results, options.rerank_top_n, options.signal);
  else if (hybrid && semantic.embedder!.embedTexts && queryWords.size >= SECOND_LOOK_WORDS)
    results = await secondLook(semantic.embedder!, query, results, options.signal);

  results = results.slice(0, topK);
  for (const r of results) {
    const { id: _unused, ...span } = r.citation;
    r.citation = ledger.issue(span);
  }
  // Reranking asked for but impossible is said, not silently skipped.
  const rerank = options.rerank_top_n
    ? reranker
      ? { reranked: true }
      : { reranked: false, rerank_reason: 'no reranker model is installed' }
    : {};
  // `semantic` says whether vector search is available in this case (whatever mode was asked).
  if (!semantic.embedder) return { results, mode, semantic: false, semantic_reason: semantic.reason, ...rerank };
  const coverage = await store.embeddedShare();
  return {
    results,
    mode,
    semantic: true,
    ...(coverage && coverage.embedded < coverage.total ? { semantic_coverage: coverage } : {}),
    ...rerank,
  };
}

/** The rows in the mode searched: one list ranked as it came, or both fused by reciprocal rank. */
function fuse(mode: SearchMode, useVectors: boolean, keywordRows: ScoredChunk[], vectorRows: ScoredChunk[]): Fused[] {
  if (mode === 'keyword' || (mode === 'hybrid' && !useVectors))
    return keywordRows.map((r, i) => ({
      chunk: r.chunk,
      rrf: 0,
      keyword: { rank: i + 1, score: r.score, label: keywordLabel(r.score) },
    }));
  if (mode === 'vector')
    return vectorRows.map((r, i) => ({
      chunk: r.chunk,
      rrf: 0,
      vector: { rank: i + 1, score: r.score, label: vectorLabel(r.score) },
    }));
  return reciprocalRankFusion(keywordRows, vectorRows);
}

/** One fused row as a search result, scored and labelled in the mode searched (its citation id is issued later). */
function toResult(
  f: Fused,
  mode: SearchOptions['mode'],
  hybrid: boolean,
  queryWords: ReadonlySet<string>,
): SearchResult {
  const score = hybrid ? f.rrf : mode === 'vector' ? f.vector!.score : f.keyword!.score;
  const label = hybrid
    ? hybridLabel({
        keywordRank: f.keyword?.rank,
        vectorRank: f.vector?.rank,
        cosine: f.vector?.score,
        coverage: () => queryCoverage(queryWords, f.chunk.text),
      })
    : mode === 'vector'
      ? f.vector!.label
      : f.keyword!.label;
  const c = f.chunk;
  return {
    chunk_id: c.chunk_id,
    file_id: c.file_id,
    file_name: c.file_name,
    version: c.version,
    chunk_index: c.chunk_index,
    pages: [c.page_start, c.page_end],
    start: c.start,
    end: c.end,
    text: c.text,
    hash: c.hash,
    doc_type: c.doc_type,
    doc_date: c.doc_date,
    score,
    label,
    scores: {
      ...(f.keyword ? { keyword: f.keyword } : {}),
      ...(f.vector ? { vector: f.vector } : {}),
      ...(hybrid ? { rrf: f.rrf } : {}),
    },
    citation: {
      id: '',
      file_id: c.file_id,
      file_name: c.file_name,
      version: c.version,
      pages: pageRange(c.page_start, c.page_end),
      start: c.start,
      end: c.end,
    },
  };
}

/** A query of fewer words ("governing law") is ranked by its words: no second look, and none of its cost. */
const SECOND_LOOK_WORDS = 3;

/** Sentences shorter than this ("Termination.", "(a)") say too little to be compared with a question. */
const MIN_SENTENCE = 20;

/**
 * A hybrid search's second look (RETRIEVAL_TUNING.sentences): a passage is as close to the query
 * as its closest sentence, so a long passage with one answering sentence (the termination sentence
 * among the renewal terms) is not outranked by one that only shares the question's words. The
 * passages after the first, up to `head`, are re-ordered by that sentence's cosine, their own
 * cosine and their place in search's order; the first passage stays where fusion put it, which is
 * where the best-ranked answer sits most often. The cosines are kept in `scores.sentence`.
 * `query` is what was searched: within the documents a question names, the question without the
 * words that named them, so a sentence is not preferred for naming a party.
 */
async function secondLook(
  embedder: QueryEmbedder,
  query: string,
  results: SearchResult[],
  signal?: AbortSignal,
): Promise<SearchResult[]> {
  const t = RETRIEVAL_TUNING.sentences;
  const head = results.slice(1, t.head);
  if (head.length < 2) return results;
  const sentences = head.map((r) =>
    passageSentences(r.text, 0, r.text.length)
      .map(([a, b]) => r.text.slice(a, b))
      .filter((x) => x.length >= MIN_SENTENCE),
  );
  const texts = [...new Set([query, ...sentences.flat()])];
  const vectors = await embedder.embedTexts!(texts, signal);
  throwIfAborted(signal);
  const vectorOf = new Map(texts.map((x, i) => [x, vectors[i]!]));
  const q = vectorOf.get(query)!;
  head.forEach((r, i) => {
    // A passage of short items only ("(a) Fees.") has no sentence to compare: 0.
    r.scores.sentence = Math.max(0, ...sentences[i]!.map((x) => dot(q, vectorOf.get(x)!)));
  });
  const order = (r: SearchResult, rank: number) =>
    (t.rank * t.rankK) / (t.rankK + rank + 1) + r.scores.sentence! + t.chunk * (r.scores.vector?.score ?? 0);
  const ranked = head.map((r, i) => ({ r, key: order(r, i + 1) })).sort((a, b) => b.key - a.key);
  return [results[0]!, ...ranked.map((x) => x.r), ...results.slice(t.head)];
}

/** The first `topN` results re-ordered by the cross-encoder's score (kept in `scores.rerank`); the rest follow unchanged. */
async function rerankHead(
  reranker: Reranker,
  query: string,
  results: SearchResult[],
  topN: number,
  signal?: AbortSignal,
): Promise<SearchResult[]> {
  const head = results.slice(0, topN);
  const scores = await reranker.score(
    query,
    head.map((r) => r.text),
    signal,
  );
  head.forEach((r, i) => {
    r.scores.rerank = scores[i]!;
  });
  head.sort((a, b) => (b.scores.rerank ?? 0) - (a.scores.rerank ?? 0));
  return [...head, ...results.slice(topN)];
}
