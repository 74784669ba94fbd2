import type { Pooling } from '../models/folder';

/** A model's token states, [texts, tokens, dimensions], as onnxruntime returns them. */
export interface TokenStates {
  data: Float32Array;
  dims: readonly number[];
}

/**
 * One L2-normalised vector per text from a model's token states: the mean over the text's real
 * tokens (`mask` 1; padding 0), or its first token (`cls`). The arithmetic of transformers.js's
 * `mean_pooling` + `Tensor.normalize(2, -1)` step for step (double sums, single-precision mean and
 * norm, `x ** 0.5`), so vectors match to the bit (embedder.test) and stored vectors stay comparable;
 * it reads each token's row once instead of walking its index arithmetic (bench/RESULTS.md).
 */
export function pooledVectors(states: TokenStates, mask: ArrayLike<bigint | number>, pooling: Pooling): Float32Array[] {
  const [rows, tokens, dim] = states.dims as [number, number, number];
  const { data } = states;
  const out: Float32Array[] = [];
  const sums = new Float64Array(dim);
  for (let r = 0; r < rows; r++) {
    const row = r * tokens * dim;
    let v: Float32Array;
    if (pooling === 'cls') {
      v = data.slice(row, row + dim);
    } else {
      sums.fill(0);
      let count = 0;
      for (let t = 0; t < tokens; t++) {
        const attn = Number(mask[r * tokens + t]);
        count += attn;
        const at = row + t * dim;
        for (let d = 0; d < dim; d++) sums[d]! += data[at + d]! * attn;
      }
      v = new Float32Array(dim);
      for (let d = 0; d < dim; d++) v[d] = sums[d]! / count;
    }
    // Rounded to single precision at every step, as the pipeline's Float32Array keeps it.
    let norm = 0;
    for (let d = 0; d < dim; d++) norm = Math.fround(norm + v[d]! ** 2);
    norm = Math.fround(norm ** 0.5);
    for (let d = 0; d < dim; d++) v[d] = v[d]! / norm;
    out.push(v);
  }
  return out;
}
