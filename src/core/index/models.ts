import path from 'node:path';
import { ModelRegistry, type ModelLocations } from '../models/registry';
import { inspectTransformersFolder } from '../models/folder';
import { withLocalModel } from '../models/transformers';
import { resolveEmbeddingModel } from './embedder';
import { EmbedWorkerStopped, RemoteEmbedder } from './embed-host';
import type { Reranker } from './search';

/** An embedding model ready to embed a case's chunks and queries (normalised vectors). */
export interface LoadedEmbedder {
  readonly modelId: string;
  readonly dimension: number;
  init(): Promise<void>;
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
  embedOne(text: string, signal?: AbortSignal): Promise<Float32Array>;
  dispose(): Promise<void>;
}

export type EmbedderLoad = { ok: true; embedder: LoadedEmbedder } | { ok: false; reason: string };

export interface ModelFolders {
  home: string;
  /** `<home>/models` first, then bundled folders. */
  modelDirs: string[];
}

export function modelLocations(where: ModelFolders): ModelLocations {
  const [first, ...rest] = where.modelDirs;
  return { modelsDir: first ?? path.join(where.home, 'models'), bundledModelDirs: rest, casesDir: path.join(where.home, 'cases') };
}

/**
 * The embedding model `modelId` (or, with null, the default installed one), loaded and ready.
 * A model that is registered but cannot load counts as unavailable, with its reason; rejects
 * (EmbedWorkerStopped) only when the embedding worker crashed while loading it.
 */
export async function loadEmbedder(where: ModelFolders, modelId: string | null): Promise<EmbedderLoad> {
  const resolved = await resolveEmbeddingModel(modelLocations(where), modelId);
  if (!resolved.ok) return resolved;
  // Loaded and run in the embedding worker thread, never on the engine's thread.
  const embedder = new RemoteEmbedder({ id: resolved.model.id, dir: resolved.model.dir });
  try {
    await embedder.init();
  } catch (err) {
    // A crashed worker is an error of this operation, not a model to do without (keyword-only).
    if (err instanceof EmbedWorkerStopped) throw err;
    return { ok: false, reason: `the embedding model "${resolved.model.id}" could not be loaded (${(err as Error).message}) — keyword search only` };
  }
  return { ok: true, embedder };
}

/**
 * A cross-encoder reranker (transformers.js text-classification over (query, passage) pairs),
 * when one is installed; null otherwise. Higher logits mean more relevant.
 */
export async function loadReranker(where: ModelFolders): Promise<Reranker | null> {
  const { models } = await new ModelRegistry(modelLocations(where)).list('reranker');
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
      const inputs = loaded.tokenizer(new Array<string>(passages.length).fill(query), { text_pair: passages, padding: true, truncation: true });
      const { logits } = (await loaded.model(inputs)) as { logits: { data: Float32Array; dims: number[] } };
      const cols = logits.dims[1] ?? 1;
      return passages.map((_, i) => logits.data[i * cols + (cols - 1)]!);
    },
  };
}
