import type { CaseMeta } from '../cases/index';
import { NO_EMBEDDING_MODEL_REASON } from '../models/registry';
import type { LoadedEmbedder } from './embed-host';
import { loadEmbedder, loadReranker, type EmbedderLoad, type EmbeddingCatalog } from './models';
import type { Reranker, SemanticState } from './search';
import type { ChunkStore } from './store';

/** Query vectors kept per engine (384 floats each for the default model: about 0.4 MB in all). */
export const RECENT_QUERIES = 256;
/** Sentence vectors kept per engine (a search's second look, an answer's choice of sentence): about 6 MB. */
export const RECENT_TEXTS = 4096;

/**
 * The models that answer queries, loaded once per engine and shared by every case: query embedders
 * (by model id) and the cross-encoder reranker. A model missing now may be installed later, so
 * failed loads are not kept. The engine owns it and disposes it when it closes.
 */
export class QueryModels {
  private readonly embedders = new Map<string, Promise<EmbedderLoad>>();
  private rerankerLoad: Promise<Reranker | null> | null = null;
  /** The latest query vectors, by model and text, least recently used first (a model loaded again starts afresh). */
  private readonly recent: Recent = new Map();
  /** The latest sentence vectors, the same way. */
  private readonly texts: Recent = new Map();

  constructor(private readonly catalog: EmbeddingCatalog) {}

  /** Query embedder for `modelId` (null: the default model). */
  embedder(modelId: string | null): Promise<EmbedderLoad> {
    const key = modelId ?? '\u0000default';
    let load = this.embedders.get(key);
    if (!load) {
      load = loadEmbedder(this.catalog, modelId);
      this.embedders.set(key, load);
      void load.then(
        (r) => {
          if (!r.ok) this.embedders.delete(key);
        },
        () => this.embedders.delete(key), // the embedding worker crashed while loading: try again next time
      );
    }
    return load;
  }

  /**
   * The vector of a query. A question asked again (in another search mode, on the next page of
   * results, by the agent in a later step) reuses the vector made for it: during an ingest a query
   * waits behind the embedding stage's batch, and the same text always makes the same vector.
   * Only finished vectors are kept, so a cancelled query is made again next time.
   */
  async embedQuery(embedder: LoadedEmbedder, text: string, signal?: AbortSignal): Promise<Float32Array> {
    const kept = recall(this.recent, embedder, text);
    if (kept) return kept;
    const vector = await embedder.embedOne(text, signal);
    keep(this.recent, embedder, text, vector, RECENT_QUERIES);
    return vector;
  }

  /**
   * The vectors of several texts (sentences of passages), those made lately reused: a search's
   * second look and the answer that quotes the same passages compare the same sentences.
   */
  async embedTexts(embedder: LoadedEmbedder, texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const found = new Map<string, Float32Array>();
    for (const text of texts) {
      const kept = recall(this.texts, embedder, text);
      if (kept) found.set(text, kept);
    }
    const todo = [...new Set(texts.filter((t) => !found.has(t)))];
    if (todo.length) {
      const vectors = await embedder.embed(todo, signal);
      todo.forEach((text, i) => {
        found.set(text, vectors[i]!);
        keep(this.texts, embedder, text, vectors[i]!, RECENT_TEXTS);
      });
    }
    return texts.map((t) => found.get(t)!);
  }

  /** The installed cross-encoder reranker (null when none is installed). */
  async reranker(): Promise<Reranker | null> {
    this.rerankerLoad ??= loadReranker(this.catalog).catch(() => null);
    const r = await this.rerankerLoad;
    if (!r) this.rerankerLoad = null;
    return r;
  }

  async dispose(): Promise<void> {
    const loads = [...this.embedders.values()];
    this.embedders.clear();
    this.recent.clear();
    this.texts.clear();
    for (const l of loads) {
      const r = await l.catch(() => null);
      if (r?.ok) await r.embedder.dispose();
    }
  }
}

type Recent = Map<string, { embedder: LoadedEmbedder; vector: Float32Array }>;

/** A vector `embedder` made for `text` lately, moved to the newest end; undefined when none. */
function recall(recent: Recent, embedder: LoadedEmbedder, text: string): Float32Array | undefined {
  const key = `${embedder.modelId}\u0000${text}`;
  const kept = recent.get(key);
  recent.delete(key);
  if (kept?.embedder !== embedder) return undefined;
  recent.set(key, kept);
  return kept.vector;
}

/** Keep a vector, the least recently used going once there are more than `cap`. */
function keep(recent: Recent, embedder: LoadedEmbedder, text: string, vector: Float32Array, cap: number): void {
  recent.set(`${embedder.modelId}\u0000${text}`, { embedder, vector });
  if (recent.size > cap) recent.delete(recent.keys().next().value!);
}

/** Where a case's query models come from. */
export interface QueryModelsPort {
  queryModels(): Promise<QueryModels>;
}

/**
 * Whether this case can use vectors now, and the query embedder if so: the case's vectors must
 * have been made by a model that is installed (the one case.json records).
 */
export async function caseSemantics(models: QueryModels, meta: CaseMeta, store: ChunkStore): Promise<SemanticState> {
  const recorded = meta.embedding;
  const storedDim = await store.vectorDimension();
  const rows = await store.count();
  if (rows > 0 && storedDim === null) {
    const anyModel = await models.embedder(null);
    return {
      embedder: null,
      reason: anyModel.ok
        ? `this case's passages are not yet searchable by meaning with "${anyModel.embedder.modelId}" — keyword search until they are (the app does it by itself; the case's documents show how far it is)`
        : NO_EMBEDDING_MODEL_REASON,
    };
  }
  const load = await models.embedder(rows > 0 ? (recorded?.modelId ?? null) : null);
  if (!load.ok) {
    return {
      embedder: null,
      reason:
        recorded && rows > 0
          ? `this case's vectors were made with "${recorded.modelId}", which is not installed — keyword search only (${load.reason})`
          : load.reason,
    };
  }
  const embedder = load.embedder;
  if (storedDim !== null && storedDim !== embedder.dimension) {
    return {
      embedder: null,
      reason: `this case's vectors have ${storedDim} dimensions but "${embedder.modelId}" makes ${embedder.dimension} — re-embed the case`,
    };
  }
  return {
    embedder: {
      modelId: embedder.modelId,
      dimension: embedder.dimension,
      embedQuery: (text, signal) => models.embedQuery(embedder, text, signal),
      embedTexts: (texts, signal) => models.embedTexts(embedder, texts, signal),
    },
  };
}
