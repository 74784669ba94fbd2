import path from 'node:path';
import type { FeatureExtractionPipeline } from '@huggingface/transformers';
import { CasefileError } from '../../shared/errors';
import { lazy } from '../util/lazy';
import { inspectTransformersFolder, type OnnxDtype, type Pooling, type TransformersFolder } from '../models/folder';
import { DEFAULT_EMBED_BATCH, embedThreads, type EmbedderOptions, type EmbeddingModelRef } from './embed-protocol';
import { withLocalModel } from '../models/transformers';

/**
 * onnxruntime's graph optimizations, from their basic level up, make an 8-bit model's session far
 * larger (all-MiniLM-L6-v2 int8, 23 MB on disk: 190 MB of session with them, 70 MB without; about
 * 60 MB less at the peak of 400 passages), at nearly the same speed (400 contract passages, 2
 * threads, alternating runs: 15.0 / 15.4 / 15.5 s with, 15.5 / 15.7 / 17.6 s without) and with the
 * same vectors (cosine ≥ 0.999999). Other dtypes keep them (not measured).
 */
function graphOptimization(dtype: OnnxDtype): 'disabled' | 'all' {
  return dtype === 'q8' || dtype === 'int8' || dtype === 'uint8' ? 'disabled' : 'all';
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/**
 * A sentence-embedding model run through transformers.js feature extraction (onnxruntime-node
 * on CPU). Loads lazily on first use, only from its local folder; pooling follows the model
 * (mean for MiniLM-style, CLS for BGE-style) and vectors are L2-normalised, so a dot product
 * is the cosine similarity. Works the same on the main thread and inside a worker_thread.
 */
export class Embedder {
  readonly modelId: string;
  readonly dir: string;
  private readonly options: EmbedderOptions;
  private folder: TransformersFolder | undefined;
  private extractor: FeatureExtractionPipeline | undefined;
  private readonly loading = lazy(() => this.load());
  private dim: number | undefined;

  constructor(model: EmbeddingModelRef, options: EmbedderOptions = {}) {
    this.modelId = model.id;
    this.dir = path.resolve(model.dir);
    this.options = options;
  }

  /** Vector length; known from config.json before `init()`, confirmed by the first embedding. */
  get dimension(): number {
    const dim = this.dim ?? this.folder?.hiddenSize;
    if (!dim) throw new Error('Embedder.dimension is known only after init()');
    return dim;
  }

  /** onnxruntime threads this embedder runs with. */
  get threads(): number {
    return embedThreads(this.options.threads);
  }

  get pooling(): Pooling {
    return this.options.pooling ?? this.folder?.pooling ?? 'mean';
  }

  /** Load the tokenizer and the ONNX session. Safe to call many times; concurrent callers share one load. */
  init(): Promise<void> {
    return this.loading.get();
  }

  private async load(): Promise<void> {
    const inspected = await inspectTransformersFolder(this.dir);
    if (!inspected.ok) {
      throw new CasefileError('failed', `The embedding model "${this.modelId}" at ${this.dir} cannot be used: ${inspected.reason}.`);
    }
    const folder = inspected.folder;
    try {
      this.extractor = await withLocalModel(
        folder,
        (mod, name, options) => mod.pipeline('feature-extraction', name, options),
        { session_options: { intraOpNumThreads: this.threads, interOpNumThreads: 1, enableMemPattern: false, graphOptimizationLevel: graphOptimization(folder.dtype) } },
      );
    } catch (err) {
      throw new CasefileError(
        'failed',
        `Could not load the embedding model "${this.modelId}" from ${this.dir}: ${(err as Error).message}`,
      );
    }
    this.folder = folder;
  }

  /**
   * Embed texts in batches; one normalised vector per text, in order. Checks `signal` between
   * batches and rejects with an AbortError once it is aborted.
   */
  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (signal?.aborted) throw abortError(signal);
    await this.init();
    const extractor = this.extractor!;
    const batchSize = Math.max(1, this.options.batchSize ?? DEFAULT_EMBED_BATCH);
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      if (signal?.aborted) throw abortError(signal);
      // An empty string would still produce [CLS][SEP]; keep it, callers may rely on one vector per text.
      const batch = texts.slice(start, start + batchSize);
      const tensor = await extractor(batch, { pooling: this.pooling, normalize: true });
      const [rows, dim] = tensor.dims as [number, number];
      const data = tensor.data as Float32Array;
      this.dim = dim;
      for (let r = 0; r < rows; r++) out.push(data.slice(r * dim, (r + 1) * dim));
      tensor.dispose?.();
    }
    return out;
  }

  /** Embed one text (e.g. a query). */
  async embedOne(text: string, signal?: AbortSignal): Promise<Float32Array> {
    const [vector] = await this.embed([text], signal);
    return vector!;
  }

  /** Release the ONNX session. The embedder can be initialised again afterwards. */
  async dispose(): Promise<void> {
    const extractor = this.extractor;
    this.extractor = undefined;
    this.loading.reset();
    await extractor?.dispose();
  }
}

/** Cosine similarity of two vectors (a plain dot product for the normalised vectors an Embedder returns). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}
