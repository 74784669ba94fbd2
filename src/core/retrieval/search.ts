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
import { filterToWhere, type ChunkFilter, type ChunkStore, type ScoredChunk } from './store';
import { RETRIEVAL_TUNING } from './tuning';
import { expandQuery } from './lexicon';

/** Turns a query into a normalised vector with the same model that embedded the case. */
export interface QueryEmbedder {
  readonly modelId: string;
  readonly dimension: number;
  embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array>;
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
