import { NO_MODEL_REASON } from './semantic';

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

/** The embedding model `modelId` (or the default installed one) from the model folders. */
export async function loadEmbedder(_where: { home: string; modelDirs: string[] }, _modelId: string | null): Promise<EmbedderLoad> {
  return { ok: false, reason: NO_MODEL_REASON };
}
