import { CasefileError } from '../../shared/errors';
import type { ModelRegistry } from '../models/registry';
import { NO_EMBEDDING_MODEL_REASON } from '../models/registry';
import type { Pooling } from '../models/folder';
import { inspectTransformersFolder } from '../models/folder';
import { withLocalModel } from '../models/transformers';
import { EmbedWorkerStopped, RemoteEmbedder, type LoadedEmbedder } from './embed-host';
import type { EmbeddingModelRef } from './embed-protocol';
import type { Reranker } from './search';

export type { LoadedEmbedder } from './embed-host';

export type EmbedderLoad = { ok: true; embedder: LoadedEmbedder } | { ok: false; reason: string };

/** What the index needs of the model catalog. */
export type EmbeddingCatalog = Pick<ModelRegistry, 'defaultEmbedding' | 'list'>;

export type ResolvedEmbeddingModel =
  | { ok: true; model: EmbeddingModelRef & { dimension: number | null; pooling: Pooling } }
  | { ok: false; reason: string };

/**
 * The embedding model new vectors should use: `modelId` when given (e.g. the one a case already
 * records), else the default installed model (`<home>/models`, then the bundled `models/`).
 * Returns a reason instead of throwing when there is none, so callers fall back to keyword search.
 */
export async function resolveEmbeddingModel(
  catalog: EmbeddingCatalog,
  modelId?: string | null,
): Promise<ResolvedEmbeddingModel> {
  let found: Awaited<ReturnType<EmbeddingCatalog['defaultEmbedding']>>;
  try {
    found = await catalog.defaultEmbedding(modelId ?? undefined);
  } catch (err) {
    // A damaged registry must not take keyword search down with it.
    return {
      ok: false,
      reason: `the model registry could not be read (${(err as Error).message}) — keyword search only`,
    };
  }
  if (!found) {
    return modelId
      ? {
          ok: false,
          reason: `embedding model "${modelId}" is not installed — keyword search only until it is imported again`,
        }
      : { ok: false, reason: NO_EMBEDDING_MODEL_REASON };
  }
  return { ok: true, model: { id: found.id, dir: found.path, dimension: found.dimension, pooling: found.pooling } };
}

/**
 * The embedding model `modelId` (or, with null, the default installed one), loaded and ready.
 * A model that is registered but cannot load counts as unavailable, with its reason; rejects
 * (EmbedWorkerStopped) only when the embedding worker crashed while loading it.
 */
export async function loadEmbedder(catalog: EmbeddingCatalog, modelId: string | null): Promise<EmbedderLoad> {
  const resolved = await resolveEmbeddingModel(catalog, modelId);
  if (!resolved.ok) return resolved;
  // Loaded and run in the embedding worker thread, never on the engine's thread.
  const embedder = new RemoteEmbedder({ id: resolved.model.id, dir: resolved.model.dir });
  try {
    await embedder.init();
  } catch (err) {
    // A crashed worker is an error of this operation, not a model to do without (keyword-only).
    if (err instanceof EmbedWorkerStopped) throw err;
    return {
      ok: false,
      reason: `the embedding model "${resolved.model.id}" could not be loaded (${(err as Error).message}) — keyword search only`,
    };
  }
  return { ok: true, embedder };
}

/**
 * The catalog's check of an embedding folder at import: load it in the embedding worker, embed one
 * sentence, and return the vector length (a folder that loads but yields no usable vector is not
 * a sentence-embedding model).
 */
export async function probeEmbedding(id: string, dir: string, signal?: AbortSignal): Promise<number> {
  const embedder = new RemoteEmbedder({ id, dir });
  try {
    const [vector] = await embedder.embed(['The tenant shall pay rent monthly.'], signal);
    if (!vector || vector.length === 0 || !vector.every(Number.isFinite)) {
      throw new CasefileError(
        'failed',
        `${dir} loaded but produced no usable embedding; it is not a sentence-embedding model.`,
      );
    }
    return vector.length;
  } finally {
    await embedder.dispose();
  }
}

/**
 * A cross-encoder reranker (transformers.js text-classification over (query, passage) pairs),
 * when one is installed; null otherwise. Higher logits mean more relevant.
 */
export async function loadReranker(catalog: EmbeddingCatalog): Promise<Reranker | null> {
  const { models } = await catalog.list('reranker');
  const model = models[0];
  if (!model) return null;
  const inspected = await inspectTransformersFolder(model.path);
  if (!inspected.ok) return null;
  const folder = inspected.folder;
  const loaded = await withLocalModel(folder, async (mod, name, options) => ({
    tokenizer: await mod.AutoTokenizer.from_pretrained(name, options),
    model: await mod.AutoModelForSequenceClassification.from_pretrained(name, options),
  }));
  return {
    modelId: model.id,
    async score(query, passages) {
      if (passages.length === 0) return [];
      const inputs = loaded.tokenizer(new Array<string>(passages.length).fill(query), {
        text_pair: passages,
        padding: true,
        truncation: true,
      });
      const { logits } = (await loaded.model(inputs)) as { logits: { data: Float32Array; dims: number[] } };
      const cols = logits.dims[1] ?? 1;
      return passages.map((_, i) => logits.data[i * cols + (cols - 1)]!);
    },
  };
}
