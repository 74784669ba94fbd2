/**
 * The embedding reference of the e2e benchmark: the same passages through onnxruntime-node
 * directly — the same model file, the same thread count, batches of the product's size (DEFAULT_EMBED_BATCH) — with
 * mean pooling and L2 normalisation in plain code. Tokenizing (the model's own tokenizer, through
 * transformers.js) happens before the clock starts. The session has onnxruntime's defaults (every
 * graph optimization, its memory pattern) unless `sessionOptions` says otherwise; the product's own
 * (embedder.ts: basic graph optimizations for an 8-bit model, no memory pattern) are quicker on
 * MiniLM int8, so the e2e bench times both.
 */
import path from 'node:path';
import { AutoTokenizer, env } from '@huggingface/transformers';
import * as ort from 'onnxruntime-node';
import { DEFAULT_EMBED_BATCH } from '../src/core/retrieval/embed-protocol';

/** Seconds to embed `texts` with `threads` onnxruntime threads, and the vectors (to check against the product's). */
export async function rawOrtEmbed(
  modelDir: string,
  texts: string[],
  threads: number,
  batchSize = DEFAULT_EMBED_BATCH,
  sessionOptions: Pick<ort.InferenceSession.SessionOptions, 'graphOptimizationLevel' | 'enableMemPattern'> = {},
): Promise<{ seconds: number; vectors: Float32Array[] }> {
  env.localModelPath = `${path.dirname(modelDir)}${path.sep}`;
  env.allowRemoteModels = false;
  const tokenizer = await AutoTokenizer.from_pretrained(path.basename(modelDir), { local_files_only: true });
  const session = await ort.InferenceSession.create(path.join(modelDir, 'onnx', 'model_quantized.onnx'), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionProviders: ['cpu'],
    ...sessionOptions,
  });
  const batches: Record<string, ort.Tensor>[] = [];
  for (let i = 0; i < texts.length; i += batchSize) {
    const enc = tokenizer(texts.slice(i, i + batchSize), { padding: true, truncation: true }) as Record<
      string,
      { data: BigInt64Array; dims: number[] }
    >;
    const feeds: Record<string, ort.Tensor> = {};
    for (const name of session.inputNames) feeds[name] = new ort.Tensor('int64', enc[name]!.data, enc[name]!.dims);
    batches.push(feeds);
  }
  await session.run(batches[0]!); // warm-up, not timed
  const vectors: Float32Array[] = [];
  const t0 = performance.now();
  for (const feeds of batches) {
    const out = await session.run(feeds);
    const hidden = out[session.outputNames[0]!]!;
    const [rows, len, dim] = hidden.dims as [number, number, number];
    const data = hidden.data as Float32Array;
    const mask = feeds.attention_mask!.data as BigInt64Array;
    for (let r = 0; r < rows; r++) {
      const v = new Float32Array(dim);
      let n = 0;
      for (let t = 0; t < len; t++) {
        if (!mask[r * len + t]) continue;
        n++;
        const at = (r * len + t) * dim;
        for (let d = 0; d < dim; d++) v[d]! += data[at + d]!;
      }
      let norm = 0;
      for (let d = 0; d < dim; d++) norm += (v[d]! /= n) ** 2;
      norm = Math.sqrt(norm) || 1;
      for (let d = 0; d < dim; d++) v[d]! /= norm;
      vectors.push(v);
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  await session.release();
  return { seconds, vectors };
}
