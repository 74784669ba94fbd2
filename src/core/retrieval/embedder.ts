import path from 'node:path';
import type { FeatureExtractionPipeline, Tensor } from '@huggingface/transformers';
import { CasefileError } from '../../shared/errors';
import { lazy } from '../util/lazy';
import { inspectTransformersFolder, type OnnxDtype, type Pooling, type TransformersFolder } from '../models/folder';
import { DEFAULT_EMBED_BATCH, embedThreads, type EmbedderOptions, type EmbeddingModelRef } from './embed-protocol';
import { loadTransformers, withLocalModel } from '../models/transformers';
import { pooledVectors } from './pooling';

/**
 * An 8-bit model's session gets onnxruntime's basic graph optimizations only (constant folding,
 * redundant nodes removed), not the extended and layout ones: for all-MiniLM-L6-v2 int8, basic was
 * the fastest level, and without any every pass redoes work on the constant weights
 * (figures: bench/RESULTS.md, "Figures behind choices in the code"). The vectors are the same at every level (embedder.test). Other
 * dtypes keep every level (not measured).
 */
export function graphOptimization(dtype: OnnxDtype): 'basic' | 'all' {
  return dtype === 'q8' || dtype === 'int8' || dtype === 'uint8' ? 'basic' : 'all';
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
      throw new CasefileError(
        'failed',
        `The embedding model "${this.modelId}" at ${this.dir} cannot be used: ${inspected.reason}.`,
      );
    }
    const folder = inspected.folder;
    try {
      this.extractor = await withLocalModel(
        folder,
        (mod, name, options) => mod.pipeline('feature-extraction', name, options),
        {
          session_options: {
            intraOpNumThreads: this.threads,
            interOpNumThreads: 1,
            enableMemPattern: false,
            graphOptimizationLevel: graphOptimization(folder.dtype),
          },
        },
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
      // The pipeline's own steps (tokenizer, model), then its pooling done faster (pooling.ts).
      const inputs = extractor.tokenizer(batch, { padding: true, truncation: true });
      const outputs = (await extractor.model(inputs)) as Record<string, Tensor | undefined>;
      const states = outputs.last_hidden_state ?? outputs.logits ?? outputs.token_embeddings;
      if (states?.data instanceof Float32Array && states.dims.length === 3) {
        out.push(
          ...pooledVectors(
            { data: states.data, dims: states.dims },
            inputs.attention_mask.data as BigInt64Array,
            this.pooling,
          ),
        );
      } else {
        // Anything but single-precision token states: the pipeline's own pooling, on the states in hand.
        const { mean_pooling } = await loadTransformers();
        const pooled = (
          this.pooling === 'cls' ? states!.slice(null, 0) : mean_pooling(states!, inputs.attention_mask)
        ).normalize(2, -1);
        const [rows, dim] = pooled.dims as [number, number];
        const data = pooled.data as Float32Array;
        for (let r = 0; r < rows; r++) out.push(data.slice(r * dim, (r + 1) * dim));
      }
    }
    this.dim = out[0]?.length ?? this.dim;
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
